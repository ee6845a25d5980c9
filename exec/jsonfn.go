package exec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// jsonValueOf converts row i of v to a decoded JSON value (to_json rules).
func jsonValueOf(v *Vec, i int, loc *time.Location) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.T.OID {
	case OIDJSON, OIDJSONB:
		if !validJSON(v.S[i]) {
			return v.S[i]
		}
		// embedded verbatim in json output, normalized in jsonb
		return jsonRaw(v.S[i])
	case OIDBool:
		return v.B[i]
	case OIDInt2, OIDInt4, OIDInt8, OIDOid, OIDFloat4, OIDFloat8, OIDNumeric:
		s := formatValue(v, i, loc)
		if s == "NaN" || strings.HasSuffix(s, "Infinity") {
			return s
		}
		return json.Number(s)
	case OIDTimestamp:
		return strings.Replace(formatValue(v, i, loc), " ", "T", 1)
	case OIDTimestamptz:
		// ISO 8601 with a full ±hh:mm offset, as PostgreSQL's JSON encoding
		s := strings.Replace(formatValue(v, i, loc), " ", "T", 1)
		if k := strings.LastIndexAny(s, "+-"); k > 0 && len(s)-k == 3 {
			s += ":00"
		}
		return s
	case OIDRecord:
		return jsonRecordValue(v, i, loc)
	}
	if v.T.IsArray() {
		a := v.A[i]
		out := make([]any, a.Items.N)
		for k := range out {
			out[k] = jsonValueOf(a.Items, k, loc)
		}
		return out
	}
	return formatValue(v, i, loc)
}

func jsonKernelBuild(object, jsonb bool) kernel {
	return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if object {
				o := &jsonObject{}
				for k := 0; k+1 < len(a); k += 2 {
					if a[k].IsNull(int(i)) {
						if jsonb {
							return errf(CodeInvalidParameterValue, "argument %d: key must not be null", k+1)
						}
						return &Error{Code: CodeInvalidParameterValue, Message: fmt.Sprintf("argument %d cannot be null", k+1), Hint: "Object keys should be text."}
					}
					o.keys = append(o.keys, formatValue(a[k], int(i), ec.loc))
					o.vals = append(o.vals, jsonValueOf(a[k+1], int(i), ec.loc))
				}
				out.S[i] = jsonBuildText(o, jsonb)
				continue
			}
			arr := make([]any, len(a))
			for k := range a {
				arr[k] = jsonValueOf(a[k], int(i), ec.loc)
			}
			out.S[i] = jsonBuildText(arr, jsonb)
		}
		return nil
	}
}

// jsonBuildText renders json_build_* output: jsonb normalized, json with
// PostgreSQL's json_build_object spacing ({"a" : 1, "b" : 2}).
func jsonBuildText(v any, jsonb bool) string {
	if jsonb {
		return jsonText(v, true)
	}
	var b bytes.Buffer
	writeJSONBuild(&b, v, true)
	return b.String()
}

func writeJSONBuild(b *bytes.Buffer, v any, top bool) {
	switch x := v.(type) {
	case *jsonObject:
		if !top {
			writeJSONCompact(b, x)
			return
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(" : ")
			writeJSONBuild(b, x.vals[i], false)
		}
		b.WriteByte('}')
	case []any:
		if !top {
			writeJSONArrayValue(b, x)
			return
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONBuild(b, e, false)
		}
		b.WriteByte(']')
	default:
		writeJSONCompact(b, v)
	}
}

// writeJSONArrayValue renders a SQL array converted to json ([1,2,3]).
func writeJSONArrayValue(b *bytes.Buffer, x []any) {
	b.WriteByte('[')
	for i, e := range x {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONCompact(b, e)
	}
	b.WriteByte(']')
}

