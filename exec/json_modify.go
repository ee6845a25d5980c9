package exec

import (
	"strconv"
)

// jsonb modification functions and operators: jsonb_set, jsonb_insert,
// jsonb_strip_nulls / json_strip_nulls, jsonb - text|int|text[], #-,
// ?| and ?&. Values are decoded, edited as Go values and re-rendered
// (jsonb rendering normalizes key order).

var tTextArray = Type{1009, -1}

// jsonPath modes (PostgreSQL's JB_PATH_* behaviours).
const (
	pathReplace      = iota // jsonb_set(..., create_missing => false)
	pathCreate              // jsonb_set: replace or create the last step
	pathInsertBefore        // jsonb_insert
	pathInsertAfter         // jsonb_insert(..., insert_after => true)
	pathDelete              // #-
)

func init() {
	set := func(withFlag bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				mode := pathCreate
				if withFlag && !a[3].B[i] {
					mode = pathReplace
				}
				s, err := jsonbEditPath(a[0].S[i], a[1].A[i], a[2].S[i], mode)
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}
	}
	def("jsonb_set",
		sig(TJSONB, set(false), TJSONB, tTextArray, TJSONB),
		sig(TJSONB, set(true), TJSONB, tTextArray, TJSONB, TBool))
	insert := func(withFlag bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				mode := pathInsertBefore
				if withFlag && a[3].B[i] {
					mode = pathInsertAfter
				}
				s, err := jsonbEditPath(a[0].S[i], a[1].A[i], a[2].S[i], mode)
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}
	}
	def("jsonb_insert",
		sig(TJSONB, insert(false), TJSONB, tTextArray, TJSONB),
		sig(TJSONB, insert(true), TJSONB, tTextArray, TJSONB, TBool))
	for _, jb := range []bool{false, true} {
		jb := jb
		name, t := "json_strip_nulls", TJSON
		if jb {
			name, t = "jsonb_strip_nulls", TJSONB
		}
		def(name, sig(t, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				v, err := decodeJSON(a[0].S[i])
				if err != nil {
					return jsonSyntaxErr("json", a[0].S[i])
				}
				out.S[i] = jsonText(stripNulls(v), jb)
			}
			return nil
		}, t))
	}
}

// stripNulls removes object fields whose value is null, at every depth
// (array elements stay).
func stripNulls(v any) any {
	switch x := v.(type) {
	case *jsonObject:
		o := &jsonObject{}
		for k, key := range x.keys {
			if x.vals[k] == nil {
				continue
			}
			o.keys = append(o.keys, key)
			o.vals = append(o.vals, stripNulls(x.vals[k]))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for k, e := range x {
			out[k] = stripNulls(e)
		}
		return out
	}
	return v
}

// jsonbEditPath applies jsonb_set / jsonb_insert / #- to a jsonb text.
func jsonbEditPath(doc string, path *Array, newVal string, mode int) (string, error) {
	v, err := decodeJSON(doc)
	if err != nil {
		return "", jsonSyntaxErr("json", doc)
	}
	var nv any
	if mode != pathDelete {
		if nv, err = decodeJSON(newVal); err != nil {
			return "", jsonSyntaxErr("json", newVal)
		}
	}
	steps := make([]string, path.Items.N)
	for k := range steps {
		if path.Items.IsNull(k) {
			if mode == pathDelete {
				return "", errf(CodeNullValueNotAllowed, "path element at position %d is null", k+1)
			}
			return "", errf(CodeNullValueNotAllowed, "path element at position %d is null", k+1)
		}
		steps[k] = path.Items.S[k]
	}
	switch v.(type) {
	case *jsonObject, []any:
	default:
		if mode == pathDelete {
			return "", errf(CodeInvalidParameterValue, "cannot delete path in scalar")
		}
		return "", errf(CodeInvalidParameterValue, "cannot set path in scalar")
	}
	if len(steps) == 0 {
		return jsonText(v, true), nil
	}
	out, err := editPath(v, steps, 0, nv, mode)
	if err != nil {
		return "", err
	}
	return jsonText(out, true), nil
}

func pathIndex(s string, pos int) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, errf(CodeInvalidTextRepr, "path element at position %d is not an integer: \"%s\"", pos+1, s)
	}
	return n, nil
}

func editPath(v any, steps []string, level int, nv any, mode int) (any, error) {
	last := level == len(steps)-1
	creates := mode == pathCreate || mode == pathInsertBefore || mode == pathInsertAfter
	switch x := v.(type) {
	case *jsonObject:
		o := &jsonObject{keys: append([]string{}, x.keys...), vals: append([]any{}, x.vals...)}
		sortJSONB(o)
		for k, key := range o.keys {
			if key != steps[level] {
				continue
			}
			if !last {
				sub, err := editPath(o.vals[k], steps, level+1, nv, mode)
				if err != nil {
					return nil, err
				}
				o.vals[k] = sub
				return o, nil
			}
			switch mode {
			case pathDelete:
				o.keys = append(o.keys[:k], o.keys[k+1:]...)
				o.vals = append(o.vals[:k], o.vals[k+1:]...)
			case pathInsertBefore, pathInsertAfter:
				return nil, &Error{Code: CodeInvalidParameterValue, Message: "cannot replace existing key", Hint: "Try using the function jsonb_set to replace key value."}
			default:
				o.vals[k] = nv
			}
			return o, nil
		}
		if last && creates {
			o.keys = append(o.keys, steps[level])
			o.vals = append(o.vals, nv)
		}
		return o, nil
	case []any:
		idx, err := pathIndex(steps[level], level)
		if err != nil {
			return nil, err
		}
		n := int64(len(x))
		prepend := false
		if idx < 0 {
			if -idx > n {
				prepend = true
			} else {
				idx += n
			}
		}
		if idx > n {
			idx = n
		}
		if last && creates && (prepend || n == 0) {
			return append([]any{nv}, x...), nil
		}
		if prepend {
			return x, nil
		}
		out := make([]any, 0, len(x)+1)
		for k, e := range x {
			if int64(k) != idx {
				out = append(out, e)
				continue
			}
			if !last {
				sub, err := editPath(e, steps, level+1, nv, mode)
				if err != nil {
					return nil, err
				}
				out = append(out, sub)
				continue
			}
			switch mode {
			case pathDelete:
			case pathInsertBefore:
				out = append(out, nv, e)
			case pathInsertAfter:
				out = append(out, e, nv)
			default:
				out = append(out, nv)
			}
		}
		if last && creates && idx == n {
			out = append(out, nv)
		}
		return out, nil
	}
	return v, nil
}

