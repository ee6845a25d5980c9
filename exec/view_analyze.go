package exec

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// A view's query is stored as SQL text, normalized when the view is
// created so that it keeps meaning what it meant then (PostgreSQL stores
// the analyzed query tree, bound to column numbers; text must be made
// equally unambiguous):
//   - relations are schema-qualified (public.t): a CTE named like a table
//     in a query that uses the view cannot capture it;
//   - column references are qualified with their FROM entry's alias
//     when that resolves to the same column: a column added later to
//     another joined table cannot make them ambiguous;
//   - * and t.* are expanded to the columns they had;
//   - NATURAL joins list their columns (USING);
//   - every select-list entry, at every level, is named explicitly, so a
//     renamed column does not rename a subquery's output;
//   - untyped literals carry the type they resolved to ('x'::text).
// Renames of a relation or column the view reads re-bind the stored
// query and rewrite the names it uses (RenameInView), so the definition
// follows renames as PostgreSQL's does.

// ViewColumn is one output column of a view query.
type ViewColumn struct {
	Name string
	Type Type
}

// ViewAnalysis is a view query as it is stored.
type ViewAnalysis struct {
	Query   string // normalized SELECT text
	Columns []ViewColumn
	Depends []ViewDependency
	// Graphs are the property graphs (CREATE PROPERTY GRAPH) the query's
	// GRAPH_TABLE clauses read; their element tables are in Depends.
	Graphs []string
}

// viewTrace records how the names of a query resolved while it is bound.
type viewTrace struct {
	cols    map[*q.ColumnRef]tracedCol
	stars   map[*q.ColumnRef][]tracedCol
	rels    map[*q.RangeVar]*TableDef
	natural map[*q.JoinExpr][]string
	names   map[*q.ResTarget]string
	consts  map[*q.A_Const]Type
	cases   map[*q.CaseExpr]Type          // result types (a CASE without ELSE gets ELSE NULL::type)
	funcs   map[*q.RangeFunction][]string // FROM functions' column names
	text    map[*q.A_Const]string         // literals' values in their type's output form
	usings  []tracedCol                   // columns a USING or NATURAL join matches by name
	graphs  []string                      // property graphs GRAPH_TABLE clauses read
}

// tracedCol is one resolved column reference.
type tracedCol struct {
	qual   string    // alias to qualify an unqualified reference with ("" = keep)
	name   string    // the column's name
	base   *TableDef // the relation (table or view) it is a column of; nil when derived
	attnum int16
	from   *q.RangeVar
}

func newViewTrace() *viewTrace {
	return &viewTrace{cols: map[*q.ColumnRef]tracedCol{}, stars: map[*q.ColumnRef][]tracedCol{}, rels: map[*q.RangeVar]*TableDef{},
		natural: map[*q.JoinExpr][]string{}, names: map[*q.ResTarget]string{}, consts: map[*q.A_Const]Type{}, cases: map[*q.CaseExpr]Type{},
		funcs: map[*q.RangeFunction][]string{}, text: map[*q.A_Const]string{}}
}

func (t *viewTrace) relation(rv *q.RangeVar, td *TableDef) { t.rels[rv] = td }

func (t *viewTrace) function(rf *q.RangeFunction, cols []scopeCol) {
	var names []string
	for _, c := range cols {
		if !c.hidden {
			names = append(names, c.name)
		}
	}
	t.funcs[rf] = names
}

// traced describes c as seen from sc; qual is set when qualifying the
// reference with c's alias finds c again.
func traced(c *scopeCol, sc *scope, wantQual bool) tracedCol {
	tc := tracedCol{name: c.name, base: c.table_, attnum: c.attnum, from: c.from}
	switch {
	case !wantQual:
	case c.table != "" && sc.peek(c.table, c.name) == c:
		tc.qual = c.table
	case c.table == "" && c.merged != nil && c.merged.table != "":
		// a USING column: its side's column, when qualifying finds it
		if s := sc.peek(c.merged.table, c.name); s != nil && s.from == c.merged.from && s.table == c.merged.table {
			tc.qual = c.merged.table
		}
	}
	return tc
}

