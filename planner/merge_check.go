package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// checkMerge validates a graph branch merge (graph.merge) against the
// SQL constraints before it publishes (adapters.SetMergeCheck): the
// merged result — the target's tables with the merge's catalog applied
// and each replayed table's deletions and additions as a pending state
// — is queried with exec for what the two sides' changes could break
// together. For every table the merge changes: PRIMARY KEY, UNIQUE and
// unique indexes (23505 naming the constraint and the key) and CHECK
// (23514); for every foreign key whose table or referenced table the
// merge changes: rows without their referenced row (23503, reported as
// PostgreSQL reports the side that caused it: an added row "insert or
// update on table …", a target row whose parent the merge deletes
// "update or delete on table … is still referenced"). One query per
// constraint over the merged table: a merge costs a scan of what it
// touches. Edge tables' out-degree bounds (graph.max_out, graph.min_out)
// are checked as well (mergeCardinality). Every view must still bind
// (checkMergedViews).
func (b *Backend) checkMerge(ctx context.Context, m *adapters.MergeResult) error {
	cat, err := buildCatalog(ctx, b.Graph.Root, m.Merged, nil, &b.tables)
	if err != nil {
		return err
	}
	pend, err := pendingOfMerge(ctx, cat, m)
	if err != nil {
		return err
	}
	changed := map[string]bool{}
	for _, k := range m.Changed {
		if e, ok := m.Merged.State.Table(k); ok && e.State == graph.Live {
			changed[e.Name] = true
		}
	}
	v := newView(cat, pend)
	w := &writer{s: &session{memLimit: b.MemoryLimit, info: wire.SessionInfo{Database: m.Into}}, v: v, ctx: ctx}
	names := make([]string, 0, len(v.base.tables))
	for n := range v.base.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		td := v.base.tables[n].def
		if changed[n] {
			if err := w.mergeUnique(td); err != nil {
				return err
			}
			if err := w.mergeNotNull(td, m); err != nil {
				return err
			}
			for _, c := range td.Checks {
				rows, _, err := w.query("SELECT 1 FROM " + quoteIdent(n) + " WHERE NOT (" + c.Expr + ") LIMIT 1")
				if err != nil {
					return err
				}
				if len(rows) > 0 && rows[0].N > 0 {
					return wire.Errorf(pgerr.CheckViolation, "new row for relation \"%s\" violates check constraint \"%s\"", n, c.Name).
						WithConstraint(schemaOf(td), n, c.Name).WithDetail(fmt.Sprintf("graph.merge of %q into %q combines changes of both branches", m.From, m.Into))
				}
			}
		}
		for _, fk := range td.ForeignKeys {
			if !changed[n] && !changed[fk.RefTable] {
				continue
			}
			if err := w.mergeForeignKey(td, fk); err != nil {
				return err
			}
		}
		if err := w.mergeCardinality(v.base.tables[n], changed, m); err != nil {
			return err
		}
	}
	return checkMergedViews(v, m)
}