func init() {
	for _, jb := range []bool{false, true} {
		jb := jb
		prefix, t := "json", TJSON
		if jb {
			prefix, t = "jsonb", TJSONB
		}
		defCustom(prefix+"_build_object", func(b *binder, args []Expr) (Expr, error) {
			if len(args)%2 != 0 {
				return nil, errf(CodeInvalidParameterValue, "argument list must have even number of elements")
			}
			for i := range args {
				if args[i].Type().OID == OIDUnknown {
					args[i], _ = b.coerce(args[i], TText, castImplicit, "")
				}
			}
			return &opExpr{name: prefix + "_build_object", t: t, args: args, k: jsonKernelBuild(true, jb)}, nil
		})
		defCustom(prefix+"_build_array", func(b *binder, args []Expr) (Expr, error) {
			for i := range args {
				if args[i].Type().OID == OIDUnknown {
					args[i], _ = b.coerce(args[i], TText, castImplicit, "")
				}
			}
			return &opExpr{name: prefix + "_build_array", t: t, args: args, k: jsonKernelBuild(false, jb)}, nil
		})
		defCustom("to_"+prefix, func(b *binder, args []Expr) (Expr, error) {
			if len(args) != 1 {
				return nil, noFunction("to_"+prefix, args)
			}
			if args[0].Type().OID == OIDUnknown {
				return nil, errf(CodeIndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
			}
			return &opExpr{name: "to_" + prefix, t: t, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
				for _, i := range sel {
					v := jsonValueOf(a[0], int(i), ec.loc)
					if arr, ok := v.([]any); ok && !jb {
						var bb bytes.Buffer
						writeJSONArrayValue(&bb, arr)
						out.S[i] = bb.String()
						continue
					}
					out.S[i] = jsonText(v, jb)
				}
				return nil
			}}, nil
		})
		def(prefix+"_typeof", sig(TText, kSS(func(s string) string {
			v, err := decodeJSON(s)
			if err != nil {
				return "unknown"
			}
			switch v.(type) {
			case *jsonObject:
				return "object"
			case []any:
				return "array"
			case string:
				return "string"
			case json.Number:
				return "number"
			case bool:
				return "boolean"
			}
			return "null"
		}), t))
		def(prefix+"_array_length", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				v, _ := decodeJSON(a[0].S[i])
				arr, ok := v.([]any)
				if !ok {
					return errf(CodeInvalidParameterValue, "cannot get array length of a non-array")
				}
				out.I[i] = int64(len(arr))
			}
			return nil
		}, t))
	}
}

// jsonGet applies one -> step.
func jsonGet(v any, key *Vec, i int) (any, bool) {
	switch x := v.(type) {
	case *jsonObject:
		if key.T.Kind() != KStr {
			return nil, false
		}
		found, ok := any(nil), false
		for k, name := range x.keys {
			if name == key.S[i] {
				found, ok = x.vals[k], true
			}
		}
		return found, ok
	case []any:
		if key.T.Kind() != KInt {
			return nil, false
		}
		n := key.I[i]
		if n < 0 {
			n += int64(len(x))
		}
		if n < 0 || n >= int64(len(x)) {
			return nil, false
		}
		return x[n], true
	}
	return nil, false
}

func jsonScalarText(v any, jsonb bool) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case string:
		return x, true
	case json.Number:
		if jsonb {
			d, err := parseNumeric(string(x))
			if err == nil {
				return formatNumeric(&d), true
			}
		}
		return string(x), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return jsonText(v, jsonb), true
}

