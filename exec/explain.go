package exec

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
)

// EXPLAIN: the bound operator tree printed in PostgreSQL's text layout
// ("->  " children, detail lines such as Filter:, Hash Cond:, Index
// Cond:). Node names are PostgreSQL's for the same work: Seq Scan, Index
// Scan (a key lookup, naming the index or key that serves it), Hash Join
// (with its Hash child), Nested Loop over an inner Index Scan (a lookup
// join, ops_indexjoin.go), Aggregate/HashAggregate, Sort, Limit, Unique,
// Append, Recursive Union, WorkTable Scan, CTE Scan, Function Scan,
// Values Scan, WindowAgg, ProjectSet, Result. Projections are not nodes
// (as in PostgreSQL); subqueries inside expressions are not shown.
// There are no costs: "(rows=N)" is the executor's row estimate (table
// row counts, key counts of lookups, a third for a filter), not
// statistics. The join method shown without ANALYZE is the one the
// executor predicts from those estimates; the real choice is made at run
// time (ops_indexjoin.go), and with ANALYZE the plan shows the method
// used, each node's actual rows, loops and time (first batch..end, in
// milliseconds, per loop, excluding the time its parent spent on its
// batches). ANALYZE runs the query serially (the instrumented plan is no
// parallel pipeline).

// nodeStats is what ANALYZE records for one node.
type nodeStats struct {
	rows, loops  int64
	first, total time.Duration
	method       string // joins: the method used ("lookup", "lookup swapped", "hash")
}

// instrNode counts the rows, loops and time of its input.
type instrNode struct {
	input plan
	st    *nodeStats
}

func (n *instrNode) columns() []colInfo { return n.input.columns() }

func (n *instrNode) run(ec *evalCtx, emit func(*Batch) error) error {
	n.st.loops++
	start := time.Now()
	var inEmit time.Duration
	first := true
	err := n.input.run(ec, func(b *Batch) error {
		if first {
			n.st.first += time.Since(start) - inEmit
			first = false
		}
		n.st.rows += int64(b.Live())
		t := time.Now()
		err := emit(b)
		inEmit += time.Since(t)
		return err
	})
	if first {
		n.st.first += time.Since(start) - inEmit
	}
	n.st.total += time.Since(start) - inEmit
	return err
}

// bare is p without an ANALYZE wrapper.
func bare(p plan) plan {
	if in, ok := p.(*instrNode); ok {
		return in.input
	}
	return p
}

// recordMethod notes the join method a run chose (EXPLAIN ANALYZE).
func recordMethod(ec *evalCtx, j *joinNode, method string) {
	if st := ec.run.joinStats; st != nil {
		if s := st[j]; s != nil {
			s.method = method
		}
	}
}

// recordLookups adds the rows lookups found to the ANALYZE counts of the
// indexed input (which the lookup join reads without running it).
func recordLookups(in plan, rows int, took time.Duration) {
	if w, ok := in.(*instrNode); ok {
		w.st.loops++
		w.st.rows += int64(rows)
		w.st.first += took
		w.st.total += took
	}
}

// instrument wraps every node of p (children first) for ANALYZE. A
// filter stays directly over its scan (one node in the output, and the
// shape a lookup join recognizes).
func instrument(p plan, joins map[*joinNode]*nodeStats) plan {
	switch x := p.(type) {
	case *filterNode:
		if _, ok := x.input.(*scanNode); !ok {
			x.input = instrument(x.input, joins)
		}
	case *projectNode:
		x.input = instrument(x.input, joins)
	case *joinNode:
		x.left = instrument(x.left, joins)
		x.right = instrument(x.right, joins)
		st := &nodeStats{}
		joins[x] = st
		return &instrNode{input: x, st: st}
	case *aggNode:
		x.input = instrument(x.input, joins)
	case *sortNode:
		x.input = instrument(x.input, joins)
	case *limitNode:
		x.input = instrument(x.input, joins)
	case *tiesLimitNode:
		x.input = instrument(x.input, joins)
	case *distinctNode:
		x.input = instrument(x.input, joins)
	case *setOpNode:
		x.left = instrument(x.left, joins)
		x.right = instrument(x.right, joins)
	case *materialNode:
		x.input = instrument(x.input, joins)
	case *recursiveNode:
		x.base = instrument(x.base, joins)
		x.step = instrument(x.step, joins)
	case *windowNode:
		x.input = instrument(x.input, joins)
	case *lateralNode:
		x.left = instrument(x.left, joins)
	case *projectSetNode:
		x.input = instrument(x.input, joins)
	case *prefetchNode:
		return instrument(x.input, joins) // serial under ANALYZE
	}
	return &instrNode{input: p, st: &nodeStats{}}
}

