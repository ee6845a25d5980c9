package exec

import (
	"math"
	"math/rand/v2"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

func randFloat() float64 { return rand.Float64() }

// arrayExpr is ARRAY[a, b, ...].
type arrayExpr struct {
	t     Type
	items []Expr
}

func (a *arrayExpr) Type() Type { return a.t }
func (a *arrayExpr) String() string {
	parts := make([]string, len(a.items))
	for i, x := range a.items {
		parts[i] = x.String()
	}
	return "ARRAY[" + strings.Join(parts, ",") + "]"
}
func (a *arrayExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	vals := make([]*Vec, len(a.items))
	for i, x := range a.items {
		v, err := x.Eval(ec, b, sel)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	out := NewVec(a.t, b.N)
	forEach(b.N, sel, func(i int) {
		items := NewVec(a.t.Elem(), len(vals))
		for k, v := range vals {
			items.copyRow(k, v, i)
		}
		out.A[i] = &Array{Elem: a.t.Elem(), Items: items}
	})
	return out, nil
}

func (b *binder) bindArrayExpr(ae *q.A_ArrayExpr, sc *scope, want Type) (Expr, error) {
	items, err := b.bindList(ae.Elements, sc)
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if it.Type().IsArray() {
			return nil, unsupported("multidimensional arrays are not supported")
		}
	}
	var et Type
	if want.OID != 0 {
		et = want.Elem()
		for i := range items {
			if items[i], err = b.coerce(items[i], et, castExplicit, ""); err != nil {
				return nil, err
			}
		}
	} else {
		if len(items) == 0 {
			return nil, errf(CodeIndeterminateDatatype, "cannot determine type of empty array")
		}
		if et, err = b.commonTypeCoerce(items, "ARRAY"); err != nil {
			return nil, err
		}
	}
	at, ok := ArrayOf(et)
	if !ok {
		return nil, unsupported("arrays of %s are not supported", et)
	}
	if et.OID == OIDRecord {
		at.Mod = -1 // record[]: elements keep their own shape
	}
	return &arrayExpr{t: at, items: items}, nil
}

// bindIndirection handles arr[i] (slices are not supported).
func (b *binder) bindIndirection(x *q.A_Indirection, sc *scope) (Expr, error) {
	e, err := b.bindExpr(x.Arg, sc)
	if err != nil {
		return nil, err
	}
	for _, ind := range x.Indirection {
		if s := ind.GetString_(); s != nil {
			if e, err = selectField(e, s.Sval); err != nil {
				return nil, err
			}
			continue
		}
		idx := ind.GetAIndices()
		if idx == nil {
			return nil, unsupported("field selection is not supported")
		}
		if idx.IsSlice {
			if len(x.Indirection) > 1 || e.Type().OID == OIDVector || !e.Type().IsArray() {
				return nil, unsupported("array slices are supported on one-dimensional arrays with a single subscript")
			}
			if e, err = b.arraySlice(e, idx, sc); err != nil {
				return nil, err
			}
			continue
		}
		if e.Type().OID == TName.OID {
			if e, err = b.nameSubscript(e, idx, sc); err != nil {
				return nil, err
			}
			continue
		}
		if !e.Type().IsArray() {
			return nil, errf(CodeDatatypeMismatch, "cannot subscript type %s because it does not support subscripting", e.Type())
		}
		sub, err := b.bindExpr(idx.Uidx, sc)
		if err != nil {
			return nil, err
		}
		if sub, err = b.coerce(sub, TInt4, castImplicit, "array subscript"); err != nil {
			return nil, err
		}
		e = &opExpr{name: "subscript", t: e.Type().Elem(), args: []Expr{e, sub}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				arr := a[0].A[i]
				k := a[1].I[i] - 1
				if arr.vector {
					k++
				}
				if k < 0 || k >= int64(arr.Items.N) {
					out.SetNull(int(i))
					continue
				}
				out.copyRow(int(i), arr.Items, int(k))
			}
			return nil
		}}
	}
	return e, nil
}

// nameSubscript is name[i]: PostgreSQL stores a name as a fixed array of
// 64 bytes subscripted from 0, so name[i] is the "char" at byte i, empty
// past the end of the string, NULL outside the array (pg_dump tests
// typname[0] = '_' to find array types).
func (b *binder) nameSubscript(e Expr, idx *q.A_Indices, sc *scope) (Expr, error) {
	sub, err := b.bindExpr(idx.Uidx, sc)
	if err != nil {
		return nil, err
	}
	if sub, err = b.coerce(sub, TInt4, castImplicit, "array subscript"); err != nil {
		return nil, err
	}
	return &opExpr{name: "subscript", t: TChar, args: []Expr{e, sub}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, k := a[0].S[i], a[1].I[i]
			switch {
			case k < 0 || k >= 64:
				out.SetNull(int(i))
			case k >= int64(len(s)):
				out.S[i] = ""
			default:
				out.S[i] = s[k : k+1]
			}
		}
		return nil
	}}, nil
}