// mergeCardinality checks an edge table's out-degree bounds
// (graph.max_out, graph.min_out) on the merged result when the merge
// changes the edge table or, for min_out, its source node table: each
// branch may keep within a bound while their edges together exceed it
// (or their deletions together go below it).
func (w *writer) mergeCardinality(ti *tableInfo, changed map[string]bool, m *adapters.MergeResult) error {
	if ti == nil || ti.meta == nil || ti.meta.Graph.Source == "" {
		return nil
	}
	g, n := ti.meta.Graph, ti.def.Name
	detail := fmt.Sprintf("graph.merge of %q into %q combines changes of both branches", m.From, m.Into)
	sc := quoteIdent(g.Source)
	if g.MaxOut != nil && changed[n] {
		rows, _, err := w.query(fmt.Sprintf("SELECT %s, count(*) FROM %s GROUP BY %s HAVING count(*) > %d LIMIT 1", sc, quoteIdent(n), sc, *g.MaxOut))
		if err != nil {
			return err
		}
		if len(rows) == 2 && rows[0].N > 0 {
			key, _ := exec.FormatText(rows[0], 0, w.s.location())
			cnt, _ := exec.FormatText(rows[1], 0, w.s.location())
			return wire.Errorf(pgerr.CheckViolation, "edge table \"%s\" violates graph.max_out = %d", n, *g.MaxOut).
				WithDetail(fmt.Sprintf("Source (%s)=(%s) has %s outgoing edges; %s.", g.Source, key, cnt, detail))
		}
	}
	if g.MinOut == nil || *g.MinOut <= 0 {
		return nil
	}
	src := slices.IndexFunc(ti.def.Columns, func(c exec.ColumnDef) bool { return c.Name == g.Source })
	for _, fk := range ti.def.ForeignKeys {
		if len(fk.Columns) != 1 || fk.Columns[0] != src || !changed[n] && !changed[fk.RefTable] {
			continue
		}
		node, ok := w.v.base.tables[fk.RefTable]
		if !ok {
			continue
		}
		ref := refColumns(node.def, fk)
		if len(ref) != 1 {
			continue
		}
		rc := quoteIdent(node.def.Columns[ref[0]].Name)
		rows, _, err := w.query(fmt.Sprintf("SELECT _n.%s, coalesce(_e.c, 0) FROM %s AS _n LEFT JOIN (SELECT %s AS s, count(*) AS c FROM %s GROUP BY %s) AS _e ON _e.s = _n.%s WHERE coalesce(_e.c, 0) < %d LIMIT 1",
			rc, quoteIdent(node.def.Name), sc, quoteIdent(n), sc, rc, *g.MinOut))
		if err != nil {
			return err
		}
		if len(rows) == 2 && rows[0].N > 0 {
			key, _ := exec.FormatText(rows[0], 0, w.s.location())
			cnt, _ := exec.FormatText(rows[1], 0, w.s.location())
			return wire.Errorf(pgerr.CheckViolation, "edge table \"%s\" violates graph.min_out = %d", n, *g.MinOut).
				WithDetail(fmt.Sprintf("Source (%s)=(%s) has %s outgoing edges; %s.", g.Source, key, cnt, detail))
		}
	}
	return nil
}

// checkMergedViews binds every view of the merged catalog: a view one
// branch created over what the other branch renamed, dropped or retyped
// no longer binds to its columns, and the merge is refused (40001, the
// view and the binding error named) rather than published with a broken
// view.
func checkMergedViews(v *view, m *adapters.MergeResult) error {
	for _, td := range v.Tables("public") {
		if !td.IsSQLView() {
			continue
		}
		prep, err := (&exec.Engine{Catalog: v}).Prepare(td.View.Query, nil)
		if err == nil {
			for i, c := range prep.Columns {
				if i >= len(td.Columns) || c.TypeOID != td.Columns[i].Type.OID {
					err = fmt.Errorf("its column %q no longer has its type", c.Name)
					break
				}
			}
		}
		if err != nil {
			return wire.Errorf(pgerr.SerializationFailure, "merge of %q into %q breaks view \"%s\"", m.From, m.Into, td.Name).
				WithDetail(pgerr.Message(err)).WithHint("Change or drop the view on one branch so that it reads what the merged graph has, then merge again.")
		}
	}
	return nil
}

