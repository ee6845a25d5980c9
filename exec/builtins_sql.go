package exec

import (
	"bytes"
	"strings"
	"time"
	"unicode/utf8"
)

// More built-ins ORMs, BI tools and migration scripts call:
// array_replace, array_to_json, overlay, justify_interval, jsonb_pretty,
// json_object_agg / jsonb_object_agg.

func init() {
	defCustom("array_replace", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 3 {
			return nil, noFunction("array_replace", args)
		}
		at := args[0].Type()
		if at.OID == OIDUnknown {
			return nil, noFunction("array_replace", args)
		}
		if !at.IsArray() {
			return nil, noFunction("array_replace", args)
		}
		var err error
		for k := 1; k < 3; k++ {
			if args[k], err = b.coerce(args[k], at.Elem(), castImplicit, ""); err != nil {
				return nil, noFunction("array_replace", args)
			}
		}
		return &opExpr{name: "array_replace", t: at, args: args, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				src := a[0].A[i]
				items := NewVec(src.Items.T, src.Items.N)
				for k := 0; k < src.Items.N; k++ {
					// NOT DISTINCT FROM: a NULL search value replaces NULLs
					match := src.Items.IsNull(k) && a[1].IsNull(int(i)) ||
						!src.Items.IsNull(k) && !a[1].IsNull(int(i)) && cmpRows(src.Items, k, a[1], int(i)) == 0
					if match {
						items.copyRow(k, a[2], int(i))
					} else {
						items.copyRow(k, src.Items, k)
					}
				}
				out.A[i] = &Array{Elem: src.Elem, Items: items}
			}
			return nil
		}}, nil
	})
	defCustom("array_to_json", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 || len(args) > 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_to_json", args)
		}
		if len(args) == 2 {
			var err error
			if args[1], err = b.coerce(args[1], TBool, castImplicit, ""); err != nil {
				return nil, noFunction("array_to_json", args)
			}
		}
		return &opExpr{name: "array_to_json", t: TJSON, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				arr, _ := jsonValueOf(a[0], int(i), ec.loc).([]any)
				var bb bytes.Buffer
				sep := ","
				if len(a) == 2 && a[1].B[i] {
					sep = ",\n "
				}
				bb.WriteByte('[')
				for k, e := range arr {
					if k > 0 {
						bb.WriteString(sep)
					}
					writeJSONCompact(&bb, e)
				}
				bb.WriteByte(']')
				out.S[i] = bb.String()
			}
			return nil
		}}, nil
	})
	overlay := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, r := []rune(a[0].S[i]), a[1].S[i]
			from := a[2].I[i]
			count := int64(utf8.RuneCountInString(r))
			if len(a) == 4 {
				count = a[3].I[i]
			}
			// substring(s, 1, from - 1) || r || substring(s, from + count)
			if from < 1 {
				return errf(codeSubstringError, "negative substring length not allowed")
			}
			head := min(from-1, int64(len(s)))
			tail := min(max(from+count-1, 0), int64(len(s)))
			out.S[i] = string(s[:head]) + r + string(s[tail:])
		}
		return nil
	}
	def("overlay", sig(TText, overlay, TText, TText, TInt4), sig(TText, overlay, TText, TText, TInt4, TInt4))
	def("justify_interval", sig(TInterval, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.V[i] = justifyInterval(a[0].V[i])
		}
		return nil
	}, TInterval))
	def("jsonb_pretty", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			v, err := decodeJSON(a[0].S[i])
			if err != nil {
				return jsonSyntaxErr("json", a[0].S[i])
			}
			var bb bytes.Buffer
			writeJSONPretty(&bb, v, 0)
			out.S[i] = bb.String()
		}
		return nil
	}, TJSONB))
	aggregates["json_object_agg"] = func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return jsonObjectAgg(b, args, false)
	}
	aggregates["jsonb_object_agg"] = func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return jsonObjectAgg(b, args, true)
	}
}

