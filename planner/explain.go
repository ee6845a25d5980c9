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
// PostgreSQL's error (42P01, 42703, 42601). FORMAT JSON answers the same
// plan as one JSON value (exec/explain_json.go; the snapshot is its
// "Snapshot" key). EXPLAIN of INSERT/UPDATE/DELETE/MERGE plans the
// statement without effects and prints "<Operation> on <table>" above the
// plan of the query that finds its rows; EXPLAIN ANALYZE of them, and
// FORMAT YAML/XML, answer 0A000.

// explainOptions reads EXPLAIN's options.
func explainOptions(ex *sqlparse.ExplainStmt) (analyze, asJSON bool, err error) {
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
			switch val {
			case "text":
				asJSON = false
			case "json":
				asJSON = true
			default:
				return false, false, notSupported("EXPLAIN (FORMAT " + strings.ToUpper(val) + ")")
			}
		}
	}
	return analyze, asJSON, nil
}

// explainQuery is the SQL of EXPLAIN's statement when it is a query.
func explainQuery(ex *sqlparse.ExplainStmt) (string, error) {
	if ex.Query == nil || ex.Query.GetSelectStmt() == nil {
		return "", notSupported("EXPLAIN of a writing statement")
	}
	return deparseStmt(ex.Query)
}

// isWriteExplain reports EXPLAIN of INSERT, UPDATE, DELETE or MERGE.
func isWriteExplain(ex *sqlparse.ExplainStmt) bool {
	if ex.Query == nil {
		return false
	}
	return ex.Query.GetInsertStmt() != nil || ex.Query.GetUpdateStmt() != nil || ex.Query.GetDeleteStmt() != nil || ex.Query.GetMergeStmt() != nil
}

// explainWrite plans a writing statement without effects (as Describe
// does) and returns the query that finds its rows (the row source:
// INSERT's values or query, the target rows of UPDATE, DELETE and
// MERGE), the operation and the target relation.
func (s *session) explainWrite(ctx context.Context, ex *sqlparse.ExplainStmt, declared []uint32) (*exec.Prepared, string, string, error) {
	var base *catalog
	var pend *pendingState
	if s.tx != nil && !s.tx.implicit {
		b, err := s.txBase(ctx)
		if err != nil {
			return nil, "", "", err
		}
		base, pend = b, s.tx.pend.clone()
	} else {
		_, b, err := s.head(ctx)
		if err != nil {
			return nil, "", "", err
		}
		base, pend = b, newPendingState()
	}
	w := &writer{s: s, v: newView(base, pend), ctx: ctx, describe: true, declared: declared}
	// EXPLAIN checks the statement's privileges, as PostgreSQL's does
	// (schema_usage.go: the names first, here without a cursor)
	if _, err := s.checkSchemaUsage(ctx, &plan{node: ex.Query}); err != nil {
		return nil, "", "", err
	}
	if err := w.checkTarget(&plan{kind: writeKind(ex.Query), node: ex.Query}); err != nil {
		return nil, "", "", err
	}
	var op string
	var rel *sqlparse.RangeVar
	var err error
	switch q := ex.Query; {
	case q.GetInsertStmt() != nil:
		op, rel = "Insert", q.GetInsertStmt().Relation
		_, err = w.insert(q.GetInsertStmt())
	case q.GetUpdateStmt() != nil:
		op, rel = "Update", q.GetUpdateStmt().Relation
		_, err = w.update(q.GetUpdateStmt())
	case q.GetDeleteStmt() != nil:
		op, rel = "Delete", q.GetDeleteStmt().Relation
		_, err = w.delete(q.GetDeleteStmt())
	case q.GetMergeStmt() != nil:
		op, rel = "Merge", q.GetMergeStmt().Relation
		_, err = w.merge(q.GetMergeStmt())
	}
	if err != nil {
		return nil, "", "", err
	}
	if len(w.planned) == 0 {
		return nil, "", "", notSupported("EXPLAIN of this " + strings.ToUpper(op) + " (it runs no query)")
	}
	name := rel.Relname
	if rel.Alias != nil && rel.Alias.Aliasname != "" {
		name += " " + rel.Alias.Aliasname
	}
	return w.planned[0], op, name, nil
}

// modifyLines puts a writing statement's node above its row source's
// plan lines (one level deeper, as PostgreSQL prints ModifyTable).
func modifyLines(op, rel string, lines []string) []string {
	out := []string{op + " on " + rel}
	for i, l := range lines {
		if i == 0 {
			out = append(out, "  ->  "+l)
		} else {
			out = append(out, "      "+l)
		}
	}
	return out
}

var queryPlanColumn = []wire.Column{{Name: "QUERY PLAN", TypeOID: 25, TypeSize: -1, TypeMod: -1}}

