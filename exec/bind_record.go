package exec

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Record values: ROW(a, b) / (a, b) outside comparisons, and whole-row
// references to a FROM item (t). A record is exec's record type (fields'
// text forms, see RecordType); ROW fields are named f1, f2, ... and a
// whole-row reference's fields are the item's columns. to_json,
// to_jsonb, row_to_json and json(b)_agg turn records into objects.
// PostgreSQL types a base table's whole-row reference as the table's row
// type; the engine has only the anonymous record type, so such a
// reference returned as a result column answers 0A000 (inside
// expressions, e.g. row_to_json(t), it works).

// recordExpr builds a record from its field expressions.
type recordExpr struct {
	args     []Expr
	t        Type
	tableRow bool // a whole-row reference to a base table
}

func (r *recordExpr) Type() Type { return r.t }
func (r *recordExpr) String() string {
	parts := make([]string, len(r.args))
	for i, a := range r.args {
		parts[i] = a.String()
	}
	return "ROW(" + strings.Join(parts, ",") + ")"
}

func (r *recordExpr) Eval(ec *evalCtx, b *Batch, sel []int32) (*Vec, error) {
	vals := make([]*Vec, len(r.args))
	for k, a := range r.args {
		v, err := a.Eval(ec, b, sel)
		if err != nil {
			return nil, err
		}
		vals[k] = v
	}
	out := NewVec(r.t, b.N)
	fields := make([]*string, len(vals))
	forEach(b.N, sel, func(i int) {
		for k, v := range vals {
			if v.IsNull(i) {
				fields[k] = nil
				continue
			}
			// ISO: a record keeps its fields as text, which field access,
			// comparison, binary send and JSON read back (formatRecordStyled
			// prints them in the session's styles)
			s := formatValue(v, i, ec.loc)
			fields[k] = &s
		}
		out.A[i] = newRecord(r.t, fields)
	})
	return out, nil
}

// bindRowValue binds ROW(args) as a value.
func (b *binder) bindRowValue(args []*q.Node, sc *scope) (Expr, error) {
	es, err := b.bindList(args, sc)
	if err != nil {
		return nil, err
	}
	fields := make([]RecordField, len(es))
	for i := range es {
		if es[i].Type().OID == OIDUnknown {
			if es[i], err = b.coerce(es[i], TText, castImplicit, ""); err != nil {
				return nil, err
			}
		}
		if es[i].Type().OID == OIDRecord {
			return nil, unsupported("nested records are not supported")
		}
		fields[i] = RecordField{Name: fmt.Sprintf("f%d", i+1), Type: es[i].Type()}
	}
	return &recordExpr{args: es, t: RecordType(fields)}, nil
}

// wholeRowRef binds a bare FROM-item name used as a value; nil when no
// visible item has that name.
func (b *binder) wholeRowRef(name string, sc *scope) (Expr, error) {
	level := 0
	for cur := sc; cur != nil; cur = cur.parent {
		if cur.passthrough {
			continue
		}
		var cols []*scopeCol
		for i := range cur.cols {
			c := &cur.cols[i]
			if c.table != name || c.hidden || c.name == "" || (c.noStar && !c.noUnqual) {
				continue
			}
			cols = append(cols, c)
		}
		if len(cols) == 0 {
			if cur.aliases[name] {
				return nil, unsupported("whole-row reference to \"%s\" is not supported", name)
			}
			level++
			continue
		}
		for m := sc; m != cur; m = m.parent {
			m.correlated = true
		}
		r := &recordExpr{tableRow: true}
		fields := make([]RecordField, len(cols))
		for k, c := range cols {
			c.markUsed()
			fields[k] = RecordField{Name: c.name, Type: c.t}
			// a base table's own row: its columns, all of them, in order
			if c.table_ == nil || c.table_ != cols[0].table_ || int(c.attnum) != k+1 || len(cols) != len(c.table_.Columns) {
				r.tableRow = false
			}
			if level == 0 {
				r.args = append(r.args, &colRef{idx: c.idx, t: c.t, name: c.name})
			} else {
				r.args = append(r.args, &outerRef{level: level, idx: c.idx, t: c.t})
			}
		}
		r.t = RecordType(fields)
		return r, nil
	}
	return nil, nil
}

// checkRecordOutput refuses a base table's whole-row reference as a
// result column (its PostgreSQL type is the table's row type).
func checkRecordOutput(e Expr) error {
	if r, ok := e.(*recordExpr); ok && r.tableRow {
		return unsupported("a table's whole-row reference as a result column is not supported (use t.* or row_to_json(t))")
	}
	return nil
}

// jsonRecordValue converts a record to a JSON object (fields parsed with
// their types' input functions, then converted like to_json does).
func jsonRecordValue(v *Vec, i int, loc *time.Location) *jsonObject {
	fields, ok := RecordFields(v.T)
	a := v.A[i]
	o := &jsonObject{}
	for k := 0; k < a.Items.N; k++ {
		name, ft := fmt.Sprintf("f%d", k+1), TText
		if ok && k < len(fields) {
			name, ft = fields[k].Name, fields[k].Type
		}
		o.keys = append(o.keys, name)
		if a.Items.IsNull(k) {
			o.vals = append(o.vals, nil)
			continue
		}
		fv := NewVec(ft, 1)
		if err := parseText(fv, 0, a.Items.S[k], loc); err != nil {
			o.vals = append(o.vals, a.Items.S[k])
			continue
		}
		o.vals = append(o.vals, jsonValueOf(fv, 0, loc))
	}
	return o
}

func init() {
	defCustom("row_to_json", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 || len(args) > 2 || args[0].Type().OID != OIDRecord {
			return nil, noFunction("row_to_json", args)
		}
		if len(args) == 2 {
			var err error
			if args[1], err = b.coerce(args[1], TBool, castImplicit, ""); err != nil {
				return nil, noFunction("row_to_json", args)
			}
		}
		return &opExpr{name: "row_to_json", t: TJSON, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				o := jsonRecordValue(a[0], int(i), ec.loc)
				if len(a) == 2 && a[1].B[i] {
					// pretty: top-level fields on their own lines
					var sb bytes.Buffer
					sb.WriteByte('{')
					for k, key := range o.keys {
						if k > 0 {
							sb.WriteString(",\n ")
						}
						writeJSONString(&sb, key)
						sb.WriteByte(':')
						writeJSONCompact(&sb, o.vals[k])
					}
					sb.WriteByte('}')
					out.S[i] = sb.String()
					continue
				}
				out.S[i] = jsonText(o, false)
			}
			return nil
		}}, nil
	})
}
