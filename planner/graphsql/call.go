package graphsql

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/internal/sqlparse"
)

// Form is how a statement invokes a graph procedure.
type Form int

// Forms.
const (
	FormCall       Form = iota + 1 // CALL graph.f(…): command tag CALL, no rows
	FormSelect                     // SELECT graph.f(…) [AS c]: one row, one column
	FormSelectFrom                 // SELECT * FROM graph.f(…) [AS t]: one row, one column
)

// Invocation is a recognized graph procedure call: which function, how
// it was called, and the SQL text of each argument (evaluated later by
// the executor, so casts, parameters and expressions such as now() work).
type Invocation struct {
	Function string // without the schema, e.g. "create_branch"
	Form     Form
	Column   string // result column name of the SELECT forms
	fn       *function
	args     []*span // by parameter position; nil = not given
	pos      int     // 1-based character position of the call, for errors
	sql      string  // the statement text
}

// graphFunc returns the unqualified name when fc names graph.<name>.
func graphFunc(fc *sqlparse.FuncCall) (string, bool) {
	if fc == nil || len(fc.Funcname) != 2 {
		return "", false
	}
	if fc.Funcname[0].GetString_().GetSval() != Schema {
		return "", false
	}
	name := fc.Funcname[1].GetString_().GetSval()
	if RelationFunctions[name] {
		return "", false // read by the executor (exec.RelationFunc)
	}
	return name, true
}

// RelationFunctions are the graph functions that are relations read in
// FROM by ordinary queries (graph.at, graph.diff, graph.diff_summary,
// graph.schema_diff, graph.changes;
// the planner's exec.RelationFunc), not procedures.
var RelationFunctions = map[string]bool{"at": true, "diff": true, "diff_summary": true, "schema_diff": true, "changes": true}

