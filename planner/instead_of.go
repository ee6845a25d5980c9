package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// INSTEAD OF triggers (docs/sql.md, "Triggers"). INSERT, UPDATE and
// DELETE on a view with an INSTEAD OF trigger for the statement's event
// write nothing themselves: the rows the statement would write are
// computed (INSERT: its source rows, the view's other columns NULL;
// UPDATE and DELETE: the view's rows its WHERE selects, UPDATE's NEW
// being OLD with the SET columns replaced), and the view's INSTEAD OF
// triggers run once per row, in name order, each with the NEW the
// previous one returned; a trigger returning NULL skips the row, which
// the command tag then does not count. The trigger functions' writes
// are the statement's, in one graph commit (dmlFiresTriggers).

// viewTriggers are the enabled INSTEAD OF triggers of event of the view
// td (nil when td is no view or has none), in name order.
func (w *writer) viewTriggers(td *exec.TableDef, event string) []ddl.Trigger {
	if td == nil {
		return nil
	}
	e, ok := w.ddlCatalog().Table(td.Name)
	if !ok {
		return nil
	}
	m, err := ddl.DecodeMeta(e.Name, e.Def)
	if err != nil || m.Relkind != ddl.RelView {
		return nil
	}
	var out []ddl.Trigger
	for _, t := range m.Triggers {
		if t.FiresInstead(event) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b ddl.Trigger) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// insteadOf runs an INSERT, UPDATE or DELETE on a view through its
// INSTEAD OF triggers; handled is false when the statement targets no
// view with such triggers for its event.
func (w *writer) insteadOf(p *plan) (out *writeOut, handled bool, err error) {
	if p.node == nil || (p.kind != stmtInsert && p.kind != stmtUpdate && p.kind != stmtDelete) {
		return nil, false, nil
	}
	rv := p.targetRelation()
	if rv == nil {
		return nil, false, nil
	}
	td := sqlView(w.v, rv.Schemaname, rv.Relname)
	event := p.stmtName()
	trigs := w.viewTriggers(td, event)
	if len(trigs) == 0 {
		return nil, false, nil
	}
	var olds, news []*plRecord
	switch p.kind {
	case stmtInsert:
		st := p.node.GetInsertStmt()
		if len(st.ReturningList) > 0 || st.OnConflictClause != nil {
			return nil, true, notSupported("RETURNING and ON CONFLICT of an INSERT through INSTEAD OF triggers")
		}
		news, err = w.insteadInsertRows(td, st)
	case stmtUpdate:
		st := p.node.GetUpdateStmt()
		if len(st.ReturningList) > 0 {
			return nil, true, notSupported("RETURNING of an UPDATE through INSTEAD OF triggers")
		}
		olds, news, err = w.insteadSelect(td, st.Relation, st.TargetList, st.FromClause, st.WhereClause)
	case stmtDelete:
		st := p.node.GetDeleteStmt()
		if len(st.ReturningList) > 0 {
			return nil, true, notSupported("RETURNING of a DELETE through INSTEAD OF triggers")
		}
		olds, _, err = w.insteadSelect(td, st.Relation, nil, st.UsingClause, st.WhereClause)
	}
	if err != nil {
		return nil, true, err
	}
	n := max(len(olds), len(news))
	done := 0
	for i := 0; i < n; i++ {
		var newRec, oldRec *plRecord
		if news != nil {
			newRec = news[i]
		}
		if olds != nil {
			oldRec = olds[i]
		}
		skipped := false
		for _, t := range trigs {
			f, err := w.triggerFunction(t)
			if err != nil {
				return nil, true, err
			}
			rec, null, err := w.s.callTrigger(w.ctx, f, t, td.RelName(), event, newRec, oldRec)
			if err != nil {
				return nil, true, err
			}
			if null {
				skipped = true
				break
			}
			if newRec != nil {
				newRec = rec
			}
		}
		if !skipped {
			done++
		}
	}
	tag := fmt.Sprintf("%s %d", event, done)
	if p.kind == stmtInsert {
		tag = fmt.Sprintf("INSERT 0 %d", done)
	}
	return &writeOut{tag: tag}, true, nil
}

// insteadInsertRows are an INSERT's rows as records of the view td: the
// source's values in the target columns, NULL in the others.
func (w *writer) insteadInsertRows(td *exec.TableDef, st *sqlparse.InsertStmt) ([]*plRecord, error) {
	targets := make([]int, 0, len(td.Columns))
	if len(st.Cols) == 0 {
		for i := range td.Columns {
			targets = append(targets, i)
		}
	}
	for _, c := range st.Cols {
		name := c.GetResTarget().GetName()
		i := slices.IndexFunc(td.Columns, func(cd exec.ColumnDef) bool { return cd.Name == name })
		if i < 0 {
			return nil, wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, td.RelName())
		}
		if len(c.GetResTarget().Indirection) > 0 {
			return nil, notSupported("INSERT into a view column's subfield or element")
		}
		targets = append(targets, i)
	}
	blank := func() *plRecord {
		rec := &plRecord{}
		for _, cd := range td.Columns {
			rec.names = append(rec.names, cd.Name)
			rec.types = append(rec.types, exec.FormatType(cd.Type.OID, cd.Type.Mod))
			rec.vals, rec.nulls = append(rec.vals, ""), append(rec.nulls, true)
		}
		return rec
	}
	if st.SelectStmt == nil { // DEFAULT VALUES
		return []*plRecord{blank()}, nil
	}
	sql, err := sqlparse.Deparse(st.SelectStmt)
	if err != nil {
		return nil, err
	}
	vecs, cols, err := w.query(sql)
	if err != nil {
		return nil, err
	}
	if len(cols) > len(targets) {
		return nil, wire.Errorf(pgerr.SyntaxError, "INSERT has more expressions than target columns")
	}
	if len(st.Cols) > 0 && len(cols) < len(targets) {
		return nil, wire.Errorf(pgerr.SyntaxError, "INSERT has more target columns than expressions")
	}
	rows := 0
	if len(vecs) > 0 {
		rows = vecs[0].N
	}
	loc := w.s.location()
	out := make([]*plRecord, rows)
	for r := range out {
		rec := blank()
		for j := range cols {
			s, ok := exec.FormatText(vecs[j], r, loc)
			rec.vals[targets[j]], rec.nulls[targets[j]] = s, !ok
		}
		out[r] = rec
	}
	return out, nil
}

