package ddl

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Triggers (CREATE [OR REPLACE] TRIGGER, DROP TRIGGER, ALTER TABLE …
// ENABLE/DISABLE TRIGGER).
//
// A table's triggers are part of its meta (Triggers, metadata version
// 6), so they branch, merge, time-travel, follow renames and go with
// DROP TABLE like its constraints do; creating or dropping one is a
// catalog-only change of the table in the statement's graph commit. The
// planner fires them (planner/triggers.go). What they cannot do here —
// transition tables, constraint triggers, WHEN on statement triggers,
// statement-level triggers on views — answers 0A000. A view's triggers
// are INSTEAD OF row triggers, in its meta the same way.

// Trigger is one trigger of a table.
type Trigger struct {
	Name     string `json:"name"`
	OID      uint32 `json:"oid"`
	Function string `json:"function"` // the trigger function's name (no arguments)
	Before   bool   `json:"before,omitempty"`
	Row      bool   `json:"row,omitempty"`
	// Events are INSERT, UPDATE, DELETE, TRUNCATE in PostgreSQL's tgtype order.
	Events  []string `json:"events"`
	Columns []string `json:"columns,omitempty"` // UPDATE OF
	When    string   `json:"when,omitempty"`    // SQL text of WHEN (…)
	// Disabled: ALTER TABLE … DISABLE TRIGGER (pg_trigger.tgenabled 'D').
	Disabled bool `json:"disabled,omitempty"`
	// Args are EXECUTE FUNCTION f('a', …)'s arguments (TG_ARGV).
	Args []string `json:"args,omitempty"`
	// Instead: an INSTEAD OF row trigger of a view.
	Instead bool `json:"instead,omitempty"`
}

// Fires reports whether the trigger fires for event at timing/level.
func (t Trigger) Fires(event string, before, row bool) bool {
	return !t.Disabled && !t.Instead && t.Before == before && t.Row == row && slices.Contains(t.Events, event)
}

// FiresInstead reports an enabled INSTEAD OF trigger of event.
func (t Trigger) FiresInstead(event string) bool {
	return !t.Disabled && t.Instead && slices.Contains(t.Events, event)
}

// PostgreSQL's tgtype bits (trigger.h).
const (
	trigRow      = 1 << 0
	trigBefore   = 1 << 1
	trigInsert   = 1 << 2
	trigDelete   = 1 << 3
	trigUpdate   = 1 << 4
	trigTruncate = 1 << 5
	trigInstead  = 1 << 6
)

// TgType is pg_trigger.tgtype.
func (t Trigger) TgType() int16 {
	v := int16(0)
	if t.Row {
		v |= trigRow
	}
	if t.Before {
		v |= trigBefore
	}
	if t.Instead {
		v |= trigInstead
	}
	for _, e := range t.Events {
		switch e {
		case "INSERT":
			v |= trigInsert
		case "DELETE":
			v |= trigDelete
		case "UPDATE":
			v |= trigUpdate
		case "TRUNCATE":
			v |= trigTruncate
		}
	}
	return v
}

// tableForTrigger resolves the table a trigger statement names.
func (pc *planCtx) tableForTrigger(rv *q.RangeVar) (graph.TableEntry, TableMeta, string, error) {
	name, err := pc.relName(rv)
	if err != nil {
		return graph.TableEntry{}, TableMeta{}, "", err
	}
	e, m, ok, err := pc.v.table(name)
	if err != nil {
		return graph.TableEntry{}, TableMeta{}, "", err
	}
	if !ok || m.Relkind == RelEnum || m.Relkind == RelFunction || m.Relkind == RelExtension || m.Relkind == RelPropGraph {
		return graph.TableEntry{}, TableMeta{}, name, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if m.Relkind != RelTable && m.Relkind != RelView {
		return graph.TableEntry{}, TableMeta{}, name, errorf(CodeWrongObjectType, "\"%s\" is a %s", name, m.Relkind).
			WithDetail(fmt.Sprintf("Triggers on %ss are not supported here.", m.Relkind))
	}
	return e, cloneMeta(m), name, nil
}

// createTrigger plans CREATE [OR REPLACE] TRIGGER.
func (pc *planCtx) createTrigger(st *q.CreateTrigStmt) ([]Change, error) {
	switch {
	case st.Isconstraint:
		return nil, notSupported("CREATE CONSTRAINT TRIGGER")
	}
	e, m, table, err := pc.tableForTrigger(st.Relation)
	if err != nil {
		return nil, err
	}
	instead := st.Timing&trigInstead != 0
	// PostgreSQL's checks of the relation kind, then of INSTEAD OF
	switch {
	case m.Relkind == RelTable && instead:
		return nil, errorf(CodeWrongObjectType, "\"%s\" is a table", st.Relation.Relname).WithDetail("Tables cannot have INSTEAD OF triggers.")
	case m.Relkind == RelView && !instead && st.Row:
		return nil, errorf(CodeWrongObjectType, "\"%s\" is a view", st.Relation.Relname).WithDetail("Views cannot have row-level BEFORE or AFTER triggers.")
	case m.Relkind == RelView && st.Events&trigTruncate != 0:
		return nil, errorf(CodeWrongObjectType, "\"%s\" is a view", st.Relation.Relname).WithDetail("Views cannot have TRUNCATE triggers.")
	case m.Relkind == RelView && !instead:
		return nil, notSupported("statement-level triggers on views")
	case instead && !st.Row:
		return nil, errorf(pgerr.FeatureNotSupported, "INSTEAD OF triggers must be FOR EACH ROW")
	case instead && st.WhenClause != nil:
		return nil, errorf(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have WHEN conditions")
	case instead && len(st.Columns) > 0:
		return nil, errorf(pgerr.FeatureNotSupported, "INSTEAD OF triggers cannot have column lists")
	}
	switch {
	case st.Events&trigTruncate != 0 && st.Row:
		return nil, errorf(pgerr.FeatureNotSupported, "TRUNCATE FOR EACH ROW triggers are not supported")
	case len(st.TransitionRels) > 0:
		return nil, notSupported("transition tables (REFERENCING) of triggers")
	case st.WhenClause != nil && !st.Row:
		return nil, notSupported("WHEN conditions of statement triggers")
	}
	fname, err := funcNameOf(st.Funcname)
	if err != nil {
		return nil, err
	}
	_, fm, ok, err := pc.v.table(funcEntryName(fname, nil))
	if err != nil {
		return nil, err
	}
	if !ok || fm.Function == nil {
		return nil, errorf(CodeUndefinedFunctionDDL, "function %s() does not exist", fname)
	}
	if fm.Function.Ret.OID != oidTrigger {
		return nil, errorf(CodeInvalidObjectDefinition, "function %s must return type trigger", fname)
	}
	t := Trigger{Name: st.Trigname, Function: fname, Before: st.Timing&trigBefore != 0, Instead: instead, Row: st.Row, Args: stringList(st.Args)}
	for _, ev := range []struct {
		bit  int32
		name string
	}{{trigInsert, "INSERT"}, {trigDelete, "DELETE"}, {trigUpdate, "UPDATE"}, {trigTruncate, "TRUNCATE"}} {
		if st.Events&ev.bit != 0 {
			t.Events = append(t.Events, ev.name)
		}
	}
	t.Columns = stringList(st.Columns)
	for _, c := range t.Columns {
		if !slices.ContainsFunc(m.Columns, func(x ColumnMeta) bool { return x.Name == c }) {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", c, table)
		}
	}
	if st.WhenClause != nil {
		if t.When, err = deparseExpr(st.WhenClause); err != nil {
			return nil, err
		}
		quals := columnRefsQualifiers(st.WhenClause)
		if slices.Contains(t.Events, "INSERT") && slices.ContainsFunc(quals, func(r qualRef) bool { return r.name == "old" }) {
			return nil, errorf(CodeInvalidObjectDefinition, "INSERT trigger's WHEN condition cannot reference OLD values").WithPosition(quals[slices.IndexFunc(quals, func(r qualRef) bool { return r.name == "old" })].pos)
		}
		if slices.Contains(t.Events, "DELETE") && slices.ContainsFunc(quals, func(r qualRef) bool { return r.name == "new" }) {
			return nil, errorf(CodeInvalidObjectDefinition, "DELETE trigger's WHEN condition cannot reference NEW values").WithPosition(quals[slices.IndexFunc(quals, func(r qualRef) bool { return r.name == "new" })].pos)
		}
	}
	i := slices.IndexFunc(m.Triggers, func(x Trigger) bool { return x.Name == t.Name })
	if i >= 0 {
		if !st.Replace {
			return nil, errorf(CodeDuplicateObject, "trigger \"%s\" for relation \"%s\" already exists", t.Name, table)
		}
		t.OID = m.Triggers[i].OID
		m.Triggers[i] = t
	} else {
		h := fnv.New32a()
		h.Write([]byte(table + "/" + t.Name + "/" + pc.newKey()))
		t.OID = 0x4000_0000 + h.Sum32()%0x1000_0000
		m.Triggers = append(m.Triggers, t)
	}
	return []Change{triggerChange(e, m, "CREATE TRIGGER")}, nil
}

// columnRefsQualifiers lists the first names of an expression's
// qualified column references (new, old).
func columnRefsQualifiers(n *q.Node) []qualRef {
	var out []qualRef
	walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		cr, ok := m.Interface().(*q.ColumnRef)
		if !ok {
			return true
		}
		if len(cr.Fields) > 1 {
			out = append(out, qualRef{strings.ToLower(cr.Fields[0].GetString_().GetSval()), cr.Location + 1})
		}
		return false
	})
	return out
}

// triggerChange is the catalog-only change storing a table's triggers.
func triggerChange(e graph.TableEntry, m TableMeta, tag string) *AlterTable {
	def := e.Def
	def.Extra = m.Encode()
	return &AlterTable{Name: e.Name, Def: def, Meta: m, CommandTag: tag}
}

// dropTrigger plans DROP TRIGGER [IF EXISTS] name ON table.
func (pc *planCtx) dropTrigger(st *q.DropStmt) ([]Change, error) {
	var out []Change
	var ns []*pgerr.Error
	for _, o := range st.Objects {
		parts := stringList(o.GetList().GetItems())
		if len(parts) < 2 {
			return nil, errorf(CodeSyntaxError, "invalid trigger name")
		}
		trig := parts[len(parts)-1]
		rv := &q.RangeVar{Relname: parts[len(parts)-2]}
		if len(parts) > 2 {
			rv.Schemaname = parts[len(parts)-3]
		}
		e, m, table, err := pc.tableForTrigger(rv)
		if err != nil {
			if st.MissingOk && errCode(err) == CodeUndefinedTable {
				ns = append(ns, notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", table))
				continue
			}
			return nil, err
		}
		i := slices.IndexFunc(m.Triggers, func(x Trigger) bool { return x.Name == trig })
		if i < 0 {
			if st.MissingOk {
				ns = append(ns, notice(pgerr.SuccessfulCompletion, "trigger \"%s\" for relation \"%s\" does not exist, skipping", trig, table))
				continue
			}
			return nil, errorf(CodeUndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", trig, table)
		}
		m.Triggers = slices.Delete(m.Triggers, i, i+1)
		out = append(out, triggerChange(e, m, "DROP TRIGGER"))
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP TRIGGER", notes: notes{ns}}}, nil
	}
	out[0].(*AlterTable).Notice = ns
	return out, nil
}

// enableTriggers applies ALTER TABLE … ENABLE/DISABLE TRIGGER name | ALL
// | USER to m (all: every trigger; there are no internal ones).
func enableTriggers(m *TableMeta, table, name string, all, enable bool) error {
	if all {
		for i := range m.Triggers {
			m.Triggers[i].Disabled = !enable
		}
		return nil
	}
	i := slices.IndexFunc(m.Triggers, func(x Trigger) bool { return x.Name == name })
	if i < 0 {
		return errorf(CodeUndefinedObject, "trigger \"%s\" for table \"%s\" does not exist", name, table)
	}
	m.Triggers[i].Disabled = !enable
	return nil
}

// triggersUsing lists "trigger t on table x depends on function f()" for
// the triggers calling the function fname.
func (pc *planCtx) triggersUsing(fname string) ([]string, error) {
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, err
	}
	var out []string
	for i, e := range es {
		for _, t := range ms[i].Triggers {
			if t.Function == fname {
				kind := "table"
				if ms[i].Relkind == RelView {
					kind = "view"
				}
				out = append(out, fmt.Sprintf("trigger %s on %s %s depends on function %s()", t.Name, kind, e.Name, fname))
			}
		}
	}
	return out, nil
}

// qualRef is the qualifier of a column reference and the reference's
// 1-based position in the statement.
type qualRef struct {
	name string
	pos  int32
}