// IsGraphCall reports whether a raw statement calls a graph procedure:
// CALL graph.f(…), or a SELECT whose target list or FROM list has a
// graph.f(…) call at the top level. Such a statement must go through
// Parse (which refuses unusable shapes with a clear error) rather than
// the executor.
func IsGraphCall(stmt *sqlparse.Node) bool {
	if cs := stmt.GetCallStmt(); cs != nil {
		_, ok := graphFunc(cs.Funccall)
		return ok
	}
	sel := stmt.GetSelectStmt()
	if sel == nil {
		return false
	}
	for _, t := range sel.TargetList {
		if nestedGraphCall(t.GetResTarget().GetVal()) != nil {
			return true
		}
	}
	for _, f := range sel.FromClause {
		if rf := f.GetRangeFunction(); rf != nil {
			for _, fn := range rf.Functions {
				for _, item := range fn.GetList().GetItems() {
					if _, ok := graphFunc(item.GetFuncCall()); ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// Parse recognizes a graph procedure call in one statement's text (as
// the session received it; the parse tree comes from sqlparse's cache).
// It returns nil, nil for anything else, including text that does not
// parse (the session's normal path reports that). Errors: 42883 unknown
// graph.f (PostgreSQL's message and a hint naming the procedures), 42601
// wrong number of arguments or a call decorated with DISTINCT, ORDER BY,
// FILTER, OVER or VARIADIC, 0A000 a graph procedure inside a larger query.
func Parse(sql string) (*Invocation, error) {
	tree, err := sqlparse.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, nil
	}
	stmt := tree.Stmts[0].Stmt
	if !IsGraphCall(stmt) {
		return nil, nil
	}
	var fc *sqlparse.FuncCall
	inv := &Invocation{}
	if cs := stmt.GetCallStmt(); cs != nil {
		fc, inv.Form = cs.Funccall, FormCall
	} else if fc, err = inv.selectShape(stmt.GetSelectStmt()); err != nil {
		return nil, err
	}
	name, _ := graphFunc(fc)
	inv.sql = sql
	inv.pos = charPos(sql, int(fc.Location))
	f, ok := functions[name]
	if !ok {
		return nil, undefinedFunction(inv.Form == FormCall, name, literalTypes(fc.Args)).WithPosition(int32(inv.pos))
	}
	inv.Function, inv.fn = f.name, f
	if inv.Column == "" {
		inv.Column = f.name
	}
	if fc.AggStar || fc.AggDistinct || fc.FuncVariadic || len(fc.AggOrder) > 0 || fc.AggFilter != nil || fc.Over != nil || fc.AggWithinGroup {
		return nil, errf(CodeSyntaxError, "%s.%s is a procedure: its call takes plain arguments only", Schema, f.name).
			WithHint("Call it as " + f.signature() + ".").WithPosition(int32(inv.pos))
	}
	if err := inv.bindArgs(sql, fc); err != nil {
		return nil, err
	}
	return inv, nil
}

// selectShape checks that a SELECT is nothing but the call and returns it.
func (inv *Invocation) selectShape(sel *sqlparse.SelectStmt) (*sqlparse.FuncCall, error) {
	var fc *sqlparse.FuncCall
	alone := sel.DistinctClause == nil && sel.IntoClause == nil && sel.WhereClause == nil &&
		len(sel.GroupClause) == 0 && sel.HavingClause == nil && len(sel.WindowClause) == 0 &&
		len(sel.SortClause) == 0 && sel.LimitCount == nil && sel.LimitOffset == nil &&
		len(sel.LockingClause) == 0 && sel.WithClause == nil && len(sel.TargetList) == 1
	switch {
	case alone && len(sel.FromClause) == 0:
		rt := sel.TargetList[0].GetResTarget()
		fc = rt.GetVal().GetFuncCall()
		if _, ok := graphFunc(fc); !ok {
			alone = false
		}
		inv.Form, inv.Column = FormSelect, rt.GetName()
	case alone && len(sel.FromClause) == 1:
		rf := sel.FromClause[0].GetRangeFunction()
		rt := sel.TargetList[0].GetResTarget()
		ref := rt.GetVal().GetColumnRef()
		if rf == nil || rf.Lateral || rf.Ordinality || rf.IsRowsfrom || len(rf.Functions) != 1 || len(rf.Coldeflist) > 0 || ref == nil {
			alone = false
			break
		}
		items := rf.Functions[0].GetList().GetItems()
		if len(items) == 0 {
			alone = false
			break
		}
		fc = items[0].GetFuncCall()
		name, ok := graphFunc(fc)
		if !ok {
			alone = false
			break
		}
		// the relation is named by its alias (else the function), its one
		// column by the alias's column list, else the alias, else the
		// function — as PostgreSQL names a scalar function in FROM
		rel, col := name, name
		if a := rf.Alias; a != nil {
			rel, col = a.Aliasname, a.Aliasname
			if len(a.Colnames) > 0 {
				col = a.Colnames[0].GetString_().GetSval()
			}
		}
		if !selectsColumn(ref, rel, col) {
			alone = false
			break
		}
		inv.Form, inv.Column = FormSelectFrom, col
		if rt.GetName() != "" {
			inv.Column = rt.GetName()
		}
	default:
		alone = false
	}
	if !alone {
		name := "a graph procedure"
		if _, ok := graphFunc(fc); !ok {
			fc = firstGraphCall(sel)
		}
		if n, ok := graphFunc(fc); ok {
			name = Schema + "." + n + "()"
		}
		return nil, errf(CodeFeatureNotSupported, "%s cannot be used inside a larger query", name).
			WithHint("Call it on its own: CALL graph.f(…), SELECT graph.f(…) or SELECT * FROM graph.f(…).")
	}
	return fc, nil
}

// selectsColumn reports whether ref is *, rel.*, col or rel.col.
func selectsColumn(ref *sqlparse.ColumnRef, rel, col string) bool {
	f := ref.Fields
	if len(f) == 2 {
		if f[0].GetString_().GetSval() != rel {
			return false
		}
		f = f[1:]
	}
	if len(f) != 1 {
		return false
	}
	return f[0].GetAStar() != nil || f[0].GetString_().GetSval() == col
}

func firstGraphCall(sel *sqlparse.SelectStmt) *sqlparse.FuncCall {
	for _, t := range sel.TargetList {
		if fc := nestedGraphCall(t.GetResTarget().GetVal()); fc != nil {
			return fc
		}
	}
	for _, f := range sel.FromClause {
		for _, fn := range f.GetRangeFunction().GetFunctions() {
			for _, item := range fn.GetList().GetItems() {
				if _, ok := graphFunc(item.GetFuncCall()); ok {
					return item.GetFuncCall()
				}
			}
		}
	}
	return nil
}

// nestedGraphCall finds a graph.f call anywhere in one target-list
// expression (SELECT length(graph.merge('b')) is then refused as "inside
// a larger query" rather than reaching the executor, which does not know
// graph.f). Only target lists are walked: they are small, unlike the
// VALUES lists of a bulk INSERT.
func nestedGraphCall(n *sqlparse.Node) *sqlparse.FuncCall {
	if n == nil {
		return nil
	}
	var found *sqlparse.FuncCall
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if fc, ok := m.Interface().(*sqlparse.FuncCall); ok {
			if _, ok := graphFunc(fc); ok {
				found = fc
				return
			}
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Message() == nil || fd.IsMap():
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len() && found == nil; i++ {
					walk(l.Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return found == nil
		})
	}
	walk(n.ProtoReflect())
	return found
}

// literalTypes names argument types the way PostgreSQL's "function …
// does not exist" message does, from the parse tree alone.
func literalTypes(args []*sqlparse.Node) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if na := a.GetNamedArgExpr(); na != nil {
			a = na.Arg
		}
		switch {
		case a.GetAConst() != nil:
			c := a.GetAConst()
			switch {
			case c.GetIval() != nil:
				out[i] = "integer"
			case c.GetFval() != nil:
				out[i] = "numeric"
			case c.GetBoolval() != nil:
				out[i] = "boolean"
			default:
				out[i] = "unknown"
			}
		case a.GetTypeCast() != nil:
			names := a.GetTypeCast().GetTypeName().GetNames()
			if len(names) > 0 {
				out[i] = names[len(names)-1].GetString_().GetSval()
			}
		}
	}
	return out
}

// bindArgs cuts the argument texts out of sql and maps them (positional,
// then named) to parameter positions.
func (inv *Invocation) bindArgs(sql string, fc *sqlparse.FuncCall) error {
	f := inv.fn
	spans, ok := callArgs(sql, int(fc.Location))
	if !ok || len(spans) != len(fc.Args) {
		return errf(CodeSyntaxError, "cannot read the arguments of %s.%s", Schema, f.name).WithPosition(int32(inv.pos))
	}
	inv.args = make([]*span, len(f.params))
	for i, a := range fc.Args {
		sp := spans[i]
		idx := i
		if na := a.GetNamedArgExpr(); na != nil {
			idx = -1
			for j, p := range f.params {
				if p == na.Name {
					idx = j
				}
			}
			if idx < 0 {
				return undefinedFunction(inv.Form == FormCall, f.name, literalTypes(fc.Args)).WithPosition(int32(inv.pos)).
					WithDetail("There is no parameter named \"" + na.Name + "\".")
			}
			sp = stripArgName(sp)
		}
		if idx >= len(f.params) {
			return arityError(f, len(spans)).WithPosition(int32(inv.pos))
		}
		if inv.args[idx] != nil {
			return errf(CodeSyntaxError, "argument %q of %s.%s is given more than once", f.params[idx], Schema, f.name).WithPosition(int32(inv.pos))
		}
		inv.args[idx] = &sp
	}
	for i := 0; i < f.required; i++ {
		if inv.args[i] == nil {
			return arityError(f, len(spans)).WithPosition(int32(inv.pos))
		}
	}
	return nil
}
