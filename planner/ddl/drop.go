package ddl

import (
	"fmt"
	"slices"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// dropStmt dispatches DROP by object type.
func (pc *planCtx) dropStmt(st *q.DropStmt) ([]Change, error) {
	switch st.RemoveType {
	case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_SEQUENCE, q.ObjectType_OBJECT_INDEX:
		names, err := pc.objectNames(st.Objects)
		if err != nil {
			return nil, err
		}
		switch st.RemoveType {
		case q.ObjectType_OBJECT_TABLE:
			return pc.dropTables(st, names)
		case q.ObjectType_OBJECT_SEQUENCE:
			return pc.dropSequences(st, names)
		}
		return pc.dropIndexes(st, names)
	case q.ObjectType_OBJECT_VIEW:
		names, err := pc.objectNames(st.Objects)
		if err != nil {
			return nil, err
		}
		return pc.dropViews(st, names)
	case q.ObjectType_OBJECT_MATVIEW, q.ObjectType_OBJECT_FOREIGN_TABLE:
		// No such relations exist here: IF EXISTS skips, a table of that
		// name answers PostgreSQL's wrong-type error.
		names, err := pc.objectNames(st.Objects)
		if err != nil {
			return nil, err
		}
		kind := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(st.RemoveType.String(), "OBJECT_"), "_", " "))
		if kind == "matview" {
			kind = "materialized view"
		}
		var ns []*pgerr.Error
		for _, n := range names {
			if _, m, ok, err := pc.v.table(n); err != nil {
				return nil, err
			} else if ok {
				return nil, errorf(CodeWrongObjectType, "\"%s\" is not a %s", n, kind).WithHint(dropHint(m))
			}
			if !st.MissingOk {
				return nil, errorf(CodeUndefinedTable, "%s \"%s\" does not exist", kind, n)
			}
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "%s \"%s\" does not exist, skipping", kind, n))
		}
		return []Change{&NoOp{CommandTag: "DROP " + strings.ToUpper(kind), notes: notes{ns}}}, nil
	case q.ObjectType_OBJECT_SCHEMA:
		return pc.dropSchemas(st)
	case q.ObjectType_OBJECT_TYPE:
		return pc.dropTypes(st)
	case q.ObjectType_OBJECT_DOMAIN:
		return pc.dropDomains(st) // domain.go
	case q.ObjectType_OBJECT_EXTENSION:
		return pc.dropExtensions(st)
	case q.ObjectType_OBJECT_FUNCTION, q.ObjectType_OBJECT_PROCEDURE, q.ObjectType_OBJECT_ROUTINE:
		return pc.dropFunctions(st)
	case q.ObjectType_OBJECT_TRIGGER:
		return pc.dropTrigger(st)
	}
	return nil, notSupported("DROP %s", strings.ReplaceAll(strings.TrimPrefix(st.RemoveType.String(), "OBJECT_"), "_", " "))
}

