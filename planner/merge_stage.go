package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/graphsql"
	"github.com/pggraph/pggraph/protocol"
	"github.com/pggraph/pggraph/wire"
)

// A merge staged in the session's transaction (graph.merge with strategy
// 'stop'; docs/architecture.md, "Conflicts resolved in SQL").
//
// Staging (stageMerge) replaces the transaction's snapshot by the staged
// merged graph (adapters.Graph.StageMerge: the target head with the
// merge's catalog) and its pending state by the merge's row changes, so
// every later statement reads and writes the merged graph as if the
// merge had been typed in as ordinary DML; where both branches changed a
// row the target's version is kept and the row is listed in
// graph.conflicts with its base, ours and theirs versions — except that a
// row both branches updated is staged as its per-column merge (the
// source's changes to the columns only it changed applied; the target's
// values in the columns both set, which graph.conflicts lists). The
// staged row of a conflict is the target's base row or, for a per-column
// merge, a pending insert the pending table follows by a stable handle
// (pending_follow.go: pending rows' addresses shift as earlier ones are
// removed). A conflict is resolved when the transaction updates or
// deletes its staged row, or when it is deleted from graph.conflicts (DELETE FROM
// graph.conflicts [WHERE …]: keep the staged row as it is — also the way
// to accept the target's deletion of a row). COMMIT publishes the merge
// with the transaction's final rows as one merge commit
// (adapters.Graph.PublishMerge: strict, two parents, the merge checks
// on the final rows) and is refused while a conflict is left; ROLLBACK
// abandons it (staging published nothing). The transaction is strict like
// one with DDL: a commit on the target since staging fails COMMIT with
// 40001. DDL and TRUNCATE are refused while a merge is staged (0A000).

// stagedMerge is the merge staged in a transaction.
type stagedMerge struct {
	sm        *adapters.StagedMerge
	conflicts []stagedConflict
}

// stagedConflict is one row of graph.conflicts and its state.
type stagedConflict struct {
	graphsql.Conflict
	// the staged row: the target's base row at oursAddr (hasOurs), or
	// the pending insert followed by handle (pending)
	hasOurs  bool
	oursAddr uint64
	pending  bool
	handle   int
	resolved bool // deleted from graph.conflicts
}

func (m *stagedMerge) clone() *stagedMerge {
	c := *m
	c.conflicts = slices.Clone(m.conflicts)
	return &c
}

// open lists the conflicts pend leaves unresolved.
func (m *stagedMerge) open(pend *pendingState) []graphsql.Conflict {
	var out []graphsql.Conflict
	for _, c := range m.conflicts {
		if c.resolved {
			continue
		}
		p := pend.tables[c.Table]
		switch {
		case c.pending && p != nil:
			if _, live := p.followedRow(c.handle); !live {
				continue // the transaction updated or deleted the staged row
			}
		case c.hasOurs && p != nil && p.deleted.has(c.oursAddr):
			continue // the transaction updated or deleted the row
		}
		out = append(out, c.Conflict)
	}
	return out
}

// stageMerge is graph.merge(from, into, strategy => 'stop') in the
// session's transaction block (graphsql.Env.StageMerge).
func (s *session) stageMerge(ctx context.Context, from, into string) (int, error) {
	tx := s.tx
	if tx == nil || tx.implicit {
		return 0, wire.Errorf(pgerr.NoActiveSQLTransaction, "graph.merge with strategy 'stop' can only be used in transaction blocks")
	}
	switch {
	case into != s.branch():
		return 0, wire.Errorf(pgerr.FeatureNotSupported, "graph.merge with strategy 'stop' into branch %q from a session on branch %q is not supported", into, s.branch()).
			WithHint("Connect to the target branch (or SET graph.branch) and stage the merge there.")
	case tx.pend.merge != nil:
		return 0, wire.Errorf(pgerr.FeatureNotSupported, "a second merge staged in one transaction is not supported").
			WithHint("COMMIT or ROLLBACK the staged merge first.")
	case tx.pend.hasWrites() || len(tx.pend.ddl) > 0:
		return 0, wire.Errorf(pgerr.ActiveSQLTransaction, "graph.merge with strategy 'stop' must come before the transaction's writes")
	case len(tx.saves) > 0:
		return 0, wire.Errorf(pgerr.FeatureNotSupported, "graph.merge with strategy 'stop' after a SAVEPOINT is not supported")
	case tx.readOnly:
		return 0, wire.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute graph.merge in a read-only transaction")
	}
	// pin (and hold) the transaction's snapshot first, as any statement
	if _, err := s.txBase(ctx); err != nil {
		return 0, err
	}
	sm, err := s.g.StageMerge(ctx, adapters.MergeOptions{From: from, Into: into})
	if err != nil {
		return 0, err
	}
	if tx.base.sn.Commit.ID != sm.Target.Commit.ID && !tx.perStatement() {
		// REPEATABLE READ / SERIALIZABLE: the transaction already read an
		// older head; the merge cannot be staged on the snapshot it keeps
		return 0, wire.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
			WithDetail(fmt.Sprintf("branch %q moved since the transaction's snapshot", into))
	}
	merged := sm.Result.Merged
	cat, err := buildCatalog(ctx, s.root, merged, s.graphViews(ctx, merged, false), s.tables)
	if err != nil {
		return 0, err
	}
	pend, err := pendingOfMerge(ctx, cat, sm.Result)
	if err != nil {
		return 0, err
	}
	m := &stagedMerge{sm: sm}
	for i, rc := range sm.Conflicts {
		c, err := conflictRow(cat, rc)
		if err != nil {
			return 0, err
		}
		c.ID = int64(i + 1)
		sc := stagedConflict{Conflict: c, hasOurs: rc.Ours != nil, oursAddr: rc.OursAddr}
		if rc.StagedRow >= 0 {
			p := pend.tables[rc.Table]
			if p == nil {
				return 0, fmt.Errorf("planner: staged row of a conflict on %q missing from the merge's rows", rc.Table)
			}
			// the merge's rows are the table's first pending inserts
			sc.pending, sc.hasOurs, sc.handle = true, false, p.follow(uint64(rc.StagedRow))
		}
		m.conflicts = append(m.conflicts, sc)
	}
	pend.merge = m
	pend.bump()
	tx.base, tx.pend = cat, pend
	return len(m.conflicts), nil
}