// Explain returns the statement's plan as EXPLAIN's text lines; with
// analyze it first runs the statement (results discarded) and reports
// what each node did, then "Planning Time"-less PostgreSQL footer lines.
func (p *Prepared) Explain(ctx context.Context, sess *Session, params []any, analyze bool) ([]string, error) {
	e, took, err := p.explain(ctx, sess, params, analyze)
	if err != nil {
		return nil, err
	}
	if analyze {
		e.lines = append(e.lines, fmt.Sprintf("Execution Time: %.3f ms", float64(took.Microseconds())/1000))
	}
	return e.lines, nil
}

// explain builds (and with analyze first runs) the plan description.
func (p *Prepared) explain(ctx context.Context, sess *Session, params []any, analyze bool) (*explainer, time.Duration, error) {
	root := p.plan
	var took time.Duration
	if analyze {
		joins := map[*joinNode]*nodeStats{}
		root = instrument(root, joins)
		run := *p
		run.plan = root
		start := time.Now()
		if _, err := run.streamWith(ctx, sess, params, joins, func(*Batch, *time.Location) error { return nil }); err != nil {
			return nil, 0, err
		}
		took = time.Since(start)
	}
	var settings func(string) (string, bool)
	if sess != nil {
		settings = sess.Setting
	}
	e := &explainer{analyze: analyze, rc: &runCtx{settings: settings}}
	e.node(root, 0, nil)
	return e, took, nil
}

type explainer struct {
	analyze bool
	rc      *runCtx
	lines   []string
	// nodes are the printed nodes in order (FORMAT JSON rebuilds the
	// tree from their depths)
	nodes []explainNode
	// orderedScans and orderedJoins are the nodes a top-N sort reads in
	// index order (ordered_topn.go): the scan (backward when true) and
	// the joins looked up batch by batch
	orderedScans map[*scanNode]*orderedScan
	orderedJoins map[*joinNode]bool
}

// node prints p at depth with extra detail lines (a filter above it).
func (e *explainer) node(p plan, depth int, extra []string) {
	var st *nodeStats
	if in, ok := p.(*instrNode); ok {
		st, p = in.st, in.input
	}
	switch x := p.(type) {
	case *projectNode:
		e.node(x.input, depth, extra)
		return
	case *prefetchNode:
		e.node(x.input, depth, extra)
		return
	case *filterNode:
		det := append([]string{"Filter: " + exprText(x.pred, x.input.columns())}, extra...)
		if s, ok := x.input.(*scanNode); ok {
			e.scan(s, depth, det, st, explainRows(x))
			return
		}
		if st != nil {
			// the filter's counts are the node's output
			if in, ok := x.input.(*instrNode); ok {
				in.st.rows = st.rows
			}
		}
		e.node(x.input, depth, det)
		return
	case *scanNode:
		e.scan(x, depth, extra, st, explainRows(x))
		return
	case *joinNode:
		e.join(x, depth, extra, st)
		return
	}
	if x, ok := p.(*sortNode); ok && x.topN > 0 && len(x.keys) > 0 {
		if in := orderedInput(e.rc, x.input, x.keys[0].col, x.keys[0]); in != nil {
			if e.orderedScans == nil {
				e.orderedScans, e.orderedJoins = map[*scanNode]*orderedScan{}, map[*joinNode]bool{}
			}
			markOrdered(in, e.orderedScans, e.orderedJoins)
		}
	}
	name, det, kids := describe(p)
	e.line(depth, name, explainRows(p), st, append(det, extra...))
	for _, k := range kids {
		e.node(k, depth+1, nil)
	}
}

