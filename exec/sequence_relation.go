package exec

import (
	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// A sequence read as a relation (SELECT last_value, is_called FROM s, as
// pg_dump does to restore its position) has PostgreSQL 15's one row of
// last_value, log_cnt and is_called: where the sequence stands (its
// Position, read when the statement runs: nextval is not transactional,
// so a sequence relation is a snapshot as in PostgreSQL), or the start
// value and false before the first nextval. log_cnt (WAL pre-logging) has
// no meaning here and is 0.

// sequenceByName finds a sequence by its schema-qualified or bare name
// (bare names are looked up in public, where unqualified DDL puts them).
func (c *catalogSet) sequenceByName(schema, name string) *SequenceDef {
	seqs := c.sequences()
	find := func(schema string) *SequenceDef {
		for _, s := range seqs {
			if s.schema() == schema && s.Name == storageName(schema, name) {
				return s
			}
		}
		return nil
	}
	if schema == "pg_temp" { // the session's temporary schema (temp_schema.go)
		if schema = c.tempSchema(); schema == "" {
			return nil
		}
	}
	if schema != "" {
		if d := find(schema); d != nil {
			return d
		}
		// a public relation whose own name has a dot in it
		for _, s := range seqs {
			if s.Name == storageName(schema, name) {
				return s
			}
		}
		return nil
	}
	if len(c.schemaDefs()) > 0 {
		for _, s := range c.lookupPath() {
			if d := find(s); d != nil {
				return d
			}
		}
	}
	return find("public")
}

// sequenceState is s's last_value and is_called.
func sequenceState(ec *evalCtx, s *SequenceDef) (int64, bool, error) {
	switch {
	case s.Position != nil:
		return s.Position(ec.ctx)
	case s.LastValue != nil:
		return *s.LastValue, true, nil
	}
	return s.Start, false, nil
}

// bindSequenceRelation binds a FROM reference to sequence s as its
// one-row relation.
func (b *binder) bindSequenceRelation(rv *q.RangeVar, s *SequenceDef, sc *scope) (plan, []scopeCol, error) {
	alias := rv.Relname
	if rv.Alias != nil {
		alias = rv.Alias.Aliasname
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, nil, err
	}
	if s.Checked {
		// the planner checks SELECT on it like a table's
		b.useRelation(&TableDef{OID: s.OID, Schema: s.schema(), Name: s.Name, Kind: "sequence", Owner: s.Owner,
			ACL: access.SequenceACL(s.Owner, s.ACL)})
	}
	field := func(name string, t Type, set func(out *Vec, i int32, last int64, called bool)) Expr {
		return &opExpr{name: name, t: t, k: func(ec *evalCtx, _ []*Vec, out *Vec, sel []int32) error {
			last, called, err := sequenceState(ec, s)
			if err != nil {
				return err
			}
			for _, i := range sel {
				set(out, i, last, called)
			}
			return nil
		}}
	}
	row := []Expr{
		field("last_value", TInt8, func(out *Vec, i int32, last int64, _ bool) { out.I[i] = last }),
		field("log_cnt", TInt8, func(out *Vec, i int32, _ int64, _ bool) { out.I[i] = 0 }),
		field("is_called", TBool, func(out *Vec, i int32, _ int64, called bool) { out.B[i] = called }),
	}
	names := []string{"last_value", "log_cnt", "is_called"}
	ci := make([]colInfo, len(row))
	cols := make([]scopeCol, len(row))
	for i, e := range row {
		ci[i] = colInfo{name: names[i], t: e.Type()}
		cols[i] = scopeCol{name: names[i], t: e.Type(), idx: i}
	}
	cols, err := applyAlias(cols, rv.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	return &valuesNode{cols: ci, rows: [][]Expr{row}}, cols, nil
}
