package planner

import (
	"sync"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/planner/seq"
	"github.com/pggraph/pggraph/wire"
)

// Column defaults of the form nextval('s'::regclass) (serial, identity)
// are not evaluated by exec: the rows that take such a default get a
// NULL placeholder in the query, and the planner fills them afterwards,
// row by row, from planner/seq's durable allocator (values are never
// handed out twice, by any process; gaps are allowed, and a rolled-back
// transaction does not return its values, as in PostgreSQL).

var seqDefaults sync.Map // default SQL text -> sequence name ("" = not a nextval default)

// seqDefault returns the sequence a column default draws from, "" when
// the default is something else.
func seqDefault(def string) string {
	if def == "" {
		return ""
	}
	if v, ok := seqDefaults.Load(def); ok {
		return v.(string)
	}
	name := ""
	if n, err := parseExpr(def); err == nil {
		if fc := n.GetFuncCall(); fc != nil && len(fc.Args) == 1 {
			if _, fn := funcName(fc); fn == "nextval" {
				arg := fc.Args[0]
				if tc := arg.GetTypeCast(); tc != nil {
					arg = tc.Arg
				}
				if k := arg.GetAConst(); k != nil && k.GetSval() != nil {
					if nm, err := ddl.ParseRegclass(k.GetSval().Sval); err == nil {
						name = nm
					}
				}
			}
		}
	}
	seqDefaults.Store(def, name)
	return name
}

// defaultFor is the SQL a row gets for a defaulted column in the query:
// the default itself, or a NULL placeholder for a sequence default.
func defaultFor(cd exec.ColumnDef) string {
	if seqDefault(cd.Default) != "" {
		return "NULL"
	}
	return defaultSQL(cd)
}

// sequence resolves a sequence by name in the transaction's catalog
// (standalone sequences and the ones serial/identity columns own).
func (w *writer) sequence(name string) (seq.Spec, error) {
	for _, e := range w.v.pend.ddlOverlay(w.v.root.sn).Tables() {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		if m.Sequence != nil && m.Sequence.Name == name {
			return m.Sequence.Spec(), nil
		}
		for _, c := range m.Columns {
			if c.Sequence != nil && c.Sequence.Name == name {
				return c.Sequence.Spec(), nil
			}
		}
	}
	return seq.Spec{}, wire.Errorf("42P01", "relation \"%s\" does not exist", name)
}

// fillSequences sets the defaulted sequence columns of rows (table
// order): mask[c][r] marks the cells to fill (nil: every row of c).
func (w *writer) fillSequences(td *exec.TableDef, rows []*exec.Vec, fill map[int][]bool) error {
	if len(fill) == 0 || w.describe || len(rows) == 0 {
		return nil
	}
	specs := map[int]seq.Spec{}
	for c := range fill {
		sp, err := w.sequence(seqDefault(td.Columns[c].Default))
		if err != nil {
			return err
		}
		specs[c] = sp
	}
	for r := 0; r < rows[0].N; r++ {
		for c := range td.Columns {
			mask, ok := fill[c]
			if !ok || (mask != nil && !mask[r]) {
				continue
			}
			v, err := w.s.seqSess.Nextval(w.ctx, w.s.seqs, specs[c])
			if err != nil {
				return seqError(err)
			}
			if rows[c].T.Kind() != exec.KInt {
				return wire.Errorf(wire.CodeFeatureNotSupported, "a sequence default on column \"%s\" of type %s is not supported", td.Columns[c].Name, rows[c].T)
			}
			rows[c].I[r] = v
			if rows[c].Nulls != nil {
				rows[c].Nulls[r] = false
			}
		}
	}
	return nil
}

// setSequence applies ALTER SEQUENCE … RESTART / TRUNCATE … RESTART
// IDENTITY at once (sequences are not transactional).
func (w *writer) setSequence(c *ddl.SetSequence) error {
	if w.describe {
		return nil
	}
	_, err := w.s.seqSess.Setval(w.ctx, w.s.seqs, c.Sequence.Spec(), c.Value, c.IsCalled)
	return seqError(err)
}

func seqError(err error) error {
	if err == nil {
		return nil
	}
	if we, ok := err.(*wire.Error); ok {
		return we
	}
	return wire.Errorf("58030", "sequence allocation failed").WithDetail(err.Error())
}
