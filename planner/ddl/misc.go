package ddl

import (
	"fmt"
	"slices"
	"strings"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// noOpOn accepts a statement without effect after checking that the
// relation exists (PostgreSQL would fail on a missing one).
func (pc *planCtx) noOpOn(rv *q.RangeVar, missingOk bool, tag string) ([]Change, error) {
	name, err := pc.relName(rv)
	if err != nil {
		return nil, err
	}
	taken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if !taken[name] {
		if missingOk {
			return []Change{&NoOp{CommandTag: tag, notes: notes{[]*pgerr.Error{notice(pgerr.SuccessfulCompletion, "relation \"%s\" does not exist, skipping", name)}}}}, nil
		}
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	return []Change{&NoOp{CommandTag: tag}}, nil
}

// truncate plans TRUNCATE. Tables referencing a truncated table must be
// truncated with it (listed, or pulled in by CASCADE), as in PostgreSQL.
func (pc *planCtx) truncate(st *q.TruncateStmt) ([]Change, error) {
	set := map[string]bool{}
	var order []string
	for _, r := range st.Relations {
		rv := r.GetRangeVar()
		if rv == nil {
			return nil, errorf(CodeSyntaxError, "invalid relation in TRUNCATE")
		}
		name, err := pc.relName(rv)
		if err != nil {
			return nil, err
		}
		_, m, ok, err := pc.v.table(name)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
		}
		if m.Relkind != RelTable {
			return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table", name)
		}
		if !set[name] {
			set[name] = true
			order = append(order, name)
		}
	}
	var ns []*pgerr.Error
	for i := 0; i < len(order); i++ {
		deps, err := pc.v.referencing(order[i])
		if err != nil {
			return nil, err
		}
		for _, d := range deps {
			if set[d.Table] {
				continue
			}
			if st.Behavior != q.DropBehavior_DROP_CASCADE {
				return nil, errorf(CodeFeatureNotSupported, "cannot truncate a table referenced in a foreign key constraint").
					WithDetail(fmt.Sprintf("Table \"%s\" references \"%s\".", d.Table, order[i])).
					WithHint(fmt.Sprintf("Truncate table \"%s\" at the same time, or use TRUNCATE ... CASCADE.", d.Table))
			}
			set[d.Table] = true
			order = append(order, d.Table)
			ns = append(ns, notice(pgerr.SuccessfulCompletion, "truncate cascades to table \"%s\"", d.Table))
		}
	}
	t := &Truncate{Names: order, notes: notes{ns}}
	out := []Change{t}
	if st.RestartSeqs {
		// Restarted sequences get fresh allocator keys in this branch's
		// catalog (see restartSequence): values start again at START
		// without touching other branches that share the old keys.
		es, ms, err := pc.v.all()
		if err != nil {
			return nil, err
		}
		for i, e := range es {
			m := ms[i]
			owned := set[e.Name] && slices.ContainsFunc(m.Columns, func(c ColumnMeta) bool { return c.Sequence != nil })
			standalone := false
			if m.Relkind == RelSequence && m.Sequence != nil && m.Sequence.OwnedBy != "" {
				tbl := m.Sequence.OwnedBy[:max(strings.LastIndexByte(m.Sequence.OwnedBy, '.'), 0)]
				standalone = set[tbl]
			}
			if !owned && !standalone {
				continue
			}
			a, _, err := pc.startAlter(e.Name, "TRUNCATE TABLE")
			if err != nil {
				return nil, err
			}
			if standalone {
				a.b.meta.Sequence.Key = pc.newKey()
				s := *a.b.meta.Sequence
				s.Name = e.Name
				t.Restart = append(t.Restart, s)
			}
			for _, c := range a.b.cols {
				if c.meta.Sequence != nil {
					c.meta.Sequence.Key = pc.newKey()
					t.Restart = append(t.Restart, *c.meta.Sequence)
				}
			}
			cs, err := a.changes()
			if err != nil {
				return nil, err
			}
			out = append(out, cs...)
		}
	}
	return out, nil
}

// comment plans COMMENT ON TABLE / COLUMN (stored in the meta); comments
// on other objects are accepted without effect.
func (pc *planCtx) comment(st *q.CommentStmt) ([]Change, error) {
	switch st.Objtype {
	case q.ObjectType_OBJECT_TYPE:
		return pc.commentOnType(st)
	case q.ObjectType_OBJECT_DOMAIN:
		return pc.commentOnDomain(st) // domain.go
	case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_COLUMN, q.ObjectType_OBJECT_VIEW:
	case q.ObjectType_OBJECT_INDEX, q.ObjectType_OBJECT_SEQUENCE, q.ObjectType_OBJECT_TABCONSTRAINT,
		q.ObjectType_OBJECT_SCHEMA, q.ObjectType_OBJECT_EXTENSION, q.ObjectType_OBJECT_DATABASE:
		return []Change{&NoOp{CommandTag: "COMMENT"}}, nil
	default:
		return nil, notSupported("COMMENT ON %s", strings.ReplaceAll(strings.TrimPrefix(st.Objtype.String(), "OBJECT_"), "_", " "))
	}
	parts := stringList(st.Object.GetList().GetItems())
	col := ""
	if st.Objtype == q.ObjectType_OBJECT_COLUMN {
		if len(parts) < 2 {
			return nil, errorf(CodeSyntaxError, "column name must be qualified")
		}
		col, parts = parts[len(parts)-1], parts[:len(parts)-1]
	}
	rv := &q.RangeVar{Relname: parts[len(parts)-1]}
	if len(parts) > 1 {
		rv.Schemaname = parts[len(parts)-2]
	}
	name, err := pc.relName(rv)
	if err != nil {
		return nil, err
	}
	if e, m, ok, err := pc.v.table(name); err != nil {
		return nil, err
	} else if ok && (m.Relkind == RelView) != (st.Objtype == q.ObjectType_OBJECT_VIEW) && st.Objtype != q.ObjectType_OBJECT_COLUMN {
		if st.Objtype == q.ObjectType_OBJECT_VIEW {
			return nil, errorf(CodeWrongObjectType, "\"%s\" is not a view", name)
		}
		return nil, errorf(CodeWrongObjectType, "\"%s\" is not a table", name)
	} else if ok && m.Relkind == RelView {
		return pc.commentOnView(e, m, col, st.Comment)
	}
	a, ok, err := pc.startAlter(name, "COMMENT")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
	}
	if col == "" {
		a.b.meta.Comment = st.Comment
	} else {
		c := a.b.col(col)
		if c == nil {
			return nil, errorf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", col, name)
		}
		c.meta.Comment = st.Comment
	}
	return a.changes()
}

// maintenance accepts VACUUM / ANALYZE (storage maintenance is
// graph.optimize here) after checking the named tables exist.
func (pc *planCtx) maintenance(st *q.VacuumStmt) ([]Change, error) {
	tag := "VACUUM"
	if !st.IsVacuumcmd {
		tag = "ANALYZE"
	}
	for _, r := range st.Rels {
		if vr := r.GetVacuumRelation(); vr != nil && vr.Relation != nil {
			if _, err := pc.noOpOn(vr.Relation, false, tag); err != nil {
				return nil, err
			}
		}
	}
	return []Change{&NoOp{CommandTag: tag}}, nil
}
