package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// EXPLAIN of a query (SELECT, VALUES, TABLE, WITH … SELECT) answers a
// short text plan in PostgreSQL's one-column shape ("QUERY PLAN"):
// what the executor reads — each relation the query names (for a view,
// the tables under it), the snapshot it reads — not PostgreSQL's cost-based node tree, which pgproxy's
// executor does not have (no made-up costs). The query is bound first,
// so a wrong name is PostgreSQL's error (42P01, 42703, 42601).
// EXPLAIN ANALYZE also runs the query and reports its row count and
// time. Other formats than TEXT, and EXPLAIN of a writing statement,
// answer 0A000.

// explainOptions reads EXPLAIN's options.
func explainOptions(ex *sqlparse.ExplainStmt) (analyze bool, err error) {
	for _, o := range ex.Options {
		d := o.GetDefElem()
		if d == nil {
			continue
		}
		val := ""
		if d.Arg != nil {
			if s := d.Arg.GetString_(); s != nil {
				val = strings.ToLower(s.Sval)
			} else if b := d.Arg.GetBoolean(); b != nil && !b.Boolval {
				val = "false"
			}
		}
		switch d.Defname {
		case "analyze":
			analyze = val != "false" && val != "off" && val != "0"
		case "format":
			if val != "text" {
				return false, notSupported("EXPLAIN (FORMAT " + strings.ToUpper(val) + ")")
			}
		}
	}
	return analyze, nil
}

// explainQuery is the SQL of EXPLAIN's statement when it is a query.
func explainQuery(ex *sqlparse.ExplainStmt) (string, error) {
	if ex.Query == nil || ex.Query.GetSelectStmt() == nil {
		return "", notSupported("EXPLAIN of a writing statement")
	}
	return deparseStmt(ex.Query)
}

var queryPlanColumn = []wire.Column{{Name: "QUERY PLAN", TypeOID: 25, TypeSize: -1, TypeMod: -1}}

// describeExplain binds the inner query (its parameters are EXPLAIN's).
func (s *session) describeExplain(ctx context.Context, p *plan) (wire.Description, error) {
	ex := p.node.GetExplainStmt()
	if _, err := explainOptions(ex); err != nil {
		return wire.Description{}, err
	}
	sql, err := explainQuery(ex)
	if err != nil {
		return wire.Description{}, err
	}
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return wire.Description{}, err
	}
	prep, err := (&exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}).PrepareFor(s.execSession(), sql, p.declared)
	if err != nil {
		return wire.Description{}, toWire(err)
	}
	d := wire.Description{Params: make([]uint32, len(prep.ParamTypes)), Columns: queryPlanColumn}
	for i, t := range prep.ParamTypes {
		d.Params[i] = t.OID
	}
	return d, nil
}

// executeExplain answers EXPLAIN [ANALYZE] of a query.
func (s *session) executeExplain(ctx context.Context, p *plan, params []any) (wire.Result, error) {
	ex := p.node.GetExplainStmt()
	analyze, err := explainOptions(ex)
	if err != nil {
		return nil, err
	}
	sql, err := explainQuery(ex)
	if err != nil {
		return nil, err
	}
	key, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	prep, err := (&exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}).PrepareFor(s.execSession(), sql, p.declared)
	if err != nil {
		return nil, toWire(err)
	}
	snap := fmt.Sprintf("branch %q, graph version %d", key.branch, key.version)
	if s.tx != nil && !s.tx.implicit && s.tx.pend.hasWrites() {
		snap += ", with the transaction's pending changes"
	}
	top := fmt.Sprintf("Query  (pgproxy executor; %s)", snap)
	var lines []string
	var took time.Duration
	if analyze {
		start := time.Now()
		n := 0
		if _, err := prep.Stream(ctx, s.execSession(), params, func(b *exec.Batch, _ *time.Location) error {
			n += b.N
			return nil
		}); err != nil {
			return nil, toWire(err)
		}
		took = time.Since(start)
		top += fmt.Sprintf(" (actual rows=%d)", n)
	}
	lines = append(lines, top)
	var seen []string
	for _, rv := range rangeVars(ex.Query) {
		name := rv.Relname
		if rv.Schemaname != "" {
			name = rv.Schemaname + "." + name
		}
		line := "  ->  Scan on " + name
		if rv.Alias != nil && rv.Alias.Aliasname != "" && rv.Alias.Aliasname != rv.Relname {
			line += " " + rv.Alias.Aliasname
		}
		if sqlView(cat, rv.Schemaname, rv.Relname) != nil {
			// a view reads the tables under it
			for _, t := range withViewReads(cat, []string{rv.Relname})[1:] {
				if sqlView(cat, "", t) == nil {
					line = "  ->  Scan on " + t + " (view " + rv.Relname + ")"
					if !slices.Contains(seen, line) {
						seen = append(seen, line)
						lines = append(lines, line)
					}
				}
			}
			continue
		}
		if slices.Contains(seen, line) {
			continue
		}
		seen = append(seen, line)
		lines = append(lines, line)
	}
	if analyze {
		lines = append(lines, fmt.Sprintf("Execution Time: %.3f ms", float64(took.Microseconds())/1000))
	}
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l}
	}
	return &rowsResult{cols: queryPlanColumn, rows: rows, tag: "EXPLAIN"}, nil
}