// queryPlanJSON is FORMAT JSON's column: PostgreSQL types it json.
var queryPlanJSON = []wire.Column{{Name: "QUERY PLAN", TypeOID: 114, TypeSize: -1, TypeMod: -1}}

// describeExplain binds the inner query (its parameters are EXPLAIN's).
func (s *session) describeExplain(ctx context.Context, p *plan) (wire.Description, error) {
	ex := p.node.GetExplainStmt()
	analyze, asJSON, err := explainOptions(ex)
	if err != nil {
		return wire.Description{}, err
	}
	cols := queryPlanColumn
	if asJSON {
		cols = queryPlanJSON
	}
	if isWriteExplain(ex) {
		if analyze {
			return wire.Description{}, notSupported("EXPLAIN ANALYZE of a writing statement")
		}
		prep, _, _, err := s.explainWrite(ctx, ex, p.declared)
		if err != nil {
			return wire.Description{}, err
		}
		d := wire.Description{Params: make([]uint32, len(prep.ParamTypes)), Columns: cols}
		for i, t := range prep.ParamTypes {
			d.Params[i] = t.OID
		}
		return d, nil
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
		return wire.Description{}, err
	}
	d := wire.Description{Params: make([]uint32, len(prep.ParamTypes)), Columns: queryPlanColumn}
	if asJSON {
		d.Columns = queryPlanJSON
	}
	for i, t := range prep.ParamTypes {
		d.Params[i] = t.OID
	}
	return d, nil
}

// executeExplain answers EXPLAIN [ANALYZE] of a query.
func (s *session) executeExplain(ctx context.Context, p *plan, params []any) (wire.Result, error) {
	ex := p.node.GetExplainStmt()
	analyze, asJSON, err := explainOptions(ex)
	if err != nil {
		return nil, err
	}
	if isWriteExplain(ex) {
		return s.executeWriteExplain(ctx, ex, p.declared, params, analyze, asJSON)
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
		return nil, err
	}
	if err := s.checkQuery(ctx, p, prep); err != nil { // as PostgreSQL's EXPLAIN checks
		return nil, err
	}
	pending := s.tx != nil && !s.tx.implicit && s.tx.pend.hasWrites()
	if asJSON {
		doc, err := prep.ExplainJSON(ctx, s.execSession(), params, analyze, map[string]any{
			"Snapshot": map[string]any{"Branch": key.branch, "Graph Version": key.version, "Pending Changes": pending}})
		if err != nil {
			return nil, err
		}
		return &rowsResult{cols: queryPlanJSON, rows: [][]any{{doc}}, tag: "EXPLAIN"}, nil
	}
	lines, err := prep.Explain(ctx, s.execSession(), params, analyze)
	if err != nil {
		return nil, err
	}
	return explainText(lines, key, pending), nil
}

// explainText is EXPLAIN's text result: the plan's lines and, what
// PostgreSQL has no words for, the snapshot the plan reads.
func explainText(lines []string, key catKey, pending bool) *rowsResult {
	snap := fmt.Sprintf("Snapshot: branch %q, graph version %d", key.branch, key.version)
	if pending {
		snap += ", with the transaction's pending changes"
	}
	lines = append(lines, snap)
	rows := make([][]any, len(lines))
	for i, l := range lines {
		rows[i] = []any{l}
	}
	return &rowsResult{cols: queryPlanColumn, rows: rows, tag: "EXPLAIN"}
}

// executeWriteExplain answers EXPLAIN of INSERT/UPDATE/DELETE/MERGE: the
// statement's node above the plan of its row source. ANALYZE would run
// the write (PostgreSQL does); it answers 0A000.
func (s *session) executeWriteExplain(ctx context.Context, ex *sqlparse.ExplainStmt, declared []uint32, params []any, analyze, asJSON bool) (wire.Result, error) {
	if analyze {
		return nil, notSupported("EXPLAIN ANALYZE of a writing statement")
	}
	prep, op, rel, err := s.explainWrite(ctx, ex, declared)
	if err != nil {
		return nil, err
	}
	key, _, _, err := s.readCatalog(ctx)
	if err != nil {
		return nil, err
	}
	pending := s.tx != nil && !s.tx.implicit && s.tx.pend.hasWrites()
	if asJSON {
		doc, err := prep.ExplainModifyJSON(ctx, s.execSession(), params, op, strings.Fields(rel)[0], map[string]any{
			"Snapshot": map[string]any{"Branch": key.branch, "Graph Version": key.version, "Pending Changes": pending}})
		if err != nil {
			return nil, err
		}
		return &rowsResult{cols: queryPlanJSON, rows: [][]any{{doc}}, tag: "EXPLAIN"}, nil
	}
	lines, err := prep.Explain(ctx, s.execSession(), params, false)
	if err != nil {
		return nil, err
	}
	return explainText(modifyLines(op, rel, lines), key, pending), nil
}
