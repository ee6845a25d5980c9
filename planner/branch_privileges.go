package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Branch privileges: GRANT/REVOKE … ON DATABASE b, since a database is a
// branch. PostgreSQL's CONNECT is checked wherever a session reaches a
// branch (login, SET graph.branch, procedures naming one); pggraph's
// WRITE before every statement that would publish a commit on the
// session's branch, and MERGE on the target of graph.merge. PUBLIC holds
// CONNECT, TEMPORARY, WRITE and MERGE on a branch until someone revokes
// them (access.PublicDefault), so `REVOKE WRITE, MERGE ON DATABASE main
// FROM PUBLIC` plus grants to named roles makes main a protected branch.
// CREATE and TEMPORARY guard creating schemas and temporary objects
// (database_privileges.go).

// errNoBranchPrivilege is PostgreSQL's error for a missing database
// privilege.
func errNoBranchPrivilege(branch string, p access.BranchPrivs) *wire.Error {
	return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied for database \"%s\"", branch).
		WithDetail(fmt.Sprintf("User does not have %s privilege.", p.Name()))
}

// checkBranchPrivilege refuses the current role without p on branch.
func (s *session) checkBranchPrivilege(ctx context.Context, branch string, p access.BranchPrivs) error {
	c, err := s.roleCatalog(ctx)
	if err != nil || c.Bootstrap() {
		return err
	}
	return branchPrivilege(c, s.currentRole(), branch, p)
}

func branchPrivilege(c *access.Catalog, role, branch string, p access.BranchPrivs) error {
	r := c.Role(role)
	if r == nil {
		return errNoBranchPrivilege(branch, p)
	}
	if held, _ := c.BranchPrivileges(r.OID, branch); held&p == 0 {
		return errNoBranchPrivilege(branch, p)
	}
	return nil
}