func (b *binder) arrayConcat(l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	var at Type
	switch {
	case lt.IsArray() && rt.IsArray():
		t, ok := comparableType(lt, rt)
		if !ok {
			return nil, opNotExist("||", lt, rt)
		}
		at = t
	case lt.IsArray():
		at = lt
	default:
		at = rt
	}
	var err error
	toArr := func(e Expr) (Expr, error) {
		if e.Type().IsArray() {
			return b.coerce(e, at, castImplicit, "")
		}
		x, err := b.coerce(e, at.Elem(), castImplicit, "")
		if err != nil {
			return nil, err
		}
		return &arrayExpr{t: at, items: []Expr{x}}, nil
	}
	if l, err = toArr(l); err != nil {
		return nil, err
	}
	if r, err = toArr(r); err != nil {
		return nil, err
	}
	return &opExpr{name: "||", t: at, args: []Expr{l, r}, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			items := NewVec(at.Elem(), 0)
			for _, v := range a {
				if !v.IsNull(int(i)) {
					items.appendVec(v.A[i].Items, nil)
				}
			}
			if a[0].IsNull(int(i)) && a[1].IsNull(int(i)) {
				out.SetNull(int(i))
				continue
			}
			out.A[i] = &Array{Elem: at.Elem(), Items: items}
		}
		return nil
	}}, nil
}

// arrayContains is @>, <@ and && on arrays.
func (b *binder) arrayContains(op string, l, r Expr) (Expr, error) {
	t, ok := comparableType(l.Type(), r.Type())
	if !ok {
		return nil, opNotExist(op, l.Type(), r.Type())
	}
	l, _ = b.coerce(l, t, castImplicit, "")
	r, _ = b.coerce(r, t, castImplicit, "")
	return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			x, y := a[0].A[i], a[1].A[i]
			if op == "<@" {
				x, y = y, x
			}
			has := func(arr *Array, v *Vec, k int) bool {
				for j := 0; j < arr.Items.N; j++ {
					if !arr.Items.IsNull(j) && cmpRows(arr.Items, j, v, k) == 0 {
						return true
					}
				}
				return false
			}
			res := op != "&&"
			for k := 0; k < y.Items.N; k++ {
				if op == "&&" {
					if !y.Items.IsNull(k) && has(x, y.Items, k) {
						res = true
						break
					}
					continue
				}
				if y.Items.IsNull(k) || !has(x, y.Items, k) {
					res = false
					break
				}
			}
			out.B[i] = res
		}
		return nil
	}}, nil
}

// anyAll is x op ANY(array) / ALL(array).
func (b *binder) anyAll(op string, l, r Expr, all bool) (Expr, error) {
	c, ok := cmpOps[op]
	if !ok {
		return b.anyAllGeneric(op, l, r, all)
	}
	rt := r.Type()
	if rt.OID == OIDUnknown {
		at, ok := ArrayOf(l.Type())
		if !ok {
			return nil, unsupported("ANY/ALL over %s is not supported", l.Type())
		}
		var err error
		if r, err = b.coerce(r, at, castImplicit, ""); err != nil {
			return nil, err
		}
		rt = at
	}
	if !rt.IsArray() {
		return nil, errf(CodeDatatypeMismatch, "op ANY/ALL (array) requires array on right side")
	}
	et, ok := comparableType(l.Type(), rt.Elem())
	if l.Type().OID == OIDUnknown {
		et, ok = rt.Elem(), true
	}
	if !ok {
		return nil, opNotExist(op, l.Type(), rt.Elem())
	}
	var err error
	if l, err = b.coerce(l, et, castImplicit, ""); err != nil {
		return nil, err
	}
	at, _ := ArrayOf(et)
	if r, err = b.coerce(r, at, castImplicit, ""); err != nil {
		return nil, err
	}
	return &opExpr{name: op + "ANY", t: TBool, args: []Expr{l, r}, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[1].IsNull(int(i)) {
				out.SetNull(int(i))
				continue
			}
			arr := a[1].A[i]
			if arr.Items.N == 0 {
				out.B[i] = all
				continue
			}
			if a[0].IsNull(int(i)) {
				out.SetNull(int(i))
				continue
			}
			res, sawNull := all, false
			for k := 0; k < arr.Items.N; k++ {
				if arr.Items.IsNull(k) {
					sawNull = true
					continue
				}
				h := c.holds(cmpRows(a[0], int(i), arr.Items, k))
				if h && !all {
					res = true
					break
				}
				if !h && all {
					res = false
					sawNull = false
					break
				}
			}
			if sawNull && res == all {
				out.SetNull(int(i))
			} else {
				out.B[i] = res
			}
		}
		return nil
	}}, nil
}

