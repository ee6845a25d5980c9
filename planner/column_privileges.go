package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Column privileges: GRANT/REVOKE SELECT|INSERT|UPDATE|REFERENCES (col,
// …) ON t store a column ACL with the column's definition
// (ddl.ColumnMeta.ACL, access/column_privileges.go), versioned with the
// table like its ACL. The checks (column_checks.go) ask for a table
// privilege first and, when the role lacks it, for the privilege on
// every column the statement reads or writes, as PostgreSQL's
// ExecCheckRTEPerms does.

// grantColumns applies a GRANT/REVOKE's column privileges (cols) to the
// columns of relation m, as PostgreSQL's ExecGrant_Attribute: the
// grantor and its grant options come from the table's and the column's
// ACL together.
func (w *writer) grantColumns(pc *privCtx, st *q.GrantStmt, m *ddl.TableMeta, relname string, cols []*q.AccessPriv, grantees []uint32) error {
	// the privileges per column, in column order
	want := make([]access.TablePrivs, len(m.Columns))
	all := make([]bool, len(m.Columns))
	for _, ap := range cols {
		p := access.AllColumnPrivs
		if ap.PrivName != "" {
			tp, ok := access.ParseColumnPriv(ap.PrivName)
			if !ok {
				if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
					return wire.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for column", strings.ToUpper(ap.PrivName))
				}
				return wire.Errorf(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
			}
			p = tp
		}
		for _, cn := range ap.Cols {
			name := cn.GetString_().GetSval()
			i := slices.IndexFunc(m.Columns, func(c ddl.ColumnMeta) bool { return c.Name == name })
			if i < 0 {
				return wire.Errorf(pgerr.UndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", name, relname)
			}
			want[i] |= p
			all[i] = all[i] || ap.PrivName == ""
		}
	}
	what := "were granted"
	if !st.IsGrant {
		what = "could be revoked"
	}
	for i := range m.Columns {
		if want[i] == 0 {
			continue
		}
		c := &m.Columns[i]
		merged := access.MergedColumnACL(m.Owner, m.ACL, c.ACL)
		grantor, options := pc.c.TableGrantor(pc.role, m.Owner, merged, want[i])
		options &= access.AllColumnPrivs
		if options == 0 {
			if held, _ := pc.c.ColumnPrivileges(grantor, m.Owner, m.ACL, c.ACL); held == 0 {
				return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied for column \"%s\" of relation \"%s\"", c.Name, relname)
			}
		}
		this := want[i] & options
		if this == 0 {
			w.warn(fmt.Sprintf("no privileges %s for column \"%s\" of relation \"%s\"", what, c.Name, relname))
			continue
		}
		if !all[i] && this != want[i] {
			w.warn(fmt.Sprintf("not all privileges %s for column \"%s\" of relation \"%s\"", what, c.Name, relname))
		}
		acl := c.ACL
		for _, g := range grantees {
			if st.IsGrant {
				acl = access.GrantColumn(acl, g, grantor, this, st.GrantOption)
				continue
			}
			next, err := pc.c.RevokeColumn(acl, m.Owner, g, grantor, this, st.GrantOption, st.Behavior == q.DropBehavior_DROP_CASCADE)
			if err != nil {
				return wire.Errorf(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
			}
			acl = next
		}
		c.ACL = nonEmptyColumnACL(acl)
	}
	return nil
}

// revokeAllColumns is the column part of a table-level REVOKE: PostgreSQL
// revokes the same privileges from the grantees on every column that
// has an ACL.
func (w *writer) revokeAllColumns(pc *privCtx, st *q.GrantStmt, m *ddl.TableMeta, grantor uint32, privs access.TablePrivs, grantees []uint32) error {
	for i := range m.Columns {
		c := &m.Columns[i]
		if c.ACL == nil {
			continue
		}
		acl := c.ACL
		for _, g := range grantees {
			next, err := pc.c.RevokeColumn(acl, m.Owner, g, grantor, privs, st.GrantOption, st.Behavior == q.DropBehavior_DROP_CASCADE)
			if err != nil {
				return wire.Errorf(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
			}
			acl = next
		}
		c.ACL = nonEmptyColumnACL(acl)
	}
	return nil
}

// nonEmptyColumnACL is acl, or nil once nothing is left in it: PostgreSQL's
// ExecGrant_Attribute stores a NULL attacl rather than an empty one, so
// pg_attribute and \dp show a column whose grants were all revoked as one
// that never had any.
func nonEmptyColumnACL(acl *access.TableACL) *access.TableACL {
	if acl == nil || len(acl.Items) == 0 {
		return nil
	}
	return acl
}
