package exec

import (
	"strconv"
	"strings"
	"sync"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// pg_get_viewdef's text: the stored query printed in PostgreSQL's layout
// (each select-list entry on its own line, FROM/WHERE/GROUP BY/… on lines
// of their own, subqueries indented) with PostgreSQL's spelling of what
// the normalized query holds: qualified columns, AS only where the name
// differs from the column's, casts with format_type names, IN lists as
// = ANY (ARRAY[…]), LIKE as ~~, BETWEEN as two comparisons. pretty
// (pg_get_viewdef(v, true), psql's \d+) omits parentheses precedence
// makes redundant; otherwise every operator expression is parenthesized,
// as PostgreSQL prints pg_views.definition.
//
// FROM entries named like an entry of an enclosing level print as
// name_1, name_2 (PostgreSQL makes them unique the same way).
//
// Known differences (the text is printed from the normalized parse tree,
// not from an analyzed query): implicit casts PostgreSQL inserts are
// shown only where the normalized query spells them (literals, numbers
// converted to numeric or float, varchar compared as text), not e.g. on
// function arguments; sort and group keys that repeat a select-list
// entry with a volatile call or a subquery keep their name or position;
// timestamp literals keep their text (PostgreSQL folds them in the
// session's time zone); BETWEEN SYMMETRIC, SIMILAR TO, ROWS FROM and
// expressions the printer does not know are printed by libpg_query's
// deparser on one line.

// viewDefinition is pg_get_viewdef of a SQL view.
func viewDefinition(td *TableDef, pretty bool) (string, bool) {
	if td == nil || td.View == nil {
		return "", false
	}
	sel, err := parseViewQuery(td)
	if err != nil {
		return "", false
	}
	names := make([]string, len(td.Columns))
	for i, c := range td.Columns {
		names[i] = c.Name
	}
	p := &viewPrinter{pretty: pretty}
	p.query(sel, 0, names, true)
	return p.String() + ";", true
}

// viewPrinter accumulates the text; indent is the current query level's
// indentation (PostgreSQL's indentLevel); scopes map each query level's
// FROM entry names to the names printed for them.
type viewPrinter struct {
	buf    []byte
	indent int
	pretty bool
	scopes []map[string]string
}

// pushScope names the FROM entries of a query level as PostgreSQL does
// in a view's text: an entry whose name an enclosing level (or an
// earlier entry of this one) already uses is printed as name_1, name_2, …
// and so are the column references qualified with it.
func (p *viewPrinter) pushScope(sel *q.SelectStmt) {
	used := map[string]bool{}
	for _, s := range p.scopes {
		for _, printed := range s {
			used[printed] = true
		}
	}
	scope := map[string]string{}
	add := func(name string) {
		if name == "" {
			return
		}
		if _, dup := scope[name]; dup {
			return
		}
		printed := name
		for i := 1; used[printed]; i++ {
			printed = name + "_" + strconv.Itoa(i)
		}
		used[printed] = true
		scope[name] = printed
	}
	var visit func(n *q.Node)
	visit = func(n *q.Node) {
		switch x := n.GetNode().(type) {
		case *q.Node_RangeVar:
			if x.RangeVar.Alias != nil {
				add(x.RangeVar.Alias.Aliasname)
			} else {
				add(x.RangeVar.Relname)
			}
		case *q.Node_RangeSubselect:
			if x.RangeSubselect.Alias != nil {
				add(x.RangeSubselect.Alias.Aliasname)
			}
		case *q.Node_RangeFunction:
			if x.RangeFunction.Alias != nil {
				add(x.RangeFunction.Alias.Aliasname)
			}
		case *q.Node_JoinExpr:
			visit(x.JoinExpr.Larg)
			visit(x.JoinExpr.Rarg)
			if x.JoinExpr.Alias != nil {
				add(x.JoinExpr.Alias.Aliasname)
			}
		}
	}
	for _, f := range sel.FromClause {
		visit(f)
	}
	p.scopes = append(p.scopes, scope)
}

func (p *viewPrinter) popScope() { p.scopes = p.scopes[:len(p.scopes)-1] }

// printedName is the name a qualifier prints as (the innermost level
// that has an entry of that name).
func (p *viewPrinter) printedName(name string) string {
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if printed, ok := p.scopes[i][name]; ok {
			return printed
		}
	}
	return name
}

func (p *viewPrinter) String() string { return string(p.buf) }

func (p *viewPrinter) write(s string) { p.buf = append(p.buf, s...) }