func (b *binder) jsonOp(op string, l, r Expr) (Expr, error) {
	lt := l.Type()
	jb := lt.OID == OIDJSONB
	var err error
	switch op {
	case "->", "->>":
		rt := r.Type()
		if rt.OID == OIDUnknown {
			r, err = b.coerce(r, TText, castImplicit, "")
		} else if rt.isInt() {
			r, err = b.coerce(r, TInt4, castImplicit, "")
		} else if rt.isString() {
			r, err = b.coerce(r, TText, castImplicit, "")
		} else {
			return nil, opNotExist(op, lt, rt)
		}
		if err != nil {
			return nil, err
		}
		t := lt
		if op == "->>" {
			t = TText
		}
		return &opExpr{name: op, t: t, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if !jb {
					raw, ok, err := jsonGetRaw(a[0].S[i], a[1], int(i))
					if err != nil {
						return err
					}
					if !ok {
						out.SetNull(int(i))
						continue
					}
					setRawJSON(out, int(i), raw, op == "->>")
					continue
				}
				v, err := decodeJSON(a[0].S[i])
				if err != nil {
					return jsonSyntaxErr("json", a[0].S[i])
				}
				got, ok := jsonGet(v, a[1], int(i))
				if !ok {
					if _, isObj := v.(*jsonObject); !isObj && a[1].T.Kind() == KInt {
						if _, isArr := v.([]any); !isArr && (a[1].I[i] == 0 || a[1].I[i] == -1) {
							got, ok = v, true
						}
					}
				}
				if !ok {
					out.SetNull(int(i))
					continue
				}
				if op == "->>" {
					s, ok := jsonScalarText(got, jb)
					if !ok {
						out.SetNull(int(i))
					} else {
						out.S[i] = s
					}
					continue
				}
				out.S[i] = jsonText(got, jb)
			}
			return nil
		}}, nil
	case "#>", "#>>":
		if r, err = b.coerce(r, Type{1009, -1}, castImplicit, ""); err != nil {
			return nil, err
		}
		t := lt
		if op == "#>>" {
			t = TText
		}
		return &opExpr{name: op, t: t, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if !jb {
					// json keeps the selected value's text verbatim
					raw, ok, err := jsonPathRaw(a[0].S[i], a[1].A[i].Items)
					if err != nil {
						return err
					}
					if !ok {
						out.SetNull(int(i))
						continue
					}
					setRawJSON(out, int(i), raw, op == "#>>")
					continue
				}
				v, err := decodeJSON(a[0].S[i])
				if err != nil {
					return jsonSyntaxErr("json", a[0].S[i])
				}
				path := a[1].A[i].Items
				ok := true
				for k := 0; k < path.N && ok; k++ {
					key := path
					if _, isArr := v.([]any); isArr {
						n, perr := strconv.ParseInt(path.S[k], 10, 64)
						if perr != nil {
							ok = false
							break
						}
						kv := NewVec(TInt4, 1)
						kv.I[0] = n
						v, ok = jsonGet(v, kv, 0)
						continue
					}
					kv := NewVec(TText, 1)
					kv.S[0] = key.S[k]
					v, ok = jsonGet(v, kv, 0)
				}
				if !ok {
					out.SetNull(int(i))
					continue
				}
				if op == "#>>" {
					s, ok := jsonScalarText(v, jb)
					if !ok {
						out.SetNull(int(i))
					} else {
						out.S[i] = s
					}
					continue
				}
				out.S[i] = jsonText(v, jb)
			}
			return nil
		}}, nil
	case "?":
		if !jb {
			return nil, opNotExist(op, lt, r.Type())
		}
		if r, err = b.coerce(r, TText, castImplicit, ""); err != nil {
			return nil, err
		}
		return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				v, _ := decodeJSON(a[0].S[i])
				switch x := v.(type) {
				case *jsonObject:
					for _, k := range x.keys {
						if k == a[1].S[i] {
							out.B[i] = true
						}
					}
				case []any:
					for _, e := range x {
						if s, ok := e.(string); ok && s == a[1].S[i] {
							out.B[i] = true
						}
					}
				case string:
					out.B[i] = x == a[1].S[i]
				}
			}
			return nil
		}}, nil
	case "@>", "<@":
		if !jb {
			return nil, opNotExist(op, lt, r.Type())
		}
		if r, err = b.coerce(r, TJSONB, castImplicit, ""); err != nil {
			return nil, err
		}
		return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				x, _ := decodeJSON(a[0].S[i])
				y, _ := decodeJSON(a[1].S[i])
				if op == "<@" {
					x, y = y, x
				}
				out.B[i] = jsonContains(x, y, true)
			}
			return nil
		}}, nil
	case "?|", "?&":
		if !jb {
			return nil, opNotExist(op, lt, r.Type())
		}
		return b.jsonbExistsAnyAll(op, l, r)
	}
	return nil, unsupported("json operator %s is not supported", op)
}

