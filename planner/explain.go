package planner

import (
	"context"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// EXPLAIN of a query (SELECT, VALUES, TABLE, WITH … SELECT) answers the
// executor's operator tree in PostgreSQL's text layout and one-column
// shape ("QUERY PLAN"): scans and index (key) lookups, join methods,
// estimated rows, and with ANALYZE each node's actual rows, loops and
// time (exec/explain.go), then a Snapshot line naming the branch and
// graph version read. The query is bound first, so a wrong name is
// PostgreSQL's error (42P01, 42703, 42601). Other formats than TEXT, and
// EXPLAIN of a writing statement, answer 0A000.

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
	if err := s.checkQuery(ctx, p, prep); err != nil { // as PostgreSQL's EXPLAIN checks
		return nil, err
	}
	lines, err := prep.Explain(ctx, s.execSession(), params, analyze)
	if err != nil {
		return nil, toWire(err)
	}
	// what PostgreSQL has no words for: the snapshot the plan reads
	snap := fmt.Sprintf("Snapshot: branch %q, graph version %d", key.branch, key.version)
	if s.tx != nil && !s.tx.implicit && s.tx.pend.hasWrites() {
		snap += ", with the transaction's pending changes"
	}
	lines = append(lines, snap)
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l}
	}
	return &rowsResult{cols: queryPlanColumn, rows: rows, tag: "EXPLAIN"}, nil
}