// keyword starts a new line for a clause: the indentation moves by
// before, the line is indented by it plus plus, and then moves by after.
func (p *viewPrinter) keyword(s string, before, after, plus int) {
	p.indent = max(p.indent+before, 0)
	for len(p.buf) > 0 && p.buf[len(p.buf)-1] == ' ' {
		p.buf = p.buf[:len(p.buf)-1]
	}
	p.write("\n" + strings.Repeat(" ", p.indent+plus) + s)
	p.indent = max(p.indent+after, 0)
}

// sub prints a nested query at the current indentation (its own level).
func (p *viewPrinter) sub(sel *q.SelectStmt, names []string, visible bool) {
	saved := p.indent
	p.query(sel, p.indent, names, visible)
	p.indent = saved
}

// Indentation steps (PostgreSQL's PRETTYINDENT_STD, _JOIN, _VAR).
const (
	indentStd  = 8
	indentJoin = 4
	indentVar  = 4
)

// query prints a SELECT, VALUES or set operation at indentation base.
// names, when set, are the result column names (the view's columns);
// visible says the columns' names are visible to the reader (a sublink's
// are not, so its "?column?" needs no AS).
func (p *viewPrinter) query(sel *q.SelectStmt, base int, names []string, visible bool) {
	p.indent = base
	p.pushScope(sel)
	defer p.popScope()
	if sel.WithClause != nil {
		p.with(sel.WithClause)
	}
	switch {
	case sel.Op != q.SetOperation_SETOP_NONE && sel.Op != q.SetOperation_SET_OPERATION_UNDEFINED:
		p.setOp(sel, names, visible, true)
		p.indent = base + indentStd
	case len(sel.ValuesLists) > 0:
		p.indent = base + indentStd
		p.write(" VALUES ")
		p.values(sel.ValuesLists)
	default:
		p.basicSelect(sel, names, visible)
	}
	if len(sel.SortClause) > 0 {
		p.keyword(" ORDER BY ", -indentStd, indentStd, 1)
		for i, s := range sel.SortClause {
			if i > 0 {
				p.write(", ")
			}
			p.sortBy(s.GetSortBy())
		}
	}
	if sel.LimitOffset != nil {
		p.keyword(" OFFSET ", -indentStd, indentStd, 0)
		p.expr(sel.LimitOffset, nil)
	}
	if sel.LimitCount != nil {
		if sel.LimitOption == q.LimitOption_LIMIT_OPTION_WITH_TIES {
			p.keyword(" FETCH FIRST ", -indentStd, indentStd, 0)
			p.expr(sel.LimitCount, nil)
			p.write(" ROWS WITH TIES")
		} else {
			p.keyword(" LIMIT ", -indentStd, indentStd, 0)
			if c := sel.LimitCount.GetAConst(); c != nil && c.Isnull {
				p.write("ALL")
			} else {
				p.expr(sel.LimitCount, nil)
			}
		}
	}
	for _, l := range sel.LockingClause {
		if lc := l.GetLockingClause(); lc != nil {
			p.keyword(" FOR "+lockingWord(lc.Strength), -indentStd, indentStd, 0)
		}
	}
}

func lockingWord(s q.LockClauseStrength) string {
	switch s {
	case q.LockClauseStrength_LCS_FORKEYSHARE:
		return "KEY SHARE"
	case q.LockClauseStrength_LCS_FORSHARE:
		return "SHARE"
	case q.LockClauseStrength_LCS_FORNOKEYUPDATE:
		return "NO KEY UPDATE"
	}
	return "UPDATE"
}

// with prints a WITH clause: each query in parentheses on lines of its own.
func (p *viewPrinter) with(w *q.WithClause) {
	p.indent += indentStd
	p.write(" WITH ")
	if w.Recursive {
		p.write("RECURSIVE ")
	}
	for i, n := range w.Ctes {
		cte := n.GetCommonTableExpr()
		if i > 0 {
			p.write(", ")
		}
		p.write(quoteIdentPG(cte.Ctename))
		if len(cte.Aliascolnames) > 0 {
			p.write("(" + strings.Join(nameList(cte.Aliascolnames), ", ") + ")")
		}
		p.write(" AS ")
		switch cte.Ctematerialized {
		case q.CTEMaterialize_CTEMaterializeAlways:
			p.write("MATERIALIZED ")
		case q.CTEMaterialize_CTEMaterializeNever:
			p.write("NOT MATERIALIZED ")
		}
		p.write("(")
		p.keyword("", 0, 0, 0)
		if sel := cte.Ctequery.GetSelectStmt(); sel != nil {
			p.sub(sel, nil, true)
		} else {
			p.fallback(cte.Ctequery)
		}
		p.keyword("", 0, 0, 0)
		p.write(")")
	}
	p.indent -= indentStd
	p.keyword("", 0, 0, 0)
}