// objectNames reads DROP's object list (each a qualified name list).
func (pc *planCtx) objectNames(objs []*q.Node) ([]string, error) {
	var out []string
	for _, o := range objs {
		parts := stringList(o.GetList().GetItems())
		if len(parts) == 0 {
			return nil, errorf(CodeSyntaxError, "invalid object name")
		}
		rv := &q.RangeVar{Relname: parts[len(parts)-1]}
		if len(parts) >= 2 {
			rv.Schemaname = parts[len(parts)-2]
		}
		if len(parts) >= 3 {
			rv.Catalogname = parts[len(parts)-3]
		}
		n, err := pc.relName(rv)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// dropTargets resolves the relations DROP TABLE or DROP VIEW names: each
// must be of kind want (word names the kind in messages, with the HINT
// naming the right DROP otherwise); under IF EXISTS a missing one is
// skipped with a NOTICE. It returns them in order without repeats, and
// as a set.
func (pc *planCtx) dropTargets(names []string, want string, word string, missingOk bool) (order []string, set map[string]bool, skipped []*pgerr.Error, err error) {
	set = map[string]bool{}
	for _, n := range names {
		_, m, ok, err := pc.v.table(n)
		if err != nil {
			return nil, nil, nil, err
		}
		if !ok {
			if _, isIndex, err := pc.indexTable(n); err == nil && isIndex {
				return nil, nil, nil, errorf(CodeWrongObjectType, "\"%s\" is not a %s", n, word).WithHint("Use DROP INDEX to remove an index.")
			}
			if missingOk {
				skipped = append(skipped, notice(pgerr.SuccessfulCompletion, "%s \"%s\" does not exist, skipping", word, n))
				continue
			}
			return nil, nil, nil, errorf(CodeUndefinedTable, "%s \"%s\" does not exist", word, n)
		}
		if m.Relkind != want {
			return nil, nil, nil, errorf(CodeWrongObjectType, "\"%s\" is not a %s", n, word).WithHint(dropHint(m))
		}
		if !set[n] {
			set[n] = true
			order = append(order, n)
		}
	}
	return order, set, skipped, nil
}

// dropTables plans DROP TABLE. Foreign keys of other tables referencing a
// dropped table need CASCADE, which drops those constraints; an edge
// table whose endpoint references a dropped node table is dropped with
// it (an edge cannot outlive its endpoints' table).
func (pc *planCtx) dropTables(st *q.DropStmt, names []string) ([]Change, error) {
	cascade := st.Behavior == q.DropBehavior_DROP_CASCADE
	order, drop, skipped, err := pc.dropTargets(names, RelTable, "table", st.MissingOk)
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return []Change{&NoOp{CommandTag: "DROP TABLE", notes: notes{skipped}}}, nil
	}
	// Dependents, transitively through cascaded edge tables.
	type fkDrop struct{ table, fk, on string }
	var fkDrops []fkDrop
	var cascaded []string
	var lines []string
	for i := 0; i < len(order); i++ {
		deps, err := pc.v.referencing(order[i])
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			if drop[d.Table] {
				continue
			}
			if d.Edge {
				lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on table %s", d.FK.Name, d.Table, order[i]))
				drop[d.Table] = true
				order = append(order, d.Table)
				cascaded = append(cascaded, d.Table)
				continue
			}
			lines = append(lines, fmt.Sprintf("constraint %s on table %s depends on table %s", d.FK.Name, d.Table, order[i]))
			fkDrops = append(fkDrops, fkDrop{d.Table, d.FK.Name, order[i]})
		}
	}
	// Views reading a dropped table (and views reading those).
	var views []viewDrop
	for _, n := range slices.Clone(order) {
		vs, err := pc.dependentViews(n, "", "table "+n, drop)
		if err != nil {
			return nil, err
		}
		for _, d := range vs {
			lines = append(lines, d.line)
		}
		views = append(views, vs...)
	}
	// Standalone sequences OWNED BY a dropped table go with it.
	es, ms, err := pc.v.all()
	if err != nil {
		return nil, err
	}
	var ownedSeqs []string
	for i, e := range es {
		if s := ms[i].Sequence; ms[i].Relkind == RelSequence && s != nil && s.OwnedBy != "" {
			t := s.OwnedBy[:max(strings.LastIndexByte(s.OwnedBy, '.'), 0)]
			if drop[t] && !drop[e.Name] {
				ownedSeqs = append(ownedSeqs, e.Name)
			}
		}
	}
	// Property graphs using a dropped table (propgraph.go).
	for _, n := range order {
		gs, err := pc.propGraphsUsing(n)
		if err != nil {
			return nil, err
		}
		if len(gs) > 0 && cascade {
			return nil, notSupported("DROP TABLE … CASCADE of a table a property graph uses (%s)", gs[0])
		}
		lines = append(lines, gs...)
	}
	if len(lines) > 0 && !cascade {
		return nil, errorf(CodeDependentObjects, "cannot drop table %s because other objects depend on it", order[0]).
			WithDetail(strings.Join(lines, "\n")).WithHint("Use DROP ... CASCADE to drop the dependent objects too.")
	}
	var det []string
	for _, c := range cascaded {
		det = append(det, "drop cascades to table "+c)
	}
	for _, f := range fkDrops {
		det = append(det, fmt.Sprintf("drop cascades to constraint %s on table %s", f.fk, f.table))
	}
	for _, v := range views {
		det = append(det, "drop cascades to view "+v.name)
	}
	ns := append(skipped, cascadeNotices(det)...)
	var out []Change
	for _, n := range order {
		out = append(out, &DropTable{Name: n, Cascade: cascade, CommandTag: "DROP TABLE"})
	}
	for _, v := range views {
		out = append(out, &DropTable{Name: v.name, Cascade: cascade, CommandTag: "DROP TABLE"})
	}
	for _, n := range ownedSeqs {
		out = append(out, &DropTable{Name: n, Cascade: cascade, CommandTag: "DROP TABLE"})
	}
	// Remaining tables lose the foreign keys into dropped tables.
	alters := map[string]*alterState{}
	var alterOrder []string
	for _, f := range fkDrops {
		if drop[f.table] {
			continue
		}
		a := alters[f.table]
		if a == nil {
			a, _, err = pc.startAlter(f.table, "DROP TABLE")
			if err != nil {
				return nil, err
			}
			alters[f.table] = a
			alterOrder = append(alterOrder, f.table)
		}
		fk := f.fk
		a.b.meta.ForeignKeys = slices.DeleteFunc(a.b.meta.ForeignKeys, func(x ForeignKey) bool { return x.Name == fk })
	}
	for _, n := range alterOrder {
		c, err := alters[n].change()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	out[0].(*DropTable).Notice = ns
	return out, nil
}

// dropIndexes plans DROP INDEX: an index backing a constraint cannot be
// dropped on its own (PostgreSQL's 2BP01).
func (pc *planCtx) dropIndexes(st *q.DropStmt, names []string) ([]Change, error) {
	var out []Change
	var skipped []*pgerr.Error
	for _, n := range names {
		table, ok, err := pc.indexTable(n)
		if err != nil {
			return nil, err
		}
		if !ok {
			if _, m, isRel, err := pc.v.table(n); err != nil {
				return nil, err
			} else if isRel {
				return nil, errorf(CodeWrongObjectType, "\"%s\" is not an index", n).WithHint(dropHint(m))
			}
			if st.MissingOk {
				skipped = append(skipped, notice(pgerr.SuccessfulCompletion, "index \"%s\" does not exist, skipping", n))
				continue
			}
			return nil, errorf(CodeUndefinedObject, "index \"%s\" does not exist", n)
		}
		a, _, err := pc.startAlter(table, "DROP INDEX")
		if err != nil {
			return nil, err
		}
		m := &a.b.meta
		i := slices.IndexFunc(m.Indexes, func(ix Index) bool { return ix.Name == n })
		if c := m.Indexes[i].Constraint; c != "" {
			return nil, errorf(CodeDependentObjects, "cannot drop index %s because constraint %s on table %s requires it", n, c, table).
				WithHint(fmt.Sprintf("You can drop constraint %s on table %s instead.", c, table))
		}
		ix := m.Indexes[i]
		m.Indexes = slices.Delete(m.Indexes, i, i+1)
		if ix.Unique && !ix.Computed() && !m.hasKeyOn(ix.Columns) {
			// foreign keys that relied on this unique index
			if err := a.dropKeyDependents(n, ix.Columns, st.Behavior == q.DropBehavior_DROP_CASCADE); err != nil {
				if Code(err) == CodeDependentObjects {
					err = errorf(CodeDependentObjects, "cannot drop index %s because other objects depend on it", n).
						WithDetail(err.(*pgerr.Error).Detail).WithHint(err.(*pgerr.Error).Hint)
				}
				return nil, err
			}
		}
		cs, err := a.changes()
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	if len(out) == 0 {
		return []Change{&NoOp{CommandTag: "DROP INDEX", notes: notes{skipped}}}, nil
	}
	addNotices(out[0], skipped)
	return out, nil
}