// describe names a node that is not a scan, filter or join, with its
// detail lines and children.
func describe(p plan) (string, []string, []plan) {
	switch x := p.(type) {
	case *aggNode:
		if len(x.groups) > 0 {
			return "HashAggregate", []string{"Group Key: " + exprList(x.groups, x.input.columns())}, []plan{x.input}
		}
		return "Aggregate", nil, []plan{x.input}
	case *sortNode:
		cols := x.input.columns()
		var keys []string
		for _, k := range x.keys {
			s := cols[k.col].name
			if k.desc {
				s += " DESC"
			}
			keys = append(keys, s)
		}
		name := "Sort"
		return name, []string{"Sort Key: " + strings.Join(keys, ", ")}, []plan{x.input}
	case *limitNode:
		return "Limit", nil, []plan{x.input}
	case *tiesLimitNode:
		return "Limit", nil, []plan{x.input}
	case *distinctNode:
		return "Unique", nil, []plan{x.input}
	case *setOpNode:
		switch {
		case x.op == "UNION" && x.all:
			return "Append", nil, []plan{x.left, x.right}
		case x.op == "UNION":
			return "HashAggregate", nil, []plan{x.left, x.right}
		}
		op := strings.ToUpper(x.op[:1]) + strings.ToLower(x.op[1:])
		if x.all {
			op += " All"
		}
		return "HashSetOp " + op, nil, []plan{x.left, x.right}
	case *materialNode:
		return "CTE Scan", nil, []plan{x.input}
	case *recursiveNode:
		return "Recursive Union", nil, []plan{x.base, x.step}
	case *recursiveRef:
		return "WorkTable Scan", nil, nil
	case *windowNode:
		return "WindowAgg", nil, []plan{x.input}
	case *lateralNode:
		name := "Nested Loop"
		if x.outer {
			name = "Nested Loop Left Join"
		}
		return name, nil, []plan{x.left}
	case *projectSetNode:
		return "ProjectSet", nil, []plan{x.input}
	case *funcScanNode:
		return "Function Scan on " + x.name, nil, nil
	case *valuesNode:
		if len(x.rows) == 1 {
			return "Result", nil, nil // PostgreSQL plans one row as a Result
		}
		return `Values Scan on "*VALUES*"`, nil, nil
	case oneRowNode:
		return "Result", nil, nil
	}
	return "Result", nil, nil
}

// scan prints a table read: a Seq Scan, or an Index Scan when it is a
// key lookup.
func (e *explainer) scan(s *scanNode, depth int, extra []string, st *nodeStats, est int64) {
	if s.keyVals != nil {
		if _, ok := s.table.Source.(KeyLookupSource); ok {
			var vals []string
			for _, v := range s.keyVals {
				vals = append(vals, exprText(v, nil))
			}
			cond := s.table.Columns[s.keyCol].Name + " = "
			if len(vals) == 1 {
				cond += vals[0]
			} else {
				cond += "ANY ('{" + strings.Join(vals, ",") + "}')"
			}
			e.line(depth, "Index Scan using "+indexName(s.table, s.keyCol)+" on "+scanName(s), est, st, append([]string{"Index Cond: (" + cond + ")"}, extra...))
			return
		}
	}
	if s.rng != nil {
		if _, ok := s.table.Source.(KeyRangeSource); ok {
			e.line(depth, "Index Scan using "+indexName(s.table, s.keyCol)+" on "+scanName(s), est, st, append([]string{"Index Cond: " + s.rng.text(s.table.Columns[s.keyCol].Name)}, extra...))
			return
		}
	}
	if o, ok := e.orderedScans[s]; ok {
		name := "Index Scan using "
		if o.desc {
			name = "Index Scan Backward using "
		}
		if s.rng != nil {
			extra = append([]string{"Index Cond: " + s.rng.text(s.table.Columns[s.keyCol].Name)}, extra...)
		}
		e.line(depth, name+indexName(s.table, o.col)+" on "+scanName(s), est, st, extra)
		return
	}
	e.line(depth, "Seq Scan on "+scanName(s), est, st, extra)
}

// scanName is the table as PostgreSQL's EXPLAIN names it: with the FROM
// item's alias when it has another one.
func scanName(s *scanNode) string {
	if s.alias != "" && s.alias != s.table.Name {
		return s.table.Name + " " + s.alias
	}
	return s.table.Name
}