// insteadSelect reads the rows of view td an UPDATE (sets: its SET
// list) or DELETE selects, as OLD records, and for an UPDATE the NEW
// ones (OLD with the SET columns replaced).
func (w *writer) insteadSelect(td *exec.TableDef, rv *sqlparse.RangeVar, sets, from []*sqlparse.Node, where *sqlparse.Node) (olds, news []*plRecord, err error) {
	alias := rv.Relname
	if rv.Alias != nil && rv.Alias.Aliasname != "" {
		alias = rv.Alias.Aliasname
	}
	var targets []*sqlparse.Node
	for _, cd := range td.Columns {
		targets = append(targets, resTarget(&sqlparse.Node{Node: &sqlparse.Node_ColumnRef{ColumnRef: &sqlparse.ColumnRef{
			Fields: []*sqlparse.Node{pgString(alias), pgString(cd.Name)}, Location: -1}}}))
	}
	var setCols []int
	for _, s := range sets {
		rt := s.GetResTarget()
		if rt == nil || len(rt.Indirection) > 0 || rt.Val.GetMultiAssignRef() != nil {
			return nil, nil, notSupported("UPDATE of a view's subfields or multiple-column assignments through INSTEAD OF triggers")
		}
		i := slices.IndexFunc(td.Columns, func(cd exec.ColumnDef) bool { return cd.Name == rt.Name })
		if i < 0 {
			return nil, nil, wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rt.Name, td.RelName())
		}
		setCols = append(setCols, i)
		targets = append(targets, resTarget(rt.Val))
	}
	sel := &sqlparse.SelectStmt{TargetList: targets, WhereClause: where,
		FromClause: append([]*sqlparse.Node{{Node: &sqlparse.Node_RangeVar{RangeVar: rv}}}, from...)}
	sql, err := sqlparse.Deparse(&sqlparse.Node{Node: &sqlparse.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return nil, nil, err
	}
	vecs, _, err := w.query(sql)
	if err != nil {
		return nil, nil, err
	}
	rows := 0
	if len(vecs) > 0 {
		rows = vecs[0].N
	}
	for r := 0; r < rows; r++ {
		old := w.rowRecord(td, vecs, r)
		olds = append(olds, old)
		if sets == nil {
			continue
		}
		nw := &plRecord{names: old.names, types: old.types, vals: slices.Clone(old.vals), nulls: slices.Clone(old.nulls)}
		for j, c := range setCols {
			s, ok := exec.FormatText(vecs[len(td.Columns)+j], r, w.s.location())
			nw.vals[c], nw.nulls[c] = s, !ok
		}
		news = append(news, nw)
	}
	return olds, news, nil
}

// resTarget is a select-list item of expression val.
func resTarget(val *sqlparse.Node) *sqlparse.Node {
	return &sqlparse.Node{Node: &sqlparse.Node_ResTarget{ResTarget: &sqlparse.ResTarget{Val: val, Location: -1}}}
}

// viewHasInsteadTriggers reports a view (of the head catalog) with
// INSTEAD OF triggers for one of events.
func viewHasInsteadTriggers(ctx context.Context, s *session, head *catalog, rv *sqlparse.RangeVar, events []string) bool {
	w := &writer{s: s, v: newView(head, newPendingState()), ctx: ctx}
	td := sqlView(w.v, rv.Schemaname, rv.Relname)
	for _, ev := range events {
		if len(w.viewTriggers(td, ev)) > 0 {
			return true
		}
	}
	return false
}
