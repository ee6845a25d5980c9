package exec

import (
	"strconv"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// RelationFunc resolves a schema-qualified function called in FROM that
// the executor does not know itself (the planner's graph.at and
// graph.diff): args are the call's constant arguments as text (nil for
// NULL). ok false means "not a relation function of mine"; binding then
// goes on as for any other FROM function. The returned relation is
// scanned like a table (joins, filters, aliases), so two versions of a
// table can be read in one query.
type RelationFunc func(schema, name string, args []*string) (td *TableDef, ok bool, err error)

// bindRelationFunction binds rf through the session's RelationFunc;
// handled false when rf is not one of its functions.
func (b *binder) bindRelationFunction(rf *q.RangeFunction, sc *scope) (p plan, cols []scopeCol, handled bool, err error) {
	if b.cat.relFunc == nil || rf.IsRowsfrom || len(rf.Functions) != 1 {
		return nil, nil, false, nil
	}
	items := rf.Functions[0].GetList().GetItems()
	if len(items) == 0 {
		return nil, nil, false, nil
	}
	fc := items[0].GetFuncCall()
	if fc == nil || len(fc.Funcname) != 2 {
		return nil, nil, false, nil
	}
	schema, name := fc.Funcname[0].GetString_().Sval, fc.Funcname[1].GetString_().Sval
	switch schema {
	case "pg_catalog", "public", "information_schema":
		return nil, nil, false, nil
	}
	args := make([]*string, len(fc.Args))
	for i, a := range fc.Args {
		s, ok := constArgText(a)
		if !ok {
			return nil, nil, true, unsupported("the arguments of %s.%s in FROM must be constants", schema, name)
		}
		args[i] = s
	}
	td, ok, err := b.cat.relFunc(schema, name, args)
	if err != nil || !ok {
		return nil, nil, ok, err
	}
	switch {
	case b.trace != nil || b.inView:
		return nil, nil, true, unsupported("%s.%s in a view is not supported", schema, name)
	case rf.Lateral || rf.Ordinality || len(rf.Coldeflist) > 0:
		return nil, nil, true, unsupported("%s.%s with LATERAL, WITH ORDINALITY or a column definition list is not supported", schema, name)
	}
	// what it read depends on more than the catalog (a branch head moves
	// on its own): the binding is not reused (Prepared.Volatile)
	b.volatile = true
	p, cols, err = b.bindTableRelation(&q.RangeVar{Relname: name, Alias: rf.Alias}, td, sc)
	return p, cols, true, err
}

// constArgText is a literal argument's text: a constant, possibly cast
// ('…'::timestamptz), or NULL (nil).
func constArgText(n *q.Node) (*string, bool) {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	c := n.GetAConst()
	if c == nil {
		return nil, false
	}
	if c.Isnull {
		return nil, true
	}
	var s string
	switch v := c.Val.(type) {
	case *q.A_Const_Sval:
		s = v.Sval.Sval
	case *q.A_Const_Ival:
		s = strconv.FormatInt(int64(v.Ival.Ival), 10)
	case *q.A_Const_Fval:
		s = v.Fval.Fval
	case *q.A_Const_Boolval:
		s = strconv.FormatBool(v.Boolval.Boolval)
	default:
		return nil, false
	}
	return &s, true
}