// grantOnBranches runs GRANT/REVOKE privileges ON DATABASE branches.
func (rc *roleChange) grantOnBranches(st *q.GrantStmt) error {
	if err := rc.checkGrantedBy(st.Grantor, rc.actorOID()); err != nil { // type_privileges.go
		return err
	}
	// PostgreSQL's order: the databases, the grantees, the privileges
	var branches []string
	for _, n := range st.Objects {
		sv := n.GetString_()
		if sv == nil {
			continue
		}
		branch := sv.GetSval()
		if _, err := rc.s.root.Head(context.Background(), branch); err != nil {
			if graph.IsUnknownBranch(err) {
				return errRole(pgerr.InvalidCatalogName, "database \"%s\" does not exist", branch)
			}
			return errRole(pgerr.IOError, "could not read branch \"%s\"", branch).WithDetail(err.Error())
		}
		branches = append(branches, branch)
	}
	grantees, err := rc.granteeOIDs(st.Grantees)
	if err != nil {
		return err
	}
	var privs access.BranchPrivs
	if len(st.Privileges) == 0 {
		privs = access.AllBranchPrivs
	}
	for _, n := range st.Privileges {
		ap := n.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return errRole(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
		}
		p, ok := access.ParseBranchPriv(ap.PrivName)
		if !ok {
			return errRole(pgerr.InvalidGrantOperation, "invalid privilege type %s for database", strings.ToUpper(ap.PrivName))
		}
		privs |= p
	}
	if st.IsGrant && st.GrantOption && slices.Contains(grantees, 0) {
		return errRole(pgerr.InvalidGrantOperation, "grant options can only be granted to roles")
	}
	actor := rc.actorOID()
	for _, branch := range branches {
		// what the grantor may pass on: everything for superusers (the
		// owner), else what it holds WITH GRANT OPTION
		var may access.BranchPrivs
		if rc.isSuper() {
			may = access.AllBranchPrivs
		} else {
			_, may = rc.c.BranchPrivileges(actor, branch)
		}
		if privs&may == 0 {
			what := "granted"
			if !st.IsGrant {
				what = "could be revoked"
			}
			rc.notice(&wire.Error{Severity: "WARNING", Code: pgerr.WarningPrivilegeNotGranted, Message: fmt.Sprintf("no privileges were %s for \"%s\"", what, branch)})
			continue
		}
		apply := privs & may
		items, _ := rc.c.BranchACL(branch)
		items = append([]access.ACLItem(nil), items...)
		grantor := rc.grantor(items, actor, apply)
		for _, g := range grantees {
			i := -1
			for j := range items {
				if items[j].Grantee == g && items[j].Grantor == grantor {
					i = j
				}
			}
			if st.IsGrant {
				if i >= 0 && items[i].Privs&access.PostgresBranchPrivs == 0 && apply&access.PostgresBranchPrivs != 0 {
					// an item holding only pggraph's privileges is no
					// aclitem of datacl: PostgreSQL appends the new one
					it := items[i]
					items = append(slices.Delete(items, i, i+1), it)
					i = len(items) - 1
				}
				if i < 0 {
					items = append(items, access.ACLItem{Grantee: g, Grantor: grantor})
					i = len(items) - 1
				}
				items[i].Privs |= apply
				if st.GrantOption {
					items[i].GrantOption |= apply
				}
				continue
			}
			if i < 0 {
				continue
			}
			// what g passed on with its grant option must go first
			// (RESTRICT), or goes with it (CASCADE)
			for j := range items {
				if items[j].Grantor == g && g != grantor && items[j].Privs&apply != 0 {
					if st.Behavior != q.DropBehavior_DROP_CASCADE {
						return errRole(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
					}
					items[j].Privs &^= apply
					items[j].GrantOption &^= apply
				}
			}
			if st.GrantOption { // REVOKE GRANT OPTION FOR
				items[i].GrantOption &^= apply
				continue
			}
			items[i].Privs &^= apply
			items[i].GrantOption &^= apply
		}
		rc.c.SetBranchACL(branch, items)
	}
	return nil
}

// grantor is whom a grant is recorded from, as PostgreSQL's
// select_best_grantor: the owner for superusers, else the actor when it
// holds the grant option itself, else a role it inherits that does.
func (rc *roleChange) grantor(items []access.ACLItem, actor uint32, privs access.BranchPrivs) uint32 {
	if rc.isSuper() {
		return access.BootstrapOID
	}
	best := actor
	for _, it := range items {
		if it.Grantee == 0 || it.GrantOption&privs == 0 || !rc.c.MemberOf(actor, it.Grantee, true) {
			continue
		}
		if it.Grantee == actor {
			return actor
		}
		if best == actor {
			best = it.Grantee
		}
	}
	return best
}

// dependentPrivileges refuses to drop a role that holds or granted
// branch privileges, as PostgreSQL refuses (2BP01) while privileges on a
// database name it.
func (rc *roleChange) dependentPrivileges(role *access.Role) error {
	// relations it owns or has grants on (table_privileges.go), on
	// this branch by name, on the others counted
	local, remote, err := rc.s.relationDependents(context.Background(), role.OID)
	if err != nil {
		return errRole(pgerr.IOError, "could not read the branches' relations").WithDetail(err.Error())
	}
	// schema grants first: in PostgreSQL 15 a role needs CREATE on
	// public before it can own relations there, and pg_shdepend lists
	// dependencies in the order they arose
	dbs := append(rc.schemaDependents(role), rc.builtinFunctionDependents(role)...)
	dbs = append(dbs, local...)
	dbs = append(dbs, rc.defaultACLDependents(role)...)
	for _, b := range rc.c.Branches {
		for _, it := range b.Items {
			if (it.Grantee == role.OID || it.Grantor == role.OID) && it.Privs != 0 {
				dbs = append(dbs, "privileges for database "+b.Branch)
				break
			}
		}
	}
	dbs = append(dbs, remote...)
	if len(dbs) == 0 {
		return nil
	}
	return errRole(pgerr.DependentObjectsStillExist, "role \"%s\" cannot be dropped because some objects depend on it", role.Name).
		WithDetail(strings.Join(dbs, "\n"))
}

// forgetBranch drops a deleted branch's privileges.
func (s *session) forgetBranch(ctx context.Context, branch string) error {
	if s.access == nil {
		return nil
	}
	_, err := s.access.Update(ctx, nil, func(c *access.Catalog) error {
		if dropped := c.DropSchemaACLs(branch); !c.DropBranchACL(branch) && !dropped {
			return access.ErrNoChange
		}
		return nil
	})
	return err
}

// inheritSchemaACLs gives a new branch the schema privileges of the
// branch it was created from: the branch copies from's schemas, and a
// role that could use or create in them there can here (as CREATE
// DATABASE copies its template's nspacl). Until this update lands the
// new branch answers with PostgreSQL's default schema ACLs.
func (s *session) inheritSchemaACLs(ctx context.Context, from, branch string) error {
	if s.access == nil {
		return nil
	}
	_, err := s.access.Update(ctx, nil, func(c *access.Catalog) error {
		if !c.CopySchemaACLs(from, branch) {
			return access.ErrNoChange
		}
		return nil
	})
	if err != nil {
		return wire.Errorf(pgerr.IOError, "branch \"%s\" was created, but its schema privileges could not be copied from \"%s\"", branch, from).WithDetail(err.Error())
	}
	return nil
}