// readSource reads every batch of a row source.
func readSource(ctx context.Context, src adapters.Source) ([]arrow.RecordBatch, error) {
	r, err := src(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var out []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	return out, r.Err()
}

// mergeUnique finds a duplicate key of any unique constraint of td.
func (w *writer) mergeUnique(td *exec.TableDef) error {
	type key struct {
		name string
		cols []int
	}
	var keys []key
	if len(td.PrimaryKey) > 0 {
		name := td.PrimaryKeyName
		if name == "" {
			name = td.Name + "_pkey"
		}
		keys = append(keys, key{name, td.PrimaryKey})
	}
	for i, u := range td.Unique {
		name := ""
		if i < len(td.UniqueNames) {
			name = td.UniqueNames[i]
		}
		if name == "" {
			parts := []string{td.Name}
			for _, c := range u {
				parts = append(parts, td.Columns[c].Name)
			}
			name = strings.Join(parts, "_") + "_key"
		}
		keys = append(keys, key{name, u})
	}
	for _, ix := range td.Indexes {
		if ix.Unique && !ix.Computed() {
			keys = append(keys, key{ix.Name, ix.Columns})
		}
	}
	for _, k := range keys {
		var cols, conds, names []string
		for _, c := range k.cols {
			q := quoteIdent(td.Columns[c].Name)
			cols = append(cols, q)
			conds = append(conds, q+" IS NOT NULL")
			names = append(names, td.Columns[c].Name)
		}
		texts := make([]string, len(cols))
		for i, c := range cols {
			texts[i] = c + "::text"
		}
		rows, _, err := w.query("SELECT " + strings.Join(texts, ", ") + " FROM " + quoteIdent(td.Name) + " WHERE " + strings.Join(conds, " AND ") +
			" GROUP BY " + strings.Join(cols, ", ") + " HAVING count(*) > 1 LIMIT 1")
		if err != nil {
			return err
		}
		if len(rows) > 0 && rows[0].N > 0 {
			vals := make([]string, len(rows))
			for i, v := range rows {
				vals[i] = v.S[0]
			}
			return wire.Errorf(pgerr.UniqueViolation, "duplicate key value violates unique constraint \"%s\"", k.name).
				WithConstraint(schemaOf(td), td.Name, k.name).WithDetail(fmt.Sprintf("Key (%s)=(%s) already exists.", strings.Join(names, ", "), strings.Join(vals, ", ")))
		}
	}
	return nil
}

// mergeForeignKey finds a row of td whose foreign key fk references no
// row of the referenced table.
func (w *writer) mergeForeignKey(td *exec.TableDef, fk exec.ForeignKey) error {
	var texts, conds, match, names []string
	for i, c := range fk.Columns {
		q := "c." + quoteIdent(td.Columns[c].Name)
		texts = append(texts, q+"::text")
		conds = append(conds, q+" IS NOT NULL")
		match = append(match, "p."+quoteIdent(fk.RefColumns[i])+" = "+q)
		names = append(names, td.Columns[c].Name)
	}
	// an anti-join as LEFT JOIN … IS NULL: exec hashes it (a correlated
	// NOT EXISTS would be a nested loop)
	rows, _, err := w.query("SELECT c._rowaddr < 0, " + strings.Join(texts, ", ") + " FROM " + quoteIdent(td.Name) + " c LEFT JOIN " +
		quoteIdent(fk.RefTable) + " p ON " + strings.Join(match, " AND ") + " WHERE " + strings.Join(conds, " AND ") +
		" AND p." + quoteIdent(fk.RefColumns[0]) + " IS NULL LIMIT 1")
	if err != nil {
		return err
	}
	if len(rows) == 0 || rows[0].N == 0 {
		return nil
	}
	vals := make([]string, 0, len(rows)-1)
	for _, v := range rows[1:] {
		vals = append(vals, v.S[0])
	}
	key := fmt.Sprintf("(%s)=(%s)", strings.Join(names, ", "), strings.Join(vals, ", "))
	if rows[0].B[0] { // a row the merge adds
		return wire.Errorf(pgerr.ForeignKeyViolation, "insert or update on table \"%s\" violates foreign key constraint \"%s\"", td.Name, fk.Name).
			WithConstraint(schemaOf(td), td.Name, fk.Name).WithDetail(fmt.Sprintf("Key %s is not present in table \"%s\".", key, fk.RefTable))
	}
	refKey := fmt.Sprintf("(%s)=(%s)", strings.Join(fk.RefColumns, ", "), strings.Join(vals, ", "))
	return wire.Errorf(pgerr.ForeignKeyViolation, "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"", fk.RefTable, fk.Name, td.Name).
		WithConstraint(schemaOf(td), td.Name, fk.Name).WithDetail(fmt.Sprintf("Key %s is still referenced from table \"%s\".", refKey, td.Name))
}

// mergeNotNull finds a NULL in a NOT NULL column of a table the merge
// changed (a NOT NULL one branch added over rows the other added, a
// column added on one branch without a default): 23502 as PostgreSQL
// reports it. One scan of the table for all its NOT NULL columns.
func (w *writer) mergeNotNull(td *exec.TableDef, m *adapters.MergeResult) error {
	var conds, cases []string
	for i, c := range td.Columns {
		if !c.NotNull || slices.Contains(td.PrimaryKey, i) {
			continue // a primary key's NULLs are mergeUnique's
		}
		conds = append(conds, quoteIdent(c.Name)+" IS NULL")
		cases = append(cases, "WHEN "+quoteIdent(c.Name)+" IS NULL THEN "+quoteLiteral(c.Name))
	}
	if len(conds) == 0 {
		return nil
	}
	rows, _, err := w.query("SELECT CASE " + strings.Join(cases, " ") + " END FROM " + quoteIdent(td.Name) + " WHERE " + strings.Join(conds, " OR ") + " LIMIT 1")
	if err != nil {
		return err
	}
	if len(rows) == 0 || rows[0].N == 0 {
		return nil
	}
	col, _ := rows[0].Datum(0).(string)
	return wire.Errorf(pgerr.NotNullViolation, "null value in column \"%s\" of relation \"%s\" violates not-null constraint", col, td.Name).
		WithColumn(schemaOf(td), td.Name, col).WithDetail(fmt.Sprintf("graph.merge of %q into %q combines changes of both branches", m.From, m.Into))
}
