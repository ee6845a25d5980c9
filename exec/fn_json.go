package exec

import (
	"bytes"
	"strings"
	"time"
)

// JSON functions beyond the operators: json(b)_extract_path[_text],
// jsonb_pretty, and the json_object_agg / jsonb_object_agg aggregates.

func init() {
	for _, name := range []string{"json_extract_path", "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text"} {
		name := name
		defCustom(name, func(b *binder, args []Expr) (Expr, error) {
			want := TJSON
			if name[:5] == "jsonb" {
				want = TJSONB
			}
			if len(args) < 2 {
				return nil, noFunction(name, args) // VARIADIC needs at least one path element
			}
			j, err := b.coerce(args[0], want, castImplicit, "")
			if err != nil {
				return nil, noFunction(name, args)
			}
			items := make([]Expr, len(args)-1)
			for k, a := range args[1:] {
				if items[k], err = b.coerce(a, TText, castImplicit, ""); err != nil {
					return nil, noFunction(name, args)
				}
			}
			op := "#>"
			if name[len(name)-5:] == "_text" {
				op = "#>>"
			}
			e, err := b.jsonOp(op, j, &arrayExpr{t: tTextArray, items: items})
			if oe, ok := e.(*opExpr); ok && err == nil {
				oe.name = name
			}
			return e, err
		})
	}
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
	// size: each group's value so far, estimated (json_agg_limit.go)
	size []int
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
	j.objs, j.size = growTo(j.objs, ng), growTo(j.size, ng)
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
		add := len(key) + 2 + jsonAggBytes(args[1], int(r))
		if err := growJSONAgg(ec, j.jsonb, true, j.size[g], add); err != nil {
			return err
		}
		j.size[g] += add
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