// join prints a join with the method it used (ANALYZE) or would use.
func (e *explainer) join(j *joinNode, depth int, extra []string, st *nodeStats) {
	method := ""
	if st != nil {
		method = st.method
	}
	if method == "" {
		method = e.predictMethod(j)
	}
	kind := map[joinKind]string{joinInner: "", joinLeft: " Left Join", joinRight: " Right Join", joinFull: " Full Join", joinSemi: " Semi Join", joinAnti: " Anti Join"}[j.kind]
	nl := len(j.left.columns())
	all := append(append([]colInfo{}, j.left.columns()...), j.right.columns()...)
	cond := func(l, r []Expr) string {
		var parts []string
		for i := range l {
			parts = append(parts, "("+exprText(l[i], j.left.columns())+" = "+exprText(r[i], j.right.columns())+")")
		}
		return strings.Join(parts, " AND ")
	}
	var det []string
	if j.residual != nil {
		det = append(det, "Join Filter: "+exprText(j.residual, all))
	}
	switch method {
	case "lookup", "lookup swapped":
		outer, inner, ok, ik := j.left, j.right, j, j.rightKeys
		if method == "lookup swapped" {
			sw := j.swapped()
			outer, inner, ok, ik = j.right, j.left, sw, sw.rightKeys
		}
		name := "Nested Loop" + kind
		e.line(depth, name, explainRows(j), st, append(det, extra...))
		e.node(outer, depth+1, nil)
		ip := ok.lookupTarget()
		if ip == nil {
			e.node(inner, depth+1, nil)
			return
		}
		var ist *nodeStats
		if in, isIn := inner.(*instrNode); isIn {
			ist = in.st
		}
		var idet []string
		idet = append(idet, "Index Cond: ("+ip.scan.table.Columns[ip.col].Name+" = "+exprText(ok.leftKeys[ip.keyPos], outer.columns())+")")
		for _, f := range ip.filters {
			idet = append(idet, "Filter: "+exprText(f, ip.scan.cols))
		}
		_ = ik
		e.line(depth+1, "Index Scan using "+indexName(ip.scan.table, ip.col)+" on "+scanName(ip.scan), -1, ist, idet)
	case "hash":
		if len(j.leftKeys) == 0 {
			e.line(depth, "Nested Loop"+kind, explainRows(j), st, append(det, extra...))
			e.node(j.left, depth+1, nil)
			e.node(j.right, depth+1, nil)
			return
		}
		e.line(depth, "Hash"+strings.Replace(kind, " Join", "", 1)+" Join", explainRows(j), st,
			append(append([]string{"Hash Cond: " + cond(j.leftKeys, j.rightKeys)}, det...), extra...))
		e.node(j.left, depth+1, nil)
		var rst *nodeStats
		if in, isIn := j.right.(*instrNode); isIn {
			rst = in.st
		}
		e.line(depth+1, "Hash", explainRows(j.right), rst, nil)
		e.node(j.right, depth+2, nil)
	}
	_ = nl
}

// predictMethod is the join method the executor expects to use from its
// estimates (the run decides; see ops_indexjoin.go).
func (e *explainer) predictMethod(j *joinNode) string {
	if e.orderedJoins[j] {
		return "lookup"
	}
	small := func(p plan, limit int64) bool {
		n := explainRows(bare(p))
		return n >= 0 && n <= limit
	}
	if ip := j.lookupTarget(); ip != nil {
		if limit := j.lookupJoinLimit(e.rc, ip); limit >= 0 && (small(j.left, limit) || !joinMethodSetting(e.rc, "enable_hashjoin")) {
			return "lookup"
		}
	}
	if sw := j.swapped(); sw != nil {
		if ip := sw.lookupTarget(); ip != nil {
			if limit := sw.lookupJoinLimit(e.rc, ip); limit >= 0 && (small(j.right, limit) || !joinMethodSetting(e.rc, "enable_hashjoin")) {
				return "lookup swapped"
			}
		}
	}
	return "hash"
}

// line appends one node line and its detail lines.
func (e *explainer) line(depth int, name string, est int64, st *nodeStats, det []string) {
	prefix, detPrefix := "", "  "
	if depth > 0 {
		prefix = strings.Repeat(" ", 6*depth-4) + "->  "
		detPrefix = strings.Repeat(" ", 6*depth+2)
	}
	s := prefix + name
	if est >= 0 {
		s += fmt.Sprintf("  (rows=%d)", est)
	}
	if e.analyze {
		if st == nil || st.loops == 0 {
			s += " (never executed)"
		} else {
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(st.loops) }
			s += fmt.Sprintf(" (actual time=%.3f..%.3f rows=%d loops=%d)", ms(st.first), ms(st.total), st.rows/st.loops, st.loops)
		}
	}
	e.lines = append(e.lines, s)
	e.nodes = append(e.nodes, explainNode{depth: depth, name: name, est: est, st: st, det: det})
	for _, d := range det {
		e.lines = append(e.lines, detPrefix+d)
	}
}