// jsonContains is jsonb @> (top: a scalar array contains a scalar).
func jsonContains(x, y any, top bool) bool {
	switch yv := y.(type) {
	case *jsonObject:
		xo, ok := x.(*jsonObject)
		if !ok {
			return false
		}
		for k, key := range yv.keys {
			found := false
			for j, xk := range xo.keys {
				if xk == key && jsonContains(xo.vals[j], yv.vals[k], false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	case []any:
		xa, ok := x.([]any)
		if !ok {
			return false
		}
		for _, e := range yv {
			found := false
			for _, xe := range xa {
				if jsonContains(xe, e, false) {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if xa, ok := x.([]any); ok && top {
		for _, xe := range xa {
			if jsonEqual(xe, y) {
				return true
			}
		}
		return false
	}
	return jsonEqual(x, y)
}

// jsonEqual is jsonb equality of decoded values (numbers by value).
func jsonEqual(x, y any) bool { return cmpJSONBValue(x, y) == 0 }

func jsonbConcatKernel(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
	for _, i := range sel {
		x, _ := decodeJSON(a[0].S[i])
		y, _ := decodeJSON(a[1].S[i])
		xo, ok1 := x.(*jsonObject)
		yo, ok2 := y.(*jsonObject)
		if ok1 && ok2 {
			m := &jsonObject{keys: append(append([]string{}, xo.keys...), yo.keys...), vals: append(append([]any{}, xo.vals...), yo.vals...)}
			out.S[i] = jsonText(m, true)
			continue
		}
		xa, ok1 := x.([]any)
		if !ok1 {
			xa = []any{x}
		}
		ya, ok2 := y.([]any)
		if !ok2 {
			ya = []any{y}
		}
		out.S[i] = jsonText(append(append([]any{}, xa...), ya...), true)
	}
	return nil
}

// jsonAggAcc is json_agg / jsonb_agg.
type jsonAggAcc struct {
	jsonb bool
	// structured: array or record inputs, which json_agg separates with
	// ", \n " as PostgreSQL does
	structured bool
	vals       [][]any
	has        []bool
	// size: each group's value so far, estimated (json_agg_limit.go)
	size []int
	t    Type
}

func jsonAgg(b *binder, args []Expr, jsonb bool) (Type, func() accum, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, nil, noFunction("json_agg", args)
	}
	if args[0].Type().OID == OIDUnknown {
		args[0], _ = b.coerce(args[0], TText, castImplicit, "")
	}
	t := TJSON
	if jsonb {
		t = TJSONB
	}
	structured := args[0].Type().IsArray() || args[0].Type().OID == OIDRecord
	return t, func() accum { return &jsonAggAcc{jsonb: jsonb, t: t, structured: structured} }, args, nil
}

func (j *jsonAggAcc) update(ec *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	n := ng
	j.vals, j.has, j.size = growTo(j.vals, n), growTo(j.has, n), growTo(j.size, n)
	loc := time.UTC
	if ec != nil && ec.loc != nil {
		loc = ec.loc
	}
	for k, r := range rows {
		g := gids[k]
		add := jsonAggBytes(args[0], int(r))
		if err := growJSONAgg(ec, j.jsonb, false, j.size[g], add); err != nil {
			return err
		}
		j.size[g] += add
		j.has[g] = true
		j.vals[g] = append(j.vals[g], jsonValueOf(args[0], int(r), loc))
	}
	return nil
}

func (j *jsonAggAcc) result(n int) (*Vec, error) {
	j.vals, j.has = growTo(j.vals, n), growTo(j.has, n)
	out := NewVec(j.t, n)
	for g := 0; g < n; g++ {
		if !j.has[g] {
			out.SetNull(g)
			continue
		}
		if j.jsonb {
			out.S[g] = jsonText(j.vals[g], true)
			continue
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i, v := range j.vals[g] {
			if i > 0 {
				b.WriteString(", ")
				if j.structured && v != nil {
					b.WriteString("\n ")
				}
			}
			writeJSONCompact(&b, v)
		}
		b.WriteByte(']')
		out.S[g] = b.String()
	}
	return out, nil
}

// jsonGetRaw extracts a member of json text verbatim (json keeps the
// input's formatting).
func jsonGetRaw(s string, key *Vec, i int) (string, bool, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	tok, err := dec.Token()
	if err != nil {
		return "", false, jsonSyntaxErr("json", s)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return "", false, nil
	}
	switch d {
	case '{':
		if key.T.Kind() != KStr {
			return "", false, nil
		}
		found, have := "", false
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return "", false, jsonSyntaxErr("json", s)
			}
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return "", false, jsonSyntaxErr("json", s)
			}
			if k, _ := kt.(string); k == key.S[i] {
				found, have = string(raw), true
			}
		}
		return found, have, nil
	case '[':
		if key.T.Kind() != KInt {
			return "", false, nil
		}
		var items []string
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return "", false, jsonSyntaxErr("json", s)
			}
			items = append(items, string(raw))
		}
		n := key.I[i]
		if n < 0 {
			n += int64(len(items))
		}
		if n < 0 || n >= int64(len(items)) {
			return "", false, nil
		}
		return items[n], true, nil
	}
	return "", false, nil
}

// jsonRawItems returns the elements of a json array text verbatim.
func jsonRawItems(s string) ([]string, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	tok, err := dec.Token()
	if err != nil {
		return nil, jsonSyntaxErr("json", s)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, errf(CodeInvalidParameterValue, "cannot extract elements from a scalar")
	}
	var out []string
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonSyntaxErr("json", s)
		}
		out = append(out, string(raw))
	}
	return out, nil
}

// jsonPathRaw follows a #> path through json text, returning the
// selected value's text as written.
func jsonPathRaw(raw string, path *Vec) (string, bool, error) {
	for k := 0; k < path.N; k++ {
		if path.IsNull(k) {
			return "", false, nil
		}
		var kv *Vec
		if strings.HasPrefix(strings.TrimSpace(raw), "[") {
			n, err := strconv.ParseInt(path.S[k], 10, 32)
			if err != nil {
				return "", false, nil
			}
			kv = NewVec(TInt4, 1)
			kv.I[0] = n
		} else {
			kv = NewVec(TText, 1)
			kv.S[0] = path.S[k]
		}
		next, ok, err := jsonGetRaw(raw, kv, 0)
		if err != nil || !ok {
			return "", false, err
		}
		raw = next
	}
	return raw, true, nil
}

// setRawJSON stores a json value selected by -> or #> as its text,
// verbatim; asText (->>, #>>) unquotes a string and makes null NULL.
func setRawJSON(out *Vec, i int, raw string, asText bool) {
	if asText {
		v, _ := decodeJSON(raw)
		if v == nil {
			out.SetNull(i)
			return
		}
		if s, isStr := v.(string); isStr {
			out.S[i] = s
			return
		}
	}
	out.S[i] = raw
}