func init() {
	arrLen := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			n := a[0].A[i].Items.N
			if n == 0 || (len(a) > 1 && a[1].I[i] != 1) {
				out.SetNull(int(i))
				continue
			}
			out.I[i] = int64(n)
		}
		return nil
	}
	defCustom("array_length", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_length", args)
		}
		d, err := b.coerce(args[1], TInt4, castImplicit, "")
		if err != nil {
			return nil, err
		}
		return &opExpr{name: "array_length", t: TInt4, args: []Expr{args[0], d}, k: arrLen, strict: true}, nil
	})
	defCustom("array_upper", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_upper", args)
		}
		d, _ := b.coerce(args[1], TInt4, castImplicit, "")
		return &opExpr{name: "array_upper", t: TInt4, args: []Expr{args[0], d}, k: arrLen, strict: true}, nil
	})
	defCustom("array_lower", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_lower", args)
		}
		d, _ := b.coerce(args[1], TInt4, castImplicit, "")
		return &opExpr{name: "array_lower", t: TInt4, args: []Expr{args[0], d}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].A[i].Items.N == 0 || a[1].I[i] != 1 {
					out.SetNull(int(i))
				} else {
					out.I[i] = 1
				}
			}
			return nil
		}}, nil
	})
	defCustom("cardinality", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 || !args[0].Type().IsArray() {
			return nil, noFunction("cardinality", args)
		}
		return &opExpr{name: "cardinality", t: TInt4, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.I[i] = int64(a[0].A[i].Items.N)
			}
			return nil
		}}, nil
	})
	defCustom("array_append", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 {
			return nil, noFunction("array_append", args)
		}
		return b.arrayConcat(args[0], args[1])
	})
	defCustom("array_prepend", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 {
			return nil, noFunction("array_prepend", args)
		}
		return b.arrayConcat(args[0], args[1])
	})
	defCustom("array_cat", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 {
			return nil, noFunction("array_cat", args)
		}
		return b.arrayConcat(args[0], args[1])
	})
	defCustom("array_position", func(b *binder, args []Expr) (Expr, error) {
		if (len(args) != 2 && len(args) != 3) || !args[0].Type().IsArray() {
			return nil, noFunction("array_position", args)
		}
		x, err := b.coerce(args[1], args[0].Type().Elem(), castImplicit, "")
		if err != nil {
			return nil, err
		}
		bound := []Expr{args[0], x}
		if len(args) == 3 {
			st, err := b.coerce(args[2], TInt4, castImplicit, "")
			if err != nil {
				return nil, noFunction("array_position", args)
			}
			bound = append(bound, st)
		}
		return &opExpr{name: "array_position", t: TInt4, args: bound, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				start := 0
				if len(a) > 2 {
					if a[2].IsNull(int(i)) {
						return errf(CodeNullValueNotAllowed, "initial position must not be null")
					}
					start = int(max(a[2].I[i]-1, 0))
				}
				arr := a[0].A[i]
				found := -1
				for k := start; k < arr.Items.N; k++ {
					an, xn := arr.Items.IsNull(k), a[1].IsNull(int(i))
					if (an && xn) || (!an && !xn && cmpRows(arr.Items, k, a[1], int(i)) == 0) {
						found = k
						break
					}
				}
				if found < 0 {
					out.SetNull(int(i))
				} else {
					out.I[i] = int64(found + 1)
				}
			}
			return nil
		}}, nil
	})
	defCustom("array_to_string", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 2 || len(args) > 3 || !args[0].Type().IsArray() {
			return nil, noFunction("array_to_string", args)
		}
		for i := 1; i < len(args); i++ {
			args[i], _ = b.coerce(args[i], TText, castImplicit, "")
		}
		return &opExpr{name: "array_to_string", t: TText, args: args, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) || a[1].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				arr := a[0].A[i]
				var parts []string
				for k := 0; k < arr.Items.N; k++ {
					if arr.Items.IsNull(k) {
						if len(a) == 3 && !a[2].IsNull(int(i)) {
							parts = append(parts, a[2].S[i])
						}
						continue
					}
					parts = append(parts, formatValueStyle(arr.Items, k, ec.loc, ec.dateStyle()))
				}
				out.S[i] = strings.Join(parts, a[1].S[i])
			}
			return nil
		}}, nil
	})
	def("string_to_array", fnSig{args: []Type{TText, TText}, ret: Type{1009, -1}, nonStrict: true, k: stringToArray},
		fnSig{args: []Type{TText, TText, TText}, ret: Type{1009, -1}, nonStrict: true, k: stringToArray})
}