func (t *viewTrace) column(cr *q.ColumnRef, c *scopeCol, sc *scope, unqualified bool) {
	t.cols[cr] = traced(c, sc, unqualified)
}

// starBegin starts (again) the expansion of a * entry; star adds one
// column to it (an expansion may have none: a relation without columns).
func (t *viewTrace) starBegin(cr *q.ColumnRef) { t.stars[cr] = []tracedCol{} }

func (t *viewTrace) star(cr *q.ColumnRef, c *scopeCol, sc *scope) {
	t.stars[cr] = append(t.stars[cr], traced(c, sc, true))
}

func (t *viewTrace) using(l, r *scopeCol) {
	t.usings = append(t.usings, traced(l, nil, false), traced(r, nil, false))
}

// peek resolves [table.]name like resolve, without side effects; nil when
// it finds nothing or an ambiguity.
func (s *scope) peek(table, name string) *scopeCol {
	for cur := s; cur != nil; cur = cur.parent {
		if cur.passthrough {
			continue
		}
		c, err := cur.lookup(table, name)
		if err != nil {
			return nil
		}
		if c != nil {
			return c
		}
		if table != "" && cur.aliases[table] {
			return nil
		}
	}
	return nil
}

// AnalyzeView binds the query of CREATE VIEW against cat and returns its
// stored form: the normalized query, its output columns (named by
// columns where given) and what it reads. sql is the statement's text
// (error positions). Errors are PostgreSQL's: 42P01/42703 for names the
// query uses, 42701 for a repeated column name, 42P02 for a parameter.
func AnalyzeView(cat Catalog, sql string, query *q.Node, columns []string) (va *ViewAnalysis, err error) {
	defer func() {
		if r := recover(); r != nil {
			va, err = nil, internalPanic(r)
		}
	}()
	if query.GetSelectStmt() == nil {
		return nil, unsupported("views must be defined by a SELECT")
	}
	searchCycle := false
	walkProto(query.ProtoReflect(), func(m protoreflect.Message) {
		if cte, ok := m.Interface().(*q.CommonTableExpr); ok && (cte.SearchClause != nil || cte.CycleClause != nil) {
			searchCycle = true
		}
	})
	if searchCycle {
		// the binder rewrites such a CTE into a copy, which the stored
		// form's normalization would not reach
		return nil, unsupported("CREATE VIEW with SEARCH or CYCLE in a WITH query is not supported")
	}
	stmt := proto.Clone(query).(*q.Node)
	bd, tr, err := bindTraced(cat, sql, stmt)
	if err != nil {
		return nil, err
	}
	if len(columns) > len(bd.cols) {
		return nil, errf(CodeSyntaxError, "CREATE VIEW specifies more column names than columns")
	}
	out := make([]ViewColumn, len(bd.cols))
	seen := map[string]bool{}
	for i, c := range bd.cols {
		name := c.name
		if i < len(columns) {
			name = columns[i]
		}
		if seen[name] {
			return nil, errf(CodeDuplicateColumn, "column \"%s\" specified more than once", name)
		}
		seen[name] = true
		t := c.t
		if t.OID == OIDUnknown {
			t = TText
		}
		if t.OID == OIDRecord || t.OID == OIDVoid {
			return nil, errf(CodeInvalidTableDefinition, "column \"%s\" has pseudo-type %s", name, t)
		}
		out[i] = ViewColumn{Name: name, Type: t}
	}
	normalize(stmt, tr)
	text, err := q.Deparse(stmt)
	if err != nil {
		return nil, unsupported("the view's query cannot be stored: %v", err)
	}
	deps, graphs, err := verifyView(cat, text, out)
	if err != nil {
		return nil, err
	}
	return &ViewAnalysis{Query: text, Columns: out, Depends: deps, Graphs: graphs}, nil
}

// bindTraced binds a SELECT with name tracing on.
func bindTraced(cat Catalog, sql string, stmt *q.Node) (*bound, *viewTrace, error) {
	tr := newViewTrace()
	b := &binder{cat: &catalogSet{user: cat, loc: time.UTC}, sql: sql, trace: tr, noParams: true}
	bd, err := b.bindSelect(stmt.GetSelectStmt(), nil)
	if err != nil {
		return nil, nil, err
	}
	return bd, tr, nil
}

