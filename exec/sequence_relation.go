package exec

import (
	"strconv"

	q "github.com/pganalyze/pg_query_go/v6"
)

// A sequence read as a relation (SELECT last_value, is_called FROM s, as
// pg_dump does to restore its position) has PostgreSQL 15's one row of
// last_value, log_cnt and is_called: last_value is the last value handed
// out, or the start value before the first nextval (then is_called is
// false). log_cnt (WAL pre-logging) has no meaning here and is 0.

// sequenceByName finds a sequence by its schema-qualified or bare name
// (bare names are looked up in public, where unqualified DDL puts them).
func (c *catalogSet) sequenceByName(schema, name string) *SequenceDef {
	if schema == "" {
		schema = "public"
	}
	for _, s := range c.sequences() {
		if s.schema() == schema && s.Name == name {
			return s
		}
	}
	return nil
}

// bindSequenceRelation binds a FROM reference to sequence s as the
// one-row subquery PostgreSQL's sequence relation amounts to.
func (b *binder) bindSequenceRelation(rv *q.RangeVar, s *SequenceDef, sc *scope) (plan, []scopeCol, error) {
	last, called := s.Start, "false"
	if s.LastValue != nil {
		last, called = *s.LastValue, "true"
	}
	tree, err := q.Parse("SELECT " + strconv.FormatInt(last, 10) + "::int8 AS last_value, 0::int8 AS log_cnt, " + called + " AS is_called")
	if err != nil {
		return nil, nil, errf(CodeInternalError, "sequence relation: %v", err)
	}
	alias := rv.Alias
	if alias == nil {
		alias = &q.Alias{Aliasname: rv.Relname}
	}
	sub := &q.Node{Node: &q.Node_RangeSubselect{RangeSubselect: &q.RangeSubselect{Subquery: tree.Stmts[0].Stmt, Alias: alias}}}
	return b.bindFromItem(sub, sc)
}