// setOp prints UNION/INTERSECT/EXCEPT; a nested operation of another kind
// (and any arm with its own ORDER BY, LIMIT or WITH) is parenthesized.
func (p *viewPrinter) setOp(sel *q.SelectStmt, names []string, visible, top bool) {
	base := p.indent
	op := map[q.SetOperation]string{q.SetOperation_SETOP_UNION: "UNION", q.SetOperation_SETOP_INTERSECT: "INTERSECT", q.SetOperation_SETOP_EXCEPT: "EXCEPT"}[sel.Op]
	if sel.All {
		op += " ALL"
	}
	isSetOp := func(s *q.SelectStmt) bool {
		return s.Op != q.SetOperation_SETOP_NONE && s.Op != q.SetOperation_SET_OPERATION_UNDEFINED
	}
	arm := func(s *q.SelectStmt, left bool, names []string, visible bool) bool {
		paren := len(s.SortClause) > 0 || s.LimitCount != nil || s.LimitOffset != nil || s.WithClause != nil
		if isSetOp(s) && !paren {
			paren = !left || s.Op != sel.Op || s.All != sel.All
		}
		if paren {
			p.write("(")
			p.indent = base + indentStd
			p.keyword("", 0, 0, 0)
			if isSetOp(s) && len(s.SortClause) == 0 && s.LimitCount == nil && s.LimitOffset == nil && s.WithClause == nil {
				p.setOp(s, names, visible, false)
			} else {
				p.sub(s, names, visible)
			}
			p.indent = base
			p.keyword(")", 0, 0, 0)
			return true
		}
		p.indent = base
		if isSetOp(s) {
			p.setOp(s, names, visible, false)
		} else {
			p.sub(s, names, visible)
		}
		p.indent = base
		return false
	}
	closed := arm(sel.Larg, true, names, visible)
	if closed {
		p.write(" " + op)
	} else {
		p.keyword(op, 0, 0, 0)
	}
	p.keyword("", 0, 0, 0)
	// the right arm's names: the result's at the top, else not visible
	var rn []string
	if top {
		rn = names
	}
	arm(sel.Rarg, false, rn, false)
}

// basicSelect prints SELECT … FROM … WHERE … GROUP BY … HAVING … WINDOW.
func (p *viewPrinter) basicSelect(sel *q.SelectStmt, names []string, visible bool) {
	base := p.indent
	p.indent += indentStd
	p.write(" SELECT")
	if len(sel.DistinctClause) > 0 {
		if len(sel.DistinctClause) == 1 && sel.DistinctClause[0].GetNode() == nil {
			p.write(" DISTINCT")
		} else {
			p.write(" DISTINCT ON (")
			for i, d := range sel.DistinctClause {
				if i > 0 {
					p.write(", ")
				}
				p.expr(d, nil)
			}
			p.write(")")
		}
	}
	for i, n := range sel.TargetList {
		rt := n.GetResTarget()
		if rt == nil {
			continue
		}
		t := &viewPrinter{indent: p.indent, pretty: p.pretty, scopes: p.scopes}
		t.expr(rt.Val, nil)
		name := rt.Name
		if i < len(names) {
			name = names[i]
		}
		attname := "?column?"
		if visible {
			attname = ""
		}
		if cr := rt.Val.GetColumnRef(); cr != nil {
			attname = cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
		}
		if name != "" && (attname == "" || attname != name) {
			t.write(" AS " + quoteIdentPG(name))
		}
		text := t.String()
		switch {
		case i == 0:
			if !strings.HasPrefix(text, "\n") {
				p.write(" ")
			}
		case strings.HasPrefix(text, "\n"):
			p.write(",")
		default:
			p.write(",\n" + strings.Repeat(" ", base+indentVar))
		}
		p.write(text)
	}
	if len(sel.FromClause) > 0 {
		p.keyword(" FROM ", -indentStd, indentStd, 2)
		for i, f := range sel.FromClause {
			if i > 0 {
				p.write(",\n" + strings.Repeat(" ", base+indentVar))
			}
			p.fromItem(f)
		}
	}
	if sel.WhereClause != nil {
		p.keyword(" WHERE ", -indentStd, indentStd, 1)
		p.expr(sel.WhereClause, nil)
	}
	if len(sel.GroupClause) > 0 {
		p.keyword(" GROUP BY ", -indentStd, indentStd, 1)
		for i, g := range sel.GroupClause {
			if i > 0 {
				p.write(", ")
			}
			p.groupKey(g)
		}
	}
	if sel.HavingClause != nil {
		p.keyword(" HAVING ", -indentStd, indentStd, 0)
		p.expr(sel.HavingClause, nil)
	}
	if len(sel.WindowClause) > 0 {
		p.keyword(" WINDOW ", -indentStd, indentStd, 1)
		for i, w := range sel.WindowClause {
			if i > 0 {
				p.write(", ")
			}
			wd := w.GetWindowDef()
			p.write(quoteIdentPG(wd.Name) + " AS ")
			p.windowSpec(wd)
		}
	}
}