// pendingOfMerge is a merge's row changes as a pending state over cat
// (the merged catalog): per replayed table its deletions and additions.
func pendingOfMerge(ctx context.Context, cat *catalog, m *adapters.MergeResult) (*pendingState, error) {
	pend := newPendingState()
	for k, rows := range m.Rows {
		e, ok := m.Merged.State.Table(k)
		if !ok {
			continue
		}
		ti := cat.tables[e.Name]
		if ti == nil {
			continue
		}
		p := pend.table(ti.def, ti.schema)
		if _, err := p.remove(rows.Deleted); err != nil {
			return nil, err
		}
		if rows.Added != nil {
			recs, err := readSource(ctx, rows.Added)
			if err != nil {
				return nil, err
			}
			for _, r := range recs {
				if !r.Schema().Equal(ti.schema) {
					// the scan's schema may differ in metadata only: the
					// pending rows carry the table's (commits stage them
					// as one batch list)
					if int(r.NumCols()) != len(ti.schema.Fields()) {
						return nil, fmt.Errorf("planner: merged rows of %q have %d columns, the table %d", e.Name, r.NumCols(), len(ti.schema.Fields()))
					}
					r = array.NewRecordBatch(ti.schema, r.Columns(), r.NumRows())
				}
				pend.bytes += recordBytes(r)
				p.inserts = append(p.inserts, r)
			}
		}
	}
	return pend, nil
}

// conflictRow renders one row conflict with the table's SQL types: key,
// base, ours and theirs as jsonb objects (column → value; numbers and
// booleans as JSON's, everything else as PostgreSQL's text output).
func conflictRow(cat *catalog, rc adapters.RowConflict) (graphsql.Conflict, error) {
	c := graphsql.Conflict{Table: rc.Table}
	ti := cat.tables[rc.Table]
	if ti == nil {
		return c, fmt.Errorf("planner: conflict on table %q missing from the merged catalog", rc.Table)
	}
	td := ti.def
	side := func(rec arrow.RecordBatch) (map[string]any, error) {
		if rec == nil {
			return nil, nil
		}
		out := map[string]any{}
		for i, col := range td.Columns {
			idx := rec.Schema().FieldIndices(col.Name)
			if len(idx) != 1 {
				if i >= int(rec.NumCols()) {
					continue
				}
				idx = []int{i}
			}
			v, err := exec.VecFromArrow(rec.Column(idx[0]), col.Type)
			if err != nil {
				return nil, err
			}
			out[col.Name] = jsonValue(v, 0)
		}
		return out, nil
	}
	base, err := side(rc.Base)
	if err != nil {
		return c, err
	}
	ours, err := side(rc.Ours)
	if err != nil {
		return c, err
	}
	theirs, err := side(rc.Theirs)
	if err != nil {
		return c, err
	}
	key := map[string]any{}
	for _, i := range td.PrimaryKey {
		n := td.Columns[i].Name
		for _, r := range []map[string]any{ours, theirs, base} {
			if r != nil {
				key[n] = r[n]
				break
			}
		}
	}
	switch {
	case ours == nil:
		c.Kind = "deleted on target, changed on source"
	case theirs == nil:
		c.Kind = "changed on target, deleted on source"
	case base == nil:
		c.Kind = "added on both"
	default:
		c.Kind = "changed on both"
	}
	// the conflicting columns as the merge found them (positions in the
	// physical schema), by SQL name
	var phys *arrow.Schema
	for _, r := range []arrow.RecordBatch{rc.Ours, rc.Theirs} {
		if r != nil {
			phys = r.Schema()
			break
		}
	}
	for _, pos := range rc.Columns {
		name := ""
		if phys != nil && pos < phys.NumFields() {
			for _, col := range td.Columns {
				if col.Name == phys.Field(pos).Name {
					name = col.Name
				}
			}
		}
		if name == "" && pos < len(td.Columns) {
			name = td.Columns[pos].Name
		}
		if name != "" {
			c.Columns = append(c.Columns, name)
		}
	}
	c.Key, c.Base, c.Ours, c.Theirs = jsonbText(key), jsonbText(base), jsonbText(ours), jsonbText(theirs)
	return c, nil
}

