package planner

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Firing triggers (docs/sql.md, "Triggers"; the definitions are in the
// table's meta, planner/ddl/trigger.go). INSERT and UPDATE compute their
// rows first; BEFORE ROW triggers then run once per row, in trigger-name
// order as PostgreSQL fires them, with NEW (and OLD for UPDATE) as
// records: the row a trigger returns replaces NEW, NULL skips the row.
// AFTER ROW triggers run over the rows written, after the write joined
// the statement's pending changes; STATEMENT triggers run once before and
// once after. The trigger functions run through the session like every
// function body (function_call.go), inside the statement's transaction,
// so their writes are part of the same graph commit, and an error in one
// fails the statement. DELETE, COPY, MERGE and INSERT … ON CONFLICT on a
// table with row triggers answer 0A000. A view's INSTEAD OF triggers are
// instead_of.go's.

// triggersFor lists the table's enabled triggers for event at the timing
// and level, in name order.
func triggersFor(ti *tableInfo, event string, before, row bool) []ddl.Trigger {
	if ti.meta == nil {
		return nil
	}
	var out []ddl.Trigger
	for _, t := range ti.meta.Triggers {
		if t.Fires(event, before, row) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b ddl.Trigger) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// hasRowTriggers reports row triggers on event (either timing).
func hasRowTriggers(ti *tableInfo, event string) bool {
	return len(triggersFor(ti, event, true, true)) > 0 || len(triggersFor(ti, event, false, true)) > 0
}

// refuseRowTriggers answers 0A000 for a write path that does not fire
// row triggers.
func refuseRowTriggers(ti *tableInfo, event, what string) error {
	if hasRowTriggers(ti, event) {
		return wire.Errorf(wire.CodeFeatureNotSupported, "%s on table \"%s\" with %s row triggers is not supported", what, ti.def.Name, event)
	}
	return nil
}

// triggerFunction finds a trigger's function in the writer's catalog.
func (w *writer) triggerFunction(t ddl.Trigger) (*exec.FuncDef, error) {
	for _, f := range w.v.Functions() {
		if f.Name == t.Function && len(f.Inputs()) == 0 && f.Ret.OID == exec.OIDTrigger {
			return f, nil
		}
	}
	return nil, wire.Errorf(pgerr.UndefinedFunction, "function %s() does not exist", t.Function)
}

// fireStatement runs the STATEMENT triggers of event at a timing.
func (w *writer) fireStatement(ti *tableInfo, event string, before bool) error {
	for _, t := range triggersFor(ti, event, before, false) {
		f, err := w.triggerFunction(t)
		if err != nil {
			return err
		}
		if _, _, err := w.s.callTrigger(w.ctx, f, t, ti.def.Name, event, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// rowRecord is row i of rows as a trigger's record.
func (w *writer) rowRecord(td *exec.TableDef, rows []*exec.Vec, i int) *plRecord {
	rec := &plRecord{}
	loc := w.s.location()
	for c, cd := range td.Columns {
		rec.names = append(rec.names, cd.Name)
		rec.types = append(rec.types, exec.FormatType(cd.Type.OID, cd.Type.Mod))
		s, ok := exec.FormatText(rows[c], i, loc)
		rec.vals, rec.nulls = append(rec.vals, s), append(rec.nulls, !ok)
	}
	return rec
}

// fireRow runs the ROW triggers of event at a timing over the rows (old:
// the rows before an UPDATE, nil for INSERT). Before: the rows the
// triggers return are written back into news, and keep lists the rows
// not skipped (nil: all kept).
func (w *writer) fireRow(ti *tableInfo, event string, before bool, olds, news []*exec.Vec) (keep []int32, err error) {
	trigs := triggersFor(ti, event, before, true)
	if event == "UPDATE" {
		trigs = slices.DeleteFunc(trigs, func(t ddl.Trigger) bool {
			// UPDATE OF cols: only when the statement assigns one of them
			return len(t.Columns) > 0 && !slices.ContainsFunc(t.Columns, func(c string) bool {
				i := slices.IndexFunc(ti.def.Columns, func(cd exec.ColumnDef) bool { return cd.Name == c })
				return i >= 0 && w.assigned[i]
			})
		})
	}
	if len(trigs) == 0 {
		return nil, nil
	}
	fns := make([]*exec.FuncDef, len(trigs))
	for k, t := range trigs {
		if fns[k], err = w.triggerFunction(t); err != nil {
			return nil, err
		}
	}
	n := 0
	if len(news) > 0 {
		n = news[0].N
	} else if len(olds) > 0 {
		n = olds[0].N
	}
	skipped := false
	for i := 0; i < n; i++ {
		var newRec, oldRec *plRecord
		if news != nil {
			newRec = w.rowRecord(ti.def, news, i)
		}
		if olds != nil {
			oldRec = w.rowRecord(ti.def, olds, i)
		}
		kept := true
		for k, t := range trigs {
			if t.When != "" {
				ok, err := w.s.triggerWhen(w.ctx, t, newRec, oldRec)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
			}
			res, null, err := w.s.callTrigger(w.ctx, fns[k], t, ti.def.Name, event, newRec, oldRec)
			if err != nil {
				return nil, err
			}
			if !before {
				continue
			}
			if null {
				kept = false
				break
			}
			if res != nil && event != "DELETE" {
				if len(res.names) != len(ti.def.Columns) {
					return nil, &wire.Error{Code: pgerr.DatatypeMismatch, Message: "returned row structure does not match the structure of the triggering table",
						Detail: "Number of returned columns does not match expected column count."}
				}
				newRec = res
			}
		}
		if !kept {
			skipped = true
			continue
		}
		keep = append(keep, int32(i))
		if before && news != nil {
			for c := range ti.def.Columns {
				if newRec.nulls[c] {
					news[c].SetNull(i)
					continue
				}
				if news[c].Nulls != nil {
					news[c].Nulls[i] = false
				}
				if err := exec.SetText(news[c], i, newRec.vals[c], w.s.location()); err != nil {
					return nil, err
				}
			}
		}
	}
	if !skipped {
		return nil, nil
	}
	if keep == nil {
		keep = []int32{}
	}
	return keep, nil
}

// triggerWhen evaluates a trigger's WHEN condition for one row.
func (s *session) triggerWhen(ctx context.Context, t ddl.Trigger, newRec, oldRec *plRecord) (bool, error) {
	r := &doRun{s: s, vars: map[string]*plValue{}}
	r.vars["new"], r.vars["old"] = triggerRecords(newRec, oldRec)
	v, null, err := r.value(ctx, t.When, 0, "WHEN")
	if err != nil {
		return false, err
	}
	ok, _ := boolInput(v)
	return ok && !null, nil
}

// callTrigger runs a trigger function for one row (newRec/oldRec nil
// where PostgreSQL's NEW/OLD are NULL) and returns the row it returned
// (null: RETURN NULL).
func (s *session) callTrigger(ctx context.Context, f *exec.FuncDef, t ddl.Trigger, table, event string, newRec, oldRec *plRecord) (*plRecord, bool, error) {
	if s.doDepth >= maxDoDepth {
		return nil, false, wire.Errorf(pgerr.StatementTooComplex, "stack depth limit exceeded")
	}
	s.doDepth++
	defer func() { s.doDepth-- }()
	r := &doRun{s: s, vars: map[string]*plValue{}, fn: f, result: &plResult{}}
	r.vars["new"], r.vars["old"] = triggerRecords(newRec, oldRec)
	when, level := "AFTER", "STATEMENT"
	if t.Before {
		when = "BEFORE"
	}
	if t.Instead {
		when = "INSTEAD OF"
	}
	if t.Row {
		level = "ROW"
	}
	for name, val := range map[string]string{"tg_name": t.Name, "tg_when": when, "tg_level": level, "tg_op": event,
		"tg_table_name": table, "tg_relname": table, "tg_table_schema": "public"} {
		r.vars[name] = &plValue{typ: "text", val: val}
	}
	r.vars["tg_nargs"] = &plValue{typ: "integer", val: strconv.Itoa(len(t.Args))}
	r.tgArgv = append([]string{}, t.Args...)
	if _, err := r.plpgsqlFunction(ctx); err != nil {
		return nil, false, err
	}
	if r.result.rec == nil {
		return nil, true, nil
	}
	return r.result.rec, false, nil
}

// refuseTriggers answers 0A000 for a write path that fires no triggers
// (COPY FROM, MERGE) on a table with enabled triggers on its events.
func refuseTriggers(ti *tableInfo, what string, events ...string) error {
	for _, ev := range events {
		for _, before := range []bool{true, false} {
			for _, row := range []bool{true, false} {
				if len(triggersFor(ti, ev, before, row)) > 0 {
					return wire.Errorf(wire.CodeFeatureNotSupported, "%s into table \"%s\" with %s triggers is not supported", what, ti.def.Name, ev)
				}
			}
		}
	}
	return nil
}

// Triggers implements exec.TriggerCatalog: the triggers of the live
// tables and views.
func (c *catalog) Triggers() []*exec.TriggerDef {
	var out []*exec.TriggerDef
	if c.sn != nil {
		for _, e := range c.ddlEntries().Tables() {
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil || m.Relkind != ddl.RelView {
				continue
			}
			for _, t := range m.Triggers {
				out = append(out, &exec.TriggerDef{OID: t.OID, Table: uint32(firstUserOID + e.ID), Name: t.Name, Function: t.Function, Type: t.TgType(), Enabled: !t.Disabled, Args: t.Args})
			}
		}
	}
	for _, ti := range c.tables {
		if ti.meta == nil {
			continue
		}
		for _, t := range ti.meta.Triggers {
			d := &exec.TriggerDef{OID: t.OID, Table: ti.def.OID, Name: t.Name, Function: t.Function, Type: t.TgType(), Enabled: !t.Disabled, When: t.When, Args: t.Args}
			for _, col := range t.Columns {
				if i := slices.IndexFunc(ti.def.Columns, func(cd exec.ColumnDef) bool { return cd.Name == col }); i >= 0 {
					d.Attrs = append(d.Attrs, int16(i+1))
				}
			}
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b *exec.TriggerDef) int { return int(a.OID) - int(b.OID) })
	return out
}

// Triggers implements exec.TriggerCatalog.
func (v *view) Triggers() []*exec.TriggerDef { return v.base.Triggers() }

// truncateFiresTriggers reports a TRUNCATE while some table has enabled
// TRUNCATE triggers (a cascade may reach it): such a TRUNCATE runs as
// the transaction's, so the triggers see its effect and what they write
// publishes with it as one graph commit (as COPY with triggers does).
// dmlFiresTriggers reports whether an INSERT, UPDATE, DELETE or MERGE
// targets a table with triggers on any of the statement's events. Such
// an autocommit statement runs as a transaction (as COPY and TRUNCATE
// with triggers do): the writes of the trigger functions join the
// statement's pending state, an AFTER STATEMENT trigger sees the
// statement's rows, and everything publishes as one graph commit when the
// statement ends, or nothing when it fails. Without it each write a
// trigger function made would publish as a commit of its own. It also
// returns the head catalog it read (nil if none), which the statement
// then runs against instead of reading the head again (one dependent
// request fewer on object storage).
func (s *session) dmlFiresTriggers(ctx context.Context, p *plan, head *catalog) (bool, *catalog) {
	rv := p.targetRelation()
	events := []string{p.stmtName()}
	if p.kind == stmtMerge {
		events = []string{"INSERT", "UPDATE", "DELETE"}
	}
	if rv == nil {
		return false, nil
	}
	if head == nil {
		var err error
		if _, head, err = s.head(ctx); err != nil {
			return false, nil
		}
	}
	w := &writer{s: s, v: newView(head, newPendingState()), ctx: ctx}
	key, ok := w.relKey(rv.Schemaname, rv.Relname)
	if !ok {
		return false, head
	}
	ti, ok := head.tables[key]
	if !ok {
		return viewHasInsteadTriggers(ctx, s, head, rv, events), head // instead_of.go
	}
	return refuseTriggers(ti, "", events...) != nil, head
}

func (s *session) truncateFiresTriggers(ctx context.Context) bool {
	_, head, err := s.head(ctx)
	if err != nil {
		return false
	}
	for _, ti := range head.tables {
		if len(triggersFor(ti, "TRUNCATE", true, false)) > 0 || len(triggersFor(ti, "TRUNCATE", false, false)) > 0 {
			return true
		}
	}
	return false
}

// triggerRecords are a row trigger's NEW and OLD: the one the event has
// not (OLD on INSERT, NEW on DELETE) is a NULL record of the table's row
// type, whose fields read as NULL, as in PostgreSQL.
func triggerRecords(newRec, oldRec *plRecord) (newVal, oldVal *plValue) {
	shape := newRec
	if shape == nil {
		shape = oldRec
	}
	return &plValue{isRec: true, rec: newRec, nullOf: shape}, &plValue{isRec: true, rec: oldRec, nullOf: shape}
}