// indexName names what serves key lookups on a table column: the primary
// key or UNIQUE constraint, an index, or an edge table's adjacency.
func indexName(td *TableDef, col int) string {
	if len(td.PrimaryKey) > 0 && td.PrimaryKey[0] == col {
		if td.PrimaryKeyName != "" {
			return td.PrimaryKeyName
		}
		return td.Name + "_pkey"
	}
	for i, u := range td.Unique {
		if len(u) > 0 && u[0] == col {
			if i < len(td.UniqueNames) && td.UniqueNames[i] != "" {
				return td.UniqueNames[i]
			}
			return td.Name + "_" + td.Columns[col].Name + "_key"
		}
	}
	for _, ix := range td.Indexes {
		if len(ix.Columns) > 0 && ix.Exprs == nil && ix.Columns[0] == col {
			return ix.Name
		}
	}
	return td.Name + "_" + td.Columns[col].Name + "_adjacency"
}

var colRefText = regexp.MustCompile(`#(\d+)`)

// exprText renders an expression for EXPLAIN with column names:
// operators infix, constants as their text (quoted when not numeric),
// casts as (x)::type; other nodes as the engine prints them.
func exprText(x Expr, cols []colInfo) string {
	switch e := x.(type) {
	case *colRef:
		if e.idx >= 0 && e.idx < len(cols) && cols[e.idx].name != "" {
			return cols[e.idx].name
		}
	case *opExpr:
		if len(e.args) == 2 && e.name != "" && strings.Trim(e.name, "=<>!~*+-/%&|^#@") == "" {
			return "(" + exprText(e.args[0], cols) + " " + e.name + " " + exprText(e.args[1], cols) + ")"
		}
	case *constExpr:
		switch e.t.Kind() {
		case KInt, KNum, KBool:
			return e.text
		}
		return "'" + strings.ReplaceAll(e.text, "'", "''") + "'::" + e.t.String()
	case *foldedCast:
		return exprText(e.orig, cols)
	case *castExpr:
		if c, ok := e.arg.(*constExpr); ok && c.t.Kind() == KInt && e.t.Kind() == KInt {
			return c.text // an integer literal widened to the column's type
		}
		if c, ok := e.arg.(*constExpr); ok && (c.t.Kind() == KInt || c.t.Kind() == KNum) && e.t.Kind() == KFloat {
			// a numeric literal folded to float, as PostgreSQL prints it
			return "'" + c.text + "'::" + e.t.String()
		}
		return "(" + exprText(e.arg, cols) + ")::" + e.t.String()
	case *boolExpr:
		var parts []string
		for _, a := range e.args {
			parts = append(parts, exprText(a, cols))
		}
		if e.op == "NOT" && len(parts) == 1 {
			return "(NOT " + parts[0] + ")"
		}
		return "(" + strings.Join(parts, " "+e.op+" ") + ")"
	}
	s := x.String()
	return colRefText.ReplaceAllStringFunc(s, func(m string) string {
		var i int
		fmt.Sscanf(m[1:], "%d", &i)
		if i >= 0 && i < len(cols) && cols[i].name != "" {
			return cols[i].name
		}
		return m
	})
}

func exprList(xs []Expr, cols []colInfo) string {
	var out []string
	for _, x := range xs {
		out = append(out, exprText(x, cols))
	}
	return strings.Join(out, ", ")
}

// explainRows is EXPLAIN's row estimate for a node (-1: none): the
// executor's own (estimateRows) where it has one, else from the inputs.
func explainRows(p plan) int64 {
	switch x := bare(p).(type) {
	case *joinNode:
		return x.estimate()
	case *aggNode:
		if len(x.groups) == 0 {
			return 1
		}
		return explainRows(x.input)
	case *filterNode:
		if n := explainRows(x.input); n >= 0 {
			return n/3 + 1
		}
		return -1
	case *projectNode:
		return explainRows(x.input)
	case *sortNode:
		return explainRows(x.input)
	case *distinctNode:
		return explainRows(x.input)
	case *limitNode:
		n := explainRows(x.input)
		if c, ok := x.limit.(*constExpr); ok && c.val.N == 1 && !c.val.IsNull(0) && c.val.T.Kind() == KInt && (n < 0 || c.val.I[0] < n) {
			return c.val.I[0]
		}
		return n
	case oneRowNode:
		return 1
	}
	return estimateRows(bare(p))
}