// justifyInterval is PostgreSQL's justify_interval: 24-hour periods to
// days, 30-day periods to months, signs made consistent.
func justifyInterval(v Interval) Interval {
	const day = int64(86_400_000_000)
	m, d, t := int64(v.Months), int64(v.Days), v.Micros
	if (d > 0 && t > 0) || (d < 0 && t < 0) {
		w := t / day
		d += w
		t -= w * day
	}
	wm := d / 30
	d -= wm * 30
	m += wm
	if m > 0 && (d < 0 || (d == 0 && t < 0)) {
		d += 30
		m--
	} else if m < 0 && (d > 0 || (d == 0 && t > 0)) {
		d -= 30
		m++
	}
	w := t / day
	t -= w * day
	d += w
	if d > 0 && t < 0 {
		t += day
		d--
	} else if d < 0 && t > 0 {
		t -= day
		d++
	}
	return Interval{Months: int32(m), Days: int32(d), Micros: t}
}

// writeJSONPretty is jsonb_pretty's layout: one element per line, four
// spaces per level.
func writeJSONPretty(b *bytes.Buffer, v any, depth int) {
	ind := func(n int) { b.WriteString(strings.Repeat("    ", n)) }
	switch x := v.(type) {
	case *jsonObject:
		sortJSONB(x)
		if len(x.keys) == 0 {
			b.WriteString("{\n")
			ind(depth)
			b.WriteString("}")
			return
		}
		b.WriteString("{\n")
		for k, key := range x.keys {
			if k > 0 {
				b.WriteString(",\n")
			}
			ind(depth + 1)
			writeJSONString(b, key)
			b.WriteString(": ")
			writeJSONPretty(b, x.vals[k], depth+1)
		}
		b.WriteString("\n")
		ind(depth)
		b.WriteString("}")
	case []any:
		if len(x) == 0 {
			b.WriteString("[\n")
			ind(depth)
			b.WriteString("]")
			return
		}
		b.WriteString("[\n")
		for k, e := range x {
			if k > 0 {
				b.WriteString(",\n")
			}
			ind(depth + 1)
			writeJSONPretty(b, e, depth+1)
		}
		b.WriteString("\n")
		ind(depth)
		b.WriteString("]")
	default:
		writeJSONB(b, v)
	}
}

// jsonObjectAggAcc collects key/value pairs per group.
type jsonObjectAggAcc struct {
	jsonb bool
	t     Type
	objs  []*jsonObject
}

func jsonObjectAgg(b *binder, args []Expr, jsonb bool) (Type, func() accum, []Expr, error) {
	name := "json_object_agg"
	if jsonb {
		name = "jsonb_object_agg"
	}
	if len(args) != 2 {
		return Type{}, nil, nil, noFunction(name, args)
	}
	for k := range args {
		if args[k].Type().OID == OIDUnknown {
			args[k], _ = b.coerce(args[k], TText, castImplicit, "")
		}
	}
	t := TJSON
	if jsonb {
		t = TJSONB
	}
	return t, func() accum { return &jsonObjectAggAcc{jsonb: jsonb, t: t} }, args, nil
}

func (j *jsonObjectAggAcc) update(ec *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	j.objs = growTo(j.objs, ng)
	loc := time.UTC
	if ec != nil && ec.loc != nil {
		loc = ec.loc
	}
	for k, r := range rows {
		if args[0].IsNull(int(r)) {
			if j.jsonb {
				return errf(CodeInvalidParameterValue, "field name must not be null")
			}
			return errf(CodeInvalidParameterValue, "field name must not be null")
		}
		g := gids[k]
		if j.objs[g] == nil {
			j.objs[g] = &jsonObject{}
		}
		key := formatValue(args[0], int(r), loc)
		j.objs[g].keys = append(j.objs[g].keys, key)
		j.objs[g].vals = append(j.objs[g].vals, jsonValueOf(args[1], int(r), loc))
	}
	return nil
}

func (j *jsonObjectAggAcc) result(n int) (*Vec, error) {
	j.objs = growTo(j.objs, n)
	out := NewVec(j.t, n)
	for g := 0; g < n; g++ {
		o := j.objs[g]
		if o == nil {
			out.SetNull(g)
			continue
		}
		if j.jsonb {
			out.S[g] = jsonText(o, true)
			continue
		}
		var bb bytes.Buffer
		bb.WriteString("{ ")
		for k, key := range o.keys {
			if k > 0 {
				bb.WriteString(", ")
			}
			writeJSONString(&bb, key)
			bb.WriteString(" : ")
			writeJSONCompact(&bb, o.vals[k])
		}
		bb.WriteString(" }")
		out.S[g] = bb.String()
	}
	return out, nil
}

// codeSubstringError is substring_error.
const codeSubstringError = "22011"