// values prints VALUES rows: (a,b), (c,d).
func (p *viewPrinter) values(rows []*q.Node) {
	for i, r := range rows {
		if i > 0 {
			p.write(", ")
		}
		p.write("(")
		for j, it := range r.GetList().GetItems() {
			if j > 0 {
				p.write(",")
			}
			p.expr(it, nil)
		}
		p.write(")")
	}
}

// fromItem prints one FROM entry (relations without their schema when it
// is public or pg_catalog, as PostgreSQL prints visible relations).
func (p *viewPrinter) fromItem(n *q.Node) {
	switch x := n.GetNode().(type) {
	case *q.Node_RangeVar:
		rv := x.RangeVar
		if !rv.Inh {
			p.write("ONLY ")
		}
		if rv.Schemaname != "" && rv.Schemaname != "public" && rv.Schemaname != "pg_catalog" {
			p.write(quoteIdentPG(rv.Schemaname) + ".")
		}
		p.write(quoteIdentPG(rv.Relname))
		if rv.Alias != nil {
			p.alias(rv.Alias)
		} else if printed := p.printedName(rv.Relname); printed != rv.Relname {
			p.write(" " + quoteIdentPG(printed))
		}
	case *q.Node_RangeSubselect:
		if x.RangeSubselect.Lateral {
			p.write("LATERAL ")
		}
		p.write("(")
		if sel := x.RangeSubselect.Subquery.GetSelectStmt(); sel != nil {
			p.sub(sel, nil, true)
		}
		p.write(")")
		p.alias(x.RangeSubselect.Alias)
	case *q.Node_JoinExpr:
		p.join(x.JoinExpr)
	case *q.Node_RangeFunction:
		rf := x.RangeFunction
		items := rf.Functions
		if len(items) != 1 || rf.IsRowsfrom || len(items[0].GetList().GetItems()) != 1 || len(items[0].GetList().GetItems()[0].GetFuncCall().GetFuncname()) == 0 {
			p.fallbackFrom(n)
			return
		}
		if rf.Lateral {
			p.write("LATERAL ")
		}
		p.funcCall(items[0].GetList().GetItems()[0].GetFuncCall())
		if rf.Ordinality {
			p.write(" WITH ORDINALITY")
		}
		p.alias(rf.Alias)
	default:
		p.fallbackFrom(n)
	}
}

func (p *viewPrinter) alias(a *q.Alias) {
	if a == nil {
		return
	}
	p.write(" " + quoteIdentPG(p.printedName(a.Aliasname)))
	if len(a.Colnames) > 0 {
		p.write("(" + strings.Join(nameList(a.Colnames), ", ") + ")")
	}
}

// join prints a JOIN: the right side on a new line.
func (p *viewPrinter) join(j *q.JoinExpr) {
	paren := j.Alias != nil || !p.pretty
	if paren {
		p.write("(")
	}
	p.fromItem(j.Larg)
	word := " JOIN "
	switch j.Jointype {
	case q.JoinType_JOIN_LEFT:
		word = " LEFT JOIN "
	case q.JoinType_JOIN_RIGHT:
		word = " RIGHT JOIN "
	case q.JoinType_JOIN_FULL:
		word = " FULL JOIN "
	}
	if j.Jointype == q.JoinType_JOIN_INNER && j.Quals == nil && len(j.UsingClause) == 0 && !j.IsNatural {
		word = " CROSS JOIN "
	}
	if j.IsNatural {
		word = " NATURAL" + word
	}
	p.keyword(word, -indentStd, indentStd, indentJoin)
	if r := j.Rarg.GetJoinExpr(); r != nil && r.Alias == nil && p.pretty {
		p.write("(")
		p.fromItem(j.Rarg)
		p.write(")")
	} else {
		p.fromItem(j.Rarg)
	}
	if len(j.UsingClause) > 0 {
		p.write(" USING (" + strings.Join(nameList(j.UsingClause), ", ") + ")")
	} else if j.Quals != nil {
		p.write(" ON ")
		if !p.pretty {
			p.write("(")
		}
		p.expr(j.Quals, nil)
		if !p.pretty {
			p.write(")")
		}
	}
	if paren {
		p.write(")")
		p.alias(j.Alias)
	}
}