// verifyView binds stored view text again (as a reference to the view
// will) and checks it yields the view's columns; it returns the
// dependencies, recomputed from that binding.
func verifyView(cat Catalog, text string, cols []ViewColumn) ([]ViewDependency, []string, error) {
	const what = "the view's query cannot be stored"
	tree, err := q.Parse(text)
	if err != nil || len(tree.Stmts) != 1 {
		return nil, nil, unsupported("%s: its stored form does not parse (%v)", what, err)
	}
	stmt := proto.Clone(tree.Stmts[0].Stmt).(*q.Node)
	bd, tr, err := bindTraced(cat, "", stmt)
	if err != nil {
		e := unsupported("%s: its stored form does not bind", what)
		e.Detail = pgerr.Message(err)
		return nil, nil, e
	}
	if len(bd.cols) != len(cols) {
		return nil, nil, unsupported("%s: its stored form has %d columns for %d", what, len(bd.cols), len(cols))
	}
	for i, c := range bd.cols {
		if c.t.OID != cols[i].Type.OID && !(c.t.OID == OIDUnknown && cols[i].Type.OID == OIDText) {
			return nil, nil, unsupported("%s: column \"%s\" is %s in its stored form (%s)", what, cols[i].Name, c.t, cols[i].Type)
		}
	}
	return tr.dependencies(), tr.graphNames(), nil
}

// graphNames lists the property graphs the traced query read, sorted,
// each once.
func (t *viewTrace) graphNames() []string {
	out := slices.Clone(t.graphs)
	slices.Sort(out)
	return slices.Compact(out)
}