// stringToArray is string_to_array(s, delim [, null_string]): a NULL
// delimiter splits into characters; fields equal to null_string are NULL.
func stringToArray(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
	for _, i := range sel {
		if a[0].IsNull(int(i)) {
			out.SetNull(int(i))
			continue
		}
		s := a[0].S[i]
		var parts []string
		switch {
		case s == "":
		case a[1].IsNull(int(i)):
			for _, r := range s {
				parts = append(parts, string(r))
			}
		case a[1].S[i] == "":
			parts = []string{s}
		default:
			parts = strings.Split(s, a[1].S[i])
		}
		items := NewVec(TText, len(parts))
		copy(items.S, parts)
		if len(a) == 3 && !a[2].IsNull(int(i)) {
			for k, p := range parts {
				if p == a[2].S[i] {
					items.SetNull(k)
				}
			}
		}
		out.A[i] = &Array{Elem: TText, Items: items}
	}
	return nil
}

func textArray(items []string, nulls []bool) *Array {
	v := NewVec(TText, len(items))
	copy(v.S, items)
	for i, n := range nulls {
		if n {
			v.SetNull(i)
		}
	}
	return &Array{Elem: TText, Items: v}
}

func init() {
	textArr := Type{1009, -1}
	regexpMatch := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			flags := ""
			if len(a) > 2 {
				flags = a[2].S[i]
			}
			re, global, err := compileARE(a[1].S[i], flags)
			if err != nil {
				return err
			}
			if global {
				return &Error{Code: CodeInvalidParameterValue, Message: "regexp_match() does not support the \"global\" option",
					Hint: "Use the regexp_matches function instead."}
			}
			m := re.FindStringSubmatchIndex(a[0].S[i])
			if m == nil {
				out.SetNull(int(i))
				continue
			}
			var items []string
			var nulls []bool
			if len(m) == 2 {
				items, nulls = []string{a[0].S[i][m[0]:m[1]]}, []bool{false}
			}
			for k := 2; k < len(m); k += 2 {
				if m[k] < 0 {
					items, nulls = append(items, ""), append(nulls, true)
					continue
				}
				items, nulls = append(items, a[0].S[i][m[k]:m[k+1]]), append(nulls, false)
			}
			out.A[i] = textArray(items, nulls)
		}
		return nil
	}
	def("regexp_match", sig(textArr, regexpMatch, TText, TText), sig(textArr, regexpMatch, TText, TText, TText))
	def("regexp_split_to_array", sig(textArr, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			re, _, err := compileARE(a[1].S[i], "")
			if err != nil {
				return err
			}
			s := a[0].S[i]
			var parts []string
			if a[1].S[i] == "" {
				for _, r := range s {
					parts = append(parts, string(r))
				}
			} else {
				parts = re.Split(s, -1)
			}
			out.A[i] = textArray(parts, nil)
		}
		return nil
	}, TText, TText))
	defCustom("array_remove", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_remove", args)
		}
		x, err := b.coerce(args[1], args[0].Type().Elem(), castImplicit, "")
		if err != nil {
			return nil, err
		}
		at := args[0].Type()
		return &opExpr{name: "array_remove", t: at, args: []Expr{args[0], x}, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				arr := a[0].A[i]
				var keep []int32
				for k := 0; k < arr.Items.N; k++ {
					en, xn := arr.Items.IsNull(k), a[1].IsNull(int(i))
					same := (en && xn) || (!en && !xn && cmpRows(arr.Items, k, a[1], int(i)) == 0)
					if !same {
						keep = append(keep, int32(k))
					}
				}
				if keep == nil {
					keep = []int32{}
				}
				out.A[i] = &Array{Elem: at.Elem(), Items: arr.Items.Gather(keep)}
			}
			return nil
		}}, nil
	})
}