// sortBy prints an ORDER BY key; one that is not a column, constant or
// function call is parenthesized, as PostgreSQL prints sort keys.
func (p *viewPrinter) sortBy(sb *q.SortBy) {
	p.groupKey(sb.Node)
	switch sb.SortbyDir {
	case q.SortByDir_SORTBY_DESC:
		p.write(" DESC")
		if sb.SortbyNulls == q.SortByNulls_SORTBY_NULLS_LAST {
			p.write(" NULLS LAST")
		}
	default:
		if sb.SortbyNulls == q.SortByNulls_SORTBY_NULLS_FIRST {
			p.write(" NULLS FIRST")
		}
	}
}

// groupKey prints a GROUP BY or ORDER BY key: a column or constant bare;
// anything else parenthesized when pretty, and a function call always
// (it could read as something else), as PostgreSQL prints sort keys.
func (p *viewPrinter) groupKey(n *q.Node) {
	paren := true
	switch n.GetNode().(type) {
	case *q.Node_ColumnRef, *q.Node_AConst:
		paren = false
	case *q.Node_FuncCall:
	default:
		paren = p.pretty
	}
	if paren {
		p.write("(")
	}
	p.expr(n, nil)
	if paren {
		p.write(")")
	}
}

func nameList(ns []*q.Node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = quoteIdentPG(n.GetString_().GetSval())
	}
	return out
}

// fallback prints a node with libpg_query's deparser (one line).
func (p *viewPrinter) fallback(n *q.Node) {
	s, err := q.Deparse(n)
	if err != nil {
		p.write("?")
		return
	}
	p.write(s)
}

func (p *viewPrinter) fallbackFrom(n *q.Node) {
	s, err := q.Deparse(&q.Node{Node: &q.Node_SelectStmt{SelectStmt: &q.SelectStmt{FromClause: []*q.Node{n}}}})
	if err != nil {
		p.write("?")
		return
	}
	p.write(strings.TrimPrefix(s, "SELECT FROM "))
}

// fallbackExpr prints an expression with libpg_query's deparser.
func (p *viewPrinter) fallbackExpr(n *q.Node) {
	sel := &q.SelectStmt{TargetList: []*q.Node{{Node: &q.Node_ResTarget{ResTarget: &q.ResTarget{Val: n}}}}}
	s, err := q.Deparse(&q.Node{Node: &q.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		p.write("?")
		return
	}
	p.write(strings.TrimPrefix(s, "SELECT "))
}

// quoteIdentPG quotes a name as PostgreSQL's quote_identifier: unless it
// is lower case letters, digits and underscores (not first a digit) and
// not a keyword other than an unreserved one.
var nonUnreserved = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, k := range keywords() {
		if k.cat != "U" {
			m[k.word] = true
		}
	}
	return m
})

// QuoteIdent quotes an identifier as PostgreSQL's quote_ident does: bare
// when it is lower case and not a keyword that needs quoting.
func QuoteIdent(s string) string { return quoteIdentPG(s) }

func quoteIdentPG(s string) string {
	safe := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			safe = false
			break
		}
	}
	if safe && !nonUnreserved()[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// constText prints a literal as PostgreSQL prints a constant: numbers that
// read back as the same type bare, others quoted with their type.
func literalText(c *q.A_Const) (text string, needCast string) {
	if c.Isnull {
		return "NULL", ""
	}
	switch v := c.Val.(type) {
	case *q.A_Const_Ival:
		if v.Ival.Ival < 0 {
			return "'" + strconv.Itoa(int(v.Ival.Ival)) + "'", "integer"
		}
		return strconv.Itoa(int(v.Ival.Ival)), ""
	case *q.A_Const_Fval:
		s := v.Fval.Fval
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			if n < 0 {
				return "'" + s + "'", "bigint"
			}
			return "'" + s + "'", "bigint"
		}
		if strings.HasPrefix(s, "-") || !strings.ContainsAny(s, ".") {
			return "'" + s + "'", "numeric"
		}
		return s, ""
	case *q.A_Const_Boolval:
		if v.Boolval.Boolval {
			return "true", ""
		}
		return "false", ""
	case *q.A_Const_Sval:
		// standard_conforming_strings: backslashes are literal
		return "'" + strings.ReplaceAll(v.Sval.Sval, "'", "''") + "'", ""
	case *q.A_Const_Bsval:
		return "B'" + strings.TrimPrefix(v.Bsval.Bsval, "b") + "'", ""
	}
	return "NULL", ""
}