// jsonbDeleteOp binds jsonb - text, jsonb - text[], jsonb - int and
// jsonb #- text[].
func (b *binder) jsonbDeleteOp(op string, l, r Expr) (Expr, error) {
	rt := r.Type()
	var err error
	mk := func(k kernel) Expr { return &opExpr{name: op, t: TJSONB, args: []Expr{l, r}, k: k, strict: true} }
	if op == "#-" {
		if r, err = b.coerce(r, tTextArray, castImplicit, ""); err != nil {
			return nil, err
		}
		return mk(func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s, err := jsonbEditPath(a[0].S[i], a[1].A[i], "", pathDelete)
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}), nil
	}
	switch {
	case rt.OID == OIDUnknown || rt.isString():
		if r, err = b.coerce(r, TText, castImplicit, ""); err != nil {
			return nil, err
		}
		return mk(func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				s, err := jsonbDeleteKeys(a[0].S[i], []string{a[1].S[i]})
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}), nil
	case rt.IsArray() && rt.Elem().isString():
		if r, err = b.coerce(r, tTextArray, castImplicit, ""); err != nil {
			return nil, err
		}
		return mk(func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				items := a[1].A[i].Items
				var keys []string
				for k := 0; k < items.N; k++ {
					if !items.IsNull(k) {
						keys = append(keys, items.S[k])
					}
				}
				s, err := jsonbDeleteKeys(a[0].S[i], keys)
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}), nil
	case rt.isInt():
		if r, err = b.coerce(r, TInt4, castImplicit, ""); err != nil {
			return nil, err
		}
		return mk(func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				v, err := decodeJSON(a[0].S[i])
				if err != nil {
					return jsonSyntaxErr("json", a[0].S[i])
				}
				switch x := v.(type) {
				case *jsonObject:
					return errf(CodeInvalidParameterValue, "cannot delete from object using integer index")
				case []any:
					k, n := a[1].I[i], int64(len(x))
					if k < 0 {
						k += n
					}
					if k >= 0 && k < n {
						x = append(append([]any{}, x[:k]...), x[k+1:]...)
					}
					out.S[i] = jsonText(x, true)
				default:
					return errf(CodeInvalidParameterValue, "cannot delete from scalar")
				}
			}
			return nil
		}), nil
	}
	return nil, opNotExist(op, l.Type(), rt)
}

// jsonbDeleteKeys removes keys from an object, or matching string
// elements from an array.
func jsonbDeleteKeys(doc string, keys []string) (string, error) {
	v, err := decodeJSON(doc)
	if err != nil {
		return "", jsonSyntaxErr("json", doc)
	}
	drop := func(s string) bool {
		for _, k := range keys {
			if k == s {
				return true
			}
		}
		return false
	}
	switch x := v.(type) {
	case *jsonObject:
		o := &jsonObject{}
		for k, key := range x.keys {
			if !drop(key) {
				o.keys = append(o.keys, key)
				o.vals = append(o.vals, x.vals[k])
			}
		}
		return jsonText(o, true), nil
	case []any:
		out := []any{}
		for _, e := range x {
			if s, ok := e.(string); ok && drop(s) {
				continue
			}
			out = append(out, e)
		}
		return jsonText(out, true), nil
	}
	return "", errf(CodeInvalidParameterValue, "cannot delete from scalar")
}

// jsonbExistsAnyAll binds jsonb ?| text[] and jsonb ?& text[]: whether
// any / all of the strings is a top-level key or string element.
func (b *binder) jsonbExistsAnyAll(op string, l, r Expr) (Expr, error) {
	r, err := b.coerce(r, tTextArray, castImplicit, "")
	if err != nil {
		return nil, err
	}
	all := op == "?&"
	return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			v, _ := decodeJSON(a[0].S[i])
			has := func(s string) bool {
				switch x := v.(type) {
				case *jsonObject:
					for _, k := range x.keys {
						if k == s {
							return true
						}
					}
				case []any:
					for _, e := range x {
						if es, ok := e.(string); ok && es == s {
							return true
						}
					}
				case string:
					return x == s
				}
				return false
			}
			items := a[1].A[i].Items
			res := all
			for k := 0; k < items.N; k++ {
				if items.IsNull(k) {
					continue
				}
				if h := has(items.S[k]); h != all {
					res = h
					break
				}
			}
			out.B[i] = res
		}
		return nil
	}}, nil
}