// anyAllGeneric is x op ANY/ALL (array) for a boolean operator other
// than a comparison (LIKE, ILIKE, regex matches, ...): op is bound once
// over (x, element) and evaluated over each row's elements.
func (b *binder) anyAllGeneric(op string, l, r Expr, all bool) (Expr, error) {
	rt := r.Type()
	var err error
	if rt.OID == OIDUnknown {
		lt := l.Type()
		if lt.OID == OIDUnknown {
			lt = TText
		}
		at, ok := ArrayOf(lt)
		if !ok {
			return nil, unsupported("ANY/ALL over %s is not supported", l.Type())
		}
		if r, err = b.coerce(r, at, castImplicit, ""); err != nil {
			return nil, err
		}
		rt = at
	}
	if !rt.IsArray() {
		return nil, errf(CodeDatatypeMismatch, "op ANY/ALL (array) requires array on right side")
	}
	lt := l.Type()
	if lt.OID == OIDUnknown {
		if l, err = b.coerce(l, rt.Elem(), castImplicit, ""); err != nil {
			return nil, err
		}
		lt = l.Type()
	}
	inner, err := b.binaryOp(op, &colRef{idx: 0, t: lt}, &colRef{idx: 1, t: rt.Elem()})
	if err != nil {
		return nil, err
	}
	if inner.Type().OID != OIDBool {
		return nil, errf(CodeWrongObjectType, "op ANY/ALL (array) requires operator to yield boolean")
	}
	return &opExpr{name: op + "ANY", t: TBool, args: []Expr{l, r}, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[1].IsNull(int(i)) {
				out.SetNull(int(i))
				continue
			}
			items := a[1].A[i].Items
			if items.N == 0 {
				out.B[i] = all
				continue
			}
			rep := make([]int32, items.N)
			for k := range rep {
				rep[k] = i
			}
			v, err := inner.Eval(ec, &Batch{N: items.N, Cols: []*Vec{a[0].Gather(rep), items}}, nil)
			if err != nil {
				return err
			}
			res, sawNull := all, false
			for k := 0; k < items.N; k++ {
				if v.IsNull(k) {
					sawNull = true
					continue
				}
				if v.B[k] != all {
					res = v.B[k]
					sawNull = false
					break
				}
			}
			if sawNull {
				out.SetNull(int(i))
			} else {
				out.B[i] = res
			}
		}
		return nil
	}}, nil
}

// arraySlice binds a[lo:hi] on a one-dimensional array (lower bound 1):
// omitted bounds are the array's own, bounds are clamped to the array,
// an empty range gives '{}', a NULL bound gives NULL.
func (b *binder) arraySlice(arr Expr, idx *q.A_Indices, sc *scope) (Expr, error) {
	bound := func(n *q.Node, dflt int64) (Expr, error) {
		if n == nil {
			v := NewVec(TInt4, 1)
			v.I[0] = dflt
			return newConst(v), nil
		}
		e, err := b.bindExpr(n, sc)
		if err != nil {
			return nil, err
		}
		return b.coerce(e, TInt4, castImplicit, "array subscript")
	}
	lo, err := bound(idx.Lidx, math.MinInt32)
	if err != nil {
		return nil, err
	}
	hi, err := bound(idx.Uidx, math.MaxInt32)
	if err != nil {
		return nil, err
	}
	t := arr.Type()
	return &opExpr{name: "slice", t: t, args: []Expr{arr, lo, hi}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			src := a[0].A[i]
			l, h := max(a[1].I[i], 1), min(a[2].I[i], int64(src.Items.N))
			var rows []int32
			for k := l; k <= h; k++ {
				rows = append(rows, int32(k-1))
			}
			items := src.Items.Gather(rows)
			if rows == nil {
				items = NewVec(src.Items.T, 0)
			}
			out.A[i] = &Array{Elem: src.Elem, Items: items}
		}
		return nil
	}}, nil
}

func init() {
	// array_positions(a, x): every 1-based position of x (IS NOT DISTINCT
	// FROM), '{}' when none, NULL for a NULL array
	defCustom("array_positions", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_positions", args)
		}
		x, err := b.coerce(args[1], args[0].Type().Elem(), castImplicit, "")
		if err != nil {
			return nil, err
		}
		t, _ := ArrayOf(TInt4)
		return &opExpr{name: "array_positions", t: t, args: []Expr{args[0], x}, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				arr := a[0].A[i]
				var pos []int64
				for k := 0; k < arr.Items.N; k++ {
					an, xn := arr.Items.IsNull(k), a[1].IsNull(int(i))
					if (an && xn) || (!an && !xn && cmpRows(arr.Items, k, a[1], int(i)) == 0) {
						pos = append(pos, int64(k+1))
					}
				}
				items := NewVec(TInt4, len(pos))
				copy(items.I, pos)
				out.A[i] = &Array{Elem: TInt4, Items: items}
			}
			return nil
		}}, nil
	})
}