// dependencies lists the user relations (public's and created schemas')
// the traced query
// reads, with the columns it references, sorted by name and position.
func (t *viewTrace) dependencies() []ViewDependency {
	rels := map[*TableDef]map[int16]bool{}
	add := func(td *TableDef, attnum int16) {
		if td == nil || td.OID < firstUserOID && td.OID != 0 || td.Schema == "graph" || td.Schema == "pg_catalog" || td.Schema == "information_schema" {
			return
		}
		if rels[td] == nil {
			rels[td] = map[int16]bool{}
		}
		if attnum > 0 {
			rels[td][attnum] = true
		}
	}
	for _, td := range t.rels {
		add(td, 0)
	}
	for _, c := range t.cols {
		add(c.base, c.attnum)
	}
	for _, cs := range t.stars {
		for _, c := range cs {
			add(c.base, c.attnum)
		}
	}
	for _, c := range t.usings {
		add(c.base, c.attnum)
	}
	var out []ViewDependency
	for td, cols := range rels {
		d := ViewDependency{Schema: td.Schema, Name: td.Name}
		nums := make([]int, 0, len(cols))
		for n := range cols {
			nums = append(nums, int(n))
		}
		sort.Ints(nums)
		for _, n := range nums {
			if n <= len(td.Columns) {
				d.Columns = append(d.Columns, td.Columns[n-1].Name)
			}
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// normalize rewrites a bound query tree into its stored form (see the
// comment at the top of the file).
func normalize(stmt *q.Node, tr *viewTrace) {
	for rv, td := range tr.rels {
		if rv.Schemaname == "" {
			rv.Schemaname = td.Schema
		}
	}
	for cr, c := range tr.cols {
		if len(cr.Fields) == 1 && c.qual != "" {
			cr.Fields = []*q.Node{strNode(c.qual), cr.Fields[0]}
		}
	}
	for j, using := range tr.natural {
		j.IsNatural = false
		if len(using) == 0 {
			// no common columns: a cross join, spelled so it parses
			j.Quals = &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Val: &q.A_Const_Boolval{Boolval: &q.Boolean{Boolval: true}}, Location: -1}}}
			continue
		}
		for _, u := range using {
			j.UsingClause = append(j.UsingClause, strNode(u))
		}
	}
	for c, t := range tr.cases {
		if c.Defresult == nil {
			if tn := typeNameOf(t); tn != nil {
				null := &q.Node{Node: &q.Node_AConst{AConst: &q.A_Const{Isnull: true, Location: -1}}}
				c.Defresult = &q.Node{Node: &q.Node_TypeCast{TypeCast: &q.TypeCast{Arg: null, TypeName: tn, Location: -1}}}
			}
		}
	}
	for rf, names := range tr.funcs {
		// a FROM function's columns are named, as PostgreSQL prints them
		// (generate_series(1, 3) g(g)); the names are the ones it had
		if len(rf.Functions) != 1 || rf.Lateral || len(names) == 0 {
			continue
		}
		if rf.Alias == nil {
			fc := rf.Functions[0].GetList().GetItems()[0].GetFuncCall()
			if fc == nil {
				continue
			}
			rf.Alias = &q.Alias{Aliasname: fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval()}
		}
		if len(rf.Alias.Colnames) == 0 {
			for _, n := range names {
				rf.Alias.Colnames = append(rf.Alias.Colnames, strNode(n))
			}
		}
	}
	for c, text := range tr.text {
		if sv := c.GetSval(); sv != nil {
			sv.Sval = text
		}
	}
	textComparisons(stmt, tr)
	explicit := map[*q.A_Const]bool{} // literals already under a cast or in special syntax
	walkProto(stmt.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *q.SelectStmt:
			x.TargetList = expandTargets(x.TargetList, tr)
		case *q.TypeCast:
			if c := x.Arg.GetAConst(); c != nil {
				explicit[c] = true
			}
		case *q.FuncCall:
			// EXTRACT(field FROM …) and NORMALIZE(…, form) keep their
			// keyword argument as the syntax spells it
			name := x.Funcname[len(x.Funcname)-1].GetString_().GetSval()
			if x.Funcformat == q.CoercionForm_COERCE_SQL_SYNTAX && (name == "extract" || name == "normalize" || name == "is_normalized") {
				for _, a := range x.Args {
					if c := a.GetAConst(); c != nil {
						explicit[c] = true
					}
				}
			}
		}
	})
	walkProto(stmt.ProtoReflect(), func(m protoreflect.Message) {
		n, ok := m.Interface().(*q.Node)
		if !ok {
			return
		}
		c := n.GetAConst()
		if c == nil || explicit[c] {
			return
		}
		t, ok := tr.consts[c]
		if !ok || t.OID == OIDUnknown {
			return
		}
		if t.OID == OIDVarchar || t.OID == OIDBpchar {
			// a literal has no length: the cast must not truncate it
			t.Mod = -1
		}
		if tn := typeNameOf(t); tn != nil {
			explicit[c] = true // the walk goes on into the new cast
			n.Node = &q.Node_TypeCast{TypeCast: &q.TypeCast{Arg: &q.Node{Node: &q.Node_AConst{AConst: c}}, TypeName: tn, Location: -1}}
		}
	})
	// last: the keys copy finished select-list entries
	walkProto(stmt.ProtoReflect(), func(m protoreflect.Message) {
		if x, ok := m.Interface().(*q.SelectStmt); ok {
			outputKeys(x, tr)
		}
	})
}