// jsonValue is row i of v as a JSON value.
func jsonValue(v *exec.Vec, i int) any {
	if v.IsNull(i) {
		return nil
	}
	switch v.T.OID {
	case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8:
		return v.I[i]
	case exec.OIDBool:
		return v.B[i]
	case exec.OIDJSON, exec.OIDJSONB:
		return json.RawMessage(v.S[i])
	}
	s, _ := exec.FormatText(v, i, nil)
	return s
}

// jsonbText renders an object as jsonb prints it: keys shorter first,
// then bytewise, ", " and ": " between items ("" for nil: SQL NULL).
func jsonbText(m map[string]any) string {
	if m == nil {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteString(": ")
		vb, _ := json.Marshal(m[k])
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.String()
}

// resolveConflicts is DELETE FROM graph.conflicts [WHERE …]: the
// conflicts it selects count as resolved with the staged rows as they
// are.
func (w *writer) resolveConflicts(del *sqlparse.DeleteStmt) (*writeOut, error) {
	if len(del.UsingClause) > 0 || len(del.ReturningList) > 0 || del.WithClause != nil {
		return nil, wire.Errorf(pgerr.FeatureNotSupported, "DELETE FROM graph.conflicts with WITH, USING or RETURNING is not supported")
	}
	m := w.v.pend.merge
	if m == nil {
		return &writeOut{tag: "DELETE 0"}, nil // nothing staged: the view is empty
	}
	// SELECT id FROM graph.conflicts [AS alias] [WHERE …]
	from := &sqlparse.RangeVar{Schemaname: graphsql.Schema, Relname: graphsql.ViewConflicts, Inh: true, Relpersistence: "p", Location: -1}
	if a := del.Relation.Alias; a != nil && a.Aliasname != "" {
		from.Alias = &sqlparse.Alias{Aliasname: a.Aliasname}
	}
	id := &sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{Fields: []*sqlparse.Node{pgString("id")}, Location: -1}}}
	rows, _, err := w.queryTree(selectTree(nil, []*sqlparse.Node{resTarget(id)}, []*sqlparse.Node{rangeVarNode(from)}, del.WhereClause))
	if err != nil {
		return nil, err
	}
	if w.describe {
		return &writeOut{}, nil
	}
	ids := map[int64]bool{}
	for i := 0; i < rows[0].N; i++ {
		ids[rows[0].I[i]] = true
	}
	for i := range m.conflicts {
		if ids[m.conflicts[i].ID] {
			m.conflicts[i].resolved = true
		}
	}
	w.v.pend.bump()
	return &writeOut{tag: fmt.Sprintf("DELETE %d", len(ids))}, nil
}

// publishMerge publishes the transaction's staged merge at COMMIT.
func (s *session) publishMerge(ctx context.Context, tx *txState) (*protocol.Receipt, error) {
	m := tx.pend.merge
	if open := m.open(tx.pend); len(open) > 0 {
		tables := map[string]bool{}
		for _, c := range open {
			tables[c.Table] = true
		}
		names := make([]string, 0, len(tables))
		for n := range tables {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, wire.Errorf(pgerr.ObjectNotInPrerequisiteState, "cannot commit the merge of %q into %q: %d conflicting rows are unresolved", m.sm.From, m.sm.Into, len(open)).
			WithDetail("Unresolved rows in table(s) " + strings.Join(names, ", ") + " (SELECT * FROM graph.conflicts).").
			WithHint("Update or delete each conflicting row, or DELETE FROM graph.conflicts to keep the staged row, before COMMIT.")
	}
	rows := map[graph.TableKey]*adapters.MergedRows{}
	for name, p := range tx.pend.tables {
		if p.empty() {
			continue
		}
		if p.mode != modeRows {
			return nil, wire.Errorf(pgerr.FeatureNotSupported, "rewriting or truncating a table while a merge is staged is not supported")
		}
		e, ok := m.sm.Result.Merged.State.TableByName(name)
		if !ok {
			return nil, fmt.Errorf("planner: staged merge writes table %q missing from the merged catalog", name)
		}
		mr := &adapters.MergedRows{}
		for a := range p.deleted.all() {
			mr.Deleted = append(mr.Deleted, a)
		}
		slices.Sort(mr.Deleted)
		if len(p.inserts) > 0 {
			mr.Added = adapters.Batches(p.schema, p.inserts...)
		}
		rows[e.Key()] = mr
	}
	message := s.commitMessage()
	if message == "" {
		message = fmt.Sprintf("merge %s into %s", m.sm.From, m.sm.Into)
	}
	actor, app, client := s.attribution()
	return s.g.PublishMerge(ctx, m.sm, rows, adapters.MergeOptions{Message: message, Actor: actor, Application: app, Client: client, CommitID: tx.roleCommitID()})
}
