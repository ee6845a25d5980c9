package planner

import (
	"slices"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Column-level checks (column_privileges.go): a privilege the role lacks
// on a relation may still be held on every column the statement uses
// it for, as in PostgreSQL's ExecCheckRTEPerms. cols maps a column
// privilege to the columns (indexes in the relation's columns) it is
// needed on; an empty list means "any column" (SELECT count(*), INSERT
// … DEFAULT VALUES); a privilege not in cols is needed on the relation.
type colNeeds map[access.TablePrivs][]int

// needCols refuses role without privs on td, unless each missing
// privilege is held on the columns cols lists for it.
func (pc *privCtx) needCols(role uint32, td *exec.TableDef, privs access.TablePrivs, cols colNeeds) error {
	if pc == nil || privs == 0 {
		return nil
	}
	held, _ := pc.c.TablePrivileges(role, td.Owner, td.ACL)
	missing := privs &^ held
	for p := access.TablePrivs(1); missing != 0; p <<= 1 {
		if missing&p == 0 {
			continue
		}
		missing &^= p
		need, ok := cols[p]
		if !ok || p&access.AllColumnPrivs == 0 {
			return errPermission(relKind(td), td.RelName())
		}
		hasOn := func(i int) bool {
			if i < 0 || i >= len(td.Columns) {
				return false
			}
			h, _ := pc.c.ColumnOnly(role, td.Columns[i].ACL)
			return h&p != 0
		}
		if len(need) == 0 {
			found := false
			for i := range td.Columns {
				found = found || hasOn(i)
			}
			if !found {
				return errPermission(relKind(td), td.RelName())
			}
			continue
		}
		for _, i := range need {
			if !hasOn(i) {
				return errPermission(relKind(td), td.RelName())
			}
		}
	}
	return nil
}

// columnIndexes are the indexes of the named columns of td (unknown
// names are left to the statement to report).
func columnIndexes(td *exec.TableDef, names []string) []int {
	var out []int
	for _, n := range names {
		if i := slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == n }); i >= 0 {
			out = append(out, i)
		}
	}
	return out
}

func everyColumn(td *exec.TableDef) []int {
	out := make([]int, len(td.Columns))
	for i := range out {
		out[i] = i
	}
	return out
}

// targetColumnRefs are the columns of the DML target (named relname,
// aliased alias) the expressions reference: unqualified names of its
// columns, names qualified by it, and * (every column).
func targetColumnRefs(td *exec.TableDef, relname, alias string, nodes ...*q.Node) []int {
	seen := map[int]bool{}
	var out []int
	add := func(i int) {
		if i >= 0 && !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
	}
	for _, n := range nodes {
		if n == nil {
			continue
		}
		replaceColumnRefs(n.ProtoReflect(), func(cr *q.ColumnRef) *q.Node {
			var parts []string
			star := false
			for _, f := range cr.Fields {
				if f.GetAStar() != nil {
					star = true
				} else {
					parts = append(parts, f.GetString_().GetSval())
				}
			}
			qual := ""
			if len(parts) >= 2 || star && len(parts) == 1 {
				qual = parts[0]
				if !star {
					qual = parts[len(parts)-2]
				}
			}
			if qual != "" && qual != relname && qual != alias {
				return nil
			}
			if star {
				for i := range td.Columns {
					add(i)
				}
				return nil
			}
			if len(parts) > 0 {
				add(slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == parts[len(parts)-1] }))
			}
			return nil
		})
	}
	return out
}

// setColumns are the columns an UPDATE's SET list assigns.
func setColumns(td *exec.TableDef, list []*q.Node) []int {
	var names []string
	for _, n := range list {
		if rt := n.GetResTarget(); rt != nil {
			names = append(names, rt.Name)
		}
	}
	return columnIndexes(td, names)
}

// insertColumns are the columns an INSERT names (all of them without a
// column list).
func insertColumns(td *exec.TableDef, st *q.InsertStmt) []int {
	if len(st.Cols) == 0 {
		if st.SelectStmt == nil {
			return nil // DEFAULT VALUES: any column
		}
		return everyColumn(td)
	}
	var names []string
	for _, n := range st.Cols {
		if rt := n.GetResTarget(); rt != nil {
			names = append(names, rt.Name)
		}
	}
	return columnIndexes(td, names)
}

// conflictReads are the target columns INSERT … ON CONFLICT reads: the
// conflict target's columns (a named constraint's), what its WHERE and
// DO UPDATE's SET values and WHERE reference, and the columns read
// through excluded, which PostgreSQL also checks against the target.
func conflictReads(td *exec.TableDef, st *q.InsertStmt) []int {
	oc := st.OnConflictClause
	var out []int
	if inf := oc.Infer; inf != nil {
		if inf.Conname != "" {
			for _, k := range uniqueKeys(td) {
				if k.name == inf.Conname {
					out = append(out, k.cols...)
				}
			}
		}
		for _, e := range inf.IndexElems {
			ie := e.GetIndexElem()
			if ie == nil {
				continue
			}
			if ie.Name != "" {
				out = append(out, columnIndexes(td, []string{ie.Name})...)
			} else {
				out = append(out, targetColumnRefs(td, st.Relation.Relname, aliasOfRV(st.Relation), ie.Expr)...)
			}
		}
		out = append(out, targetColumnRefs(td, st.Relation.Relname, aliasOfRV(st.Relation), inf.WhereClause)...)
	}
	if oc.Action == q.OnConflictAction_ONCONFLICT_UPDATE {
		reads := append(setValues(oc.TargetList), oc.WhereClause)
		out = append(out, targetColumnRefs(td, st.Relation.Relname, aliasOfRV(st.Relation), reads...)...)
		out = append(out, targetColumnRefs(td, "excluded", "excluded", reads...)...)
	}
	return out
}

// mergeColumns are MERGE's column needs on its target: SELECT on the
// columns the join condition, the WHEN conditions, the SET values and
// RETURNING read; UPDATE on the columns SET assigns; INSERT on the
// columns inserted (the leading ones without a column list, any for
// DEFAULT VALUES). DELETE is a table privilege.
func mergeColumns(td *exec.TableDef, st *q.MergeStmt) colNeeds {
	rel, alias := st.Relation.Relname, aliasOfRV(st.Relation)
	reads := append([]*q.Node{st.JoinCondition}, st.ReturningList...)
	need := colNeeds{}
	for _, n := range st.MergeWhenClauses {
		wc := n.GetMergeWhenClause()
		if wc == nil {
			continue
		}
		reads = append(reads, wc.Condition)
		switch wc.CommandType {
		case q.CmdType_CMD_UPDATE:
			reads = append(reads, setValues(wc.TargetList)...)
			need[access.PrivUpdate] = append(need[access.PrivUpdate], setColumns(td, wc.TargetList)...)
		case q.CmdType_CMD_INSERT:
			var cols []int
			switch {
			case len(wc.TargetList) > 0:
				cols = setColumns(td, wc.TargetList)
			case len(wc.Values) > 0:
				cols = everyColumn(td)[:min(len(wc.Values), len(td.Columns))]
			}
			need[access.PrivInsert] = append(append([]int{}, need[access.PrivInsert]...), cols...)
		}
	}
	need[access.PrivSelect] = targetColumnRefs(td, rel, alias, reads...)
	return need
}

// aliasOfRV is the name a relation is referred to by.
func aliasOfRV(rv *q.RangeVar) string {
	if rv.Alias != nil {
		return rv.Alias.Aliasname
	}
	return rv.Relname
}