// comparisonOps are the operators whose result (boolean) does not
// depend on the operand type they compare in (|| of varchar and text is
// text either way).
var comparisonOps = map[string]bool{"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"~~": true, "!~~": true, "~~*": true, "!~~*": true}

// textComparisons spells a comparison of a varchar column with literals
// as PostgreSQL resolves it, in text (varchar has no operators of its
// own): c::text = 'y'::text. The result is the same; the stored text
// then prints as PostgreSQL's does.
func textComparisons(stmt *q.Node, tr *viewTrace) {
	isVarcharCol := func(n *q.Node) bool {
		cr := n.GetColumnRef()
		if cr == nil {
			return false
		}
		c, ok := tr.cols[cr]
		return ok && c.base != nil && c.attnum > 0 && int(c.attnum) <= len(c.base.Columns) && c.base.Columns[c.attnum-1].Type.OID == OIDVarchar
	}
	varcharLit := func(n *q.Node) (*q.A_Const, bool) {
		c := n.GetAConst()
		if c == nil {
			return nil, false
		}
		t, ok := tr.consts[c]
		return c, ok && t.OID == OIDVarchar
	}
	toText := func(n *q.Node) {
		inner := &q.Node{Node: n.Node}
		n.Node = &q.Node_TypeCast{TypeCast: &q.TypeCast{Arg: inner, TypeName: typeNameOf(TText), Location: -1}}
	}
	colType := func(n *q.Node) uint32 {
		if cr := n.GetColumnRef(); cr != nil {
			if c, ok := tr.cols[cr]; ok && c.base != nil && c.attnum > 0 && int(c.attnum) <= len(c.base.Columns) {
				return c.base.Columns[c.attnum-1].Type.OID
			}
		}
		return 0
	}
	walkProto(stmt.ProtoReflect(), func(m protoreflect.Message) {
		e, ok := m.Interface().(*q.A_Expr)
		if !ok || len(e.Name) == 0 || e.Lexpr == nil || e.Rexpr == nil {
			return
		}
		op := e.Name[len(e.Name)-1].GetString_().GetSval()
		var lits []*q.Node
		switch e.Kind {
		case q.A_Expr_Kind_AEXPR_OP, q.A_Expr_Kind_AEXPR_LIKE, q.A_Expr_Kind_AEXPR_ILIKE, q.A_Expr_Kind_AEXPR_DISTINCT, q.A_Expr_Kind_AEXPR_NOT_DISTINCT:
			if !comparisonOps[op] && op != "||" {
				return
			}
			lits = []*q.Node{e.Rexpr}
			// a varchar column against a text column: the varchar one
			// is cast
			if l, r := colType(e.Lexpr), colType(e.Rexpr); l == OIDVarchar && r == OIDText {
				toText(e.Lexpr)
				return
			} else if l == OIDText && r == OIDVarchar {
				toText(e.Rexpr)
				return
			}
		case q.A_Expr_Kind_AEXPR_IN:
			lits = e.Rexpr.GetList().GetItems()
		default:
			return
		}
		col := e.Lexpr
		if e.Kind != q.A_Expr_Kind_AEXPR_IN && !isVarcharCol(col) && isVarcharCol(e.Rexpr) {
			col, lits = e.Rexpr, []*q.Node{e.Lexpr}
		}
		if !isVarcharCol(col) || len(lits) == 0 {
			return
		}
		if e.Kind != q.A_Expr_Kind_AEXPR_IN && isVarcharCol(lits[0]) {
			// two varchar columns compare as text too
			toText(col)
			toText(lits[0])
			return
		}
		var cs []*q.A_Const
		for _, l := range lits {
			c, ok := varcharLit(l)
			if !ok {
				return
			}
			cs = append(cs, c)
		}
		for _, c := range cs {
			tr.consts[c] = TText
		}
		toText(col)
	})
}

// outputKeys spells ORDER BY, DISTINCT ON and GROUP BY keys that name a
// select-list column (by name or position) as that column when it is a
// plain column reference, as PostgreSQL prints them.
func outputKeys(sel *q.SelectStmt, tr *viewTrace) {
	if len(sel.TargetList) == 0 || sel.Op != q.SetOperation_SETOP_NONE && sel.Op != q.SetOperation_SET_OPERATION_UNDEFINED {
		return
	}
	target := func(n *q.Node, byName bool) *q.Node { // byName: a bare name may be an output
		var rt *q.ResTarget
		if c := n.GetAConst(); c != nil && c.GetIval() != nil {
			k := int(c.GetIval().Ival)
			if k >= 1 && k <= len(sel.TargetList) {
				rt = sel.TargetList[k-1].GetResTarget()
			}
		} else if cr := n.GetColumnRef(); byName && cr != nil && len(cr.Fields) == 1 && cr.Fields[0].GetString_() != nil {
			if _, bound := tr.cols[cr]; bound {
				return nil // an input column (already qualified)
			}
			name := cr.Fields[0].GetString_().Sval
			for _, t := range sel.TargetList {
				if t.GetResTarget().GetName() == name {
					if rt != nil {
						return nil
					}
					rt = t.GetResTarget()
				}
			}
		}
		if rt == nil || !safeToRepeat(rt.Val) {
			return nil
		}
		return proto.Clone(rt.Val).(*q.Node)
	}
	for _, s := range sel.SortClause {
		if sb := s.GetSortBy(); sb != nil {
			if t := target(sb.Node, true); t != nil {
				sb.Node = t
			}
		}
	}
	for i, d := range sel.DistinctClause {
		if d.GetNode() == nil {
			continue
		}
		if t := target(d, true); t != nil {
			sel.DistinctClause[i] = t
		}
	}
	for i, g := range sel.GroupClause {
		if t := target(g, true); t != nil {
			sel.GroupClause[i] = t
		}
	}
}

// safeToRepeat reports an expression that can be written a second time
// (as a sort or group key) without changing the result: no * and no
// volatile, set-returning or advisory-lock calls, no subqueries.
func safeToRepeat(n *q.Node) bool {
	if cr := n.GetColumnRef(); cr != nil {
		return !isStar(cr)
	}
	ok := true
	walkProto(n.ProtoReflect(), func(m protoreflect.Message) {
		switch x := m.Interface().(type) {
		case *q.SubLink, *q.ParamRef:
			ok = false
		case *q.ColumnRef:
			if isStar(x) {
				ok = false
			}
		case *q.FuncCall:
			name := x.Funcname[len(x.Funcname)-1].GetString_().GetSval()
			if volatileFuncs[name] || isSetReturning(name) || strings.Contains(name, "advisory") || x.Over != nil {
				ok = false
			}
		}
	})
	return ok
}

// expandTargets replaces * entries by the columns they expanded to and
// names every entry.
func expandTargets(list []*q.Node, tr *viewTrace) []*q.Node {
	var out []*q.Node
	for _, n := range list {
		rt := n.GetResTarget()
		if rt == nil {
			out = append(out, n)
			continue
		}
		if cr := rt.Val.GetColumnRef(); cr != nil && isStar(cr) {
			exp, ok := tr.stars[cr]
			if !ok {
				out = append(out, n) // not bound (cannot happen for a traced query)
				continue
			}
			for _, c := range exp {
				fields := []*q.Node{strNode(c.name)}
				if c.qual != "" {
					fields = []*q.Node{strNode(c.qual), strNode(c.name)}
				}
				val := &q.Node{Node: &q.Node_ColumnRef{ColumnRef: &q.ColumnRef{Fields: fields, Location: -1}}}
				out = append(out, &q.Node{Node: &q.Node_ResTarget{ResTarget: &q.ResTarget{Name: c.name, Val: val, Location: -1}}})
			}
			continue
		}
		if rt.Name == "" {
			if name, ok := tr.names[rt]; ok {
				rt.Name = name
			}
		}
		out = append(out, n)
	}
	return out
}

// castTypeNames caches the parse-tree spelling of types (for literal casts).
var castTypeNames sync.Map // Type → *q.TypeName

// typeNameOf is the TypeName that names t, nil when t has no SQL name.
func typeNameOf(t Type) *q.TypeName {
	if v, ok := castTypeNames.Load(t); ok {
		return proto.Clone(v.(*q.TypeName)).(*q.TypeName)
	}
	if t.OID == OIDUnknown || t.OID == OIDRecord {
		return nil
	}
	tree, err := q.Parse("SELECT NULL::" + FormatType(t.OID, t.Mod))
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	tc := tree.Stmts[0].Stmt.GetSelectStmt().GetTargetList()[0].GetResTarget().GetVal().GetTypeCast()
	if tc == nil {
		return nil
	}
	castTypeNames.Store(t, tc.TypeName)
	return proto.Clone(tc.TypeName).(*q.TypeName)
}

// strNode is a String node (a name in a ColumnRef or USING list).
func strNode(s string) *q.Node { return &q.Node{Node: &q.Node_String_{String_: &q.String{Sval: s}}} }
