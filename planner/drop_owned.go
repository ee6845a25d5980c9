package planner

import (
	"slices"

	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// dropOwned runs DROP OWNED BY role [, …] [CASCADE | RESTRICT] as
// PostgreSQL 15 does for one database, the session's branch: the
// relations and sequences the roles own there are dropped (views first,
// then tables, then sequences, each kind as one DROP), the privileges
// granted to them on the branch's other relations are revoked (with
// CASCADE, by the acting role's best grantor, as RemoveRoleFromObjectACL
// does), and in the role catalog their privileges on branches are
// revoked, their default privileges dropped and their grants in other
// roles' default privileges revoked. The branch part is one graph
// commit; the role-catalog part is published once the branch part is
// planned, so a DROP OWNED cannot run inside a transaction block (the
// role catalog could not roll back with it).
func (w *writer) dropOwned(pc *privCtx, st *q.DropOwnedStmt) ([]ddl.Change, error) {
	if w.s.tx != nil && !w.s.tx.implicit {
		return nil, wire.Errorf(pgerr.ActiveSQLTransaction, "DROP OWNED cannot run inside a transaction block")
	}
	pc = w.s.grantContext(w.ctx, pc)
	rc := &roleChange{s: w.s, c: pc.c}
	actor := rc.actor()
	var roles []*access.Role
	for _, spec := range roleSpecs(st.Roles) {
		r, _, err := rc.spec(spec)
		if err != nil {
			return nil, err
		}
		roles = append(roles, r)
	}
	for _, r := range roles {
		if actor == nil || !actor.Superuser && !pc.c.MemberOf(actor.OID, r.OID, true) {
			return nil, wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied to drop objects")
		}
	}
	oids := map[uint32]bool{}
	for _, r := range roles {
		if r.OID == access.BootstrapOID {
			return nil, wire.Errorf(pgerr.DependentObjectsStillExist, "cannot drop objects owned by role %s because they are required by the database system", r.Name)
		}
		oids[r.OID] = true
	}
	// the relations to drop, by kind, and the ACLs to clean
	drops := map[q.ObjectType][]string{}
	var changes []ddl.Change
	for _, e := range w.ddlCatalog().Tables() {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		owner := access.OwnerOID(m.Owner)
		if oids[owner] {
			kind := q.ObjectType_OBJECT_TABLE
			switch m.Relkind {
			case ddl.RelView:
				kind = q.ObjectType_OBJECT_VIEW
			case ddl.RelSequence:
				kind = q.ObjectType_OBJECT_SEQUENCE
			}
			drops[kind] = append(drops[kind], e.Name)
			continue
		}
		changed := false
		revoke := func(acl *access.TableACL, all access.TablePrivs) (*access.TableACL, error) {
			for _, r := range roles {
				if !slices.ContainsFunc(acl.Items, func(it access.TableACLItem) bool { return it.Grantee == r.OID }) {
					continue
				}
				grantor, _ := pc.c.TableGrantor(pc.role, m.Owner, acl, all)
				next, err := pc.c.RevokeTable(acl, m.Owner, r.OID, grantor, all, false, true)
				if err != nil {
					return nil, err
				}
				acl, changed = next, true
			}
			return acl, nil
		}
		if m.ACL != nil {
			all := access.AllTablePrivs
			if m.Relkind == ddl.RelSequence {
				all = access.AllSequencePrivs
			}
			if m.ACL, err = revoke(m.ACL, all); err != nil {
				return nil, err
			}
		}
		for i, c := range m.Columns {
			if c.Sequence != nil && c.Sequence.ACL != nil {
				sq := *c.Sequence
				if sq.ACL, err = revoke(sq.ACL, access.AllSequencePrivs); err != nil {
					return nil, err
				}
				m.Columns[i].Sequence = &sq
			}
		}
		if changed {
			changes = append(changes, redefine(e, m, "DROP OWNED"))
		}
	}
	for _, kind := range []q.ObjectType{q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_SEQUENCE} {
		names := drops[kind]
		if len(names) == 0 {
			continue
		}
		drop := &q.DropStmt{RemoveType: kind, Behavior: st.Behavior}
		for _, n := range names {
			drop.Objects = append(drop.Objects, &q.Node{Node: &q.Node_List{List: &q.List{Items: []*q.Node{
				{Node: &q.Node_String_{String_: &q.String{Sval: n}}}}}}})
		}
		planned, err := w.ddlPlanner(pc).Plan(&q.Node{Node: &q.Node_DropStmt{DropStmt: drop}}, w.ddlCatalog())
		if err != nil {
			return nil, err
		}
		for _, ch := range planned {
			if err := w.applyChange(ch); err != nil {
				return nil, err
			}
		}
	}
	if w.s.access != nil && !pc.c.Bootstrap() {
		branch := w.s.branch()
		if _, err := w.s.access.Update(w.ctx, nil, func(c *access.Catalog) error {
			schemas, err := dropOwnedSchemas(w.s, c, branch, pc.role, oids) // schema_privileges.go
			if err != nil {
				return err
			}
			fns, err := dropOwnedBuiltinFunctions(c, branch, pc.role, oids) // builtin_function_privileges.go
			if err != nil {
				return err
			}
			schemas = schemas || fns
			if err := dropOwnedFromCatalog(c, oids); err != access.ErrNoChange || !schemas {
				return err
			}
			return nil // only schema privileges changed
		}); err != nil && err != access.ErrNoChange {
			return nil, wire.Errorf(pgerr.IOError, "could not publish the role catalog").WithDetail(err.Error())
		}
	}
	if len(changes) == 0 {
		changes = []ddl.Change{&ddl.NoOp{CommandTag: "DROP OWNED"}}
	}
	return changes, nil
}

// dropOwnedFromCatalog is DROP OWNED's role-catalog part: the roles'
// privileges on branches (and what they granted there) are revoked,
// their default privileges dropped and their grants in other roles'
// default privileges revoked (what they granted with them cascades).
func dropOwnedFromCatalog(c *access.Catalog, oids map[uint32]bool) error {
	changed := false
	for i := range c.Branches {
		n := len(c.Branches[i].Items)
		c.Branches[i].Items = slices.DeleteFunc(c.Branches[i].Items, func(it access.ACLItem) bool {
			return oids[it.Grantee] || oids[it.Grantor]
		})
		changed = changed || n != len(c.Branches[i].Items)
	}
	for _, d := range slices.Clone(c.DefaultACLs) {
		if oids[d.Role] {
			c.DefaultACLs = slices.DeleteFunc(c.DefaultACLs, func(x access.DefaultACL) bool {
				return x.Role == d.Role && x.Schema == d.Schema && x.ObjType == d.ObjType
			})
			changed = true
			continue
		}
		acl := &access.TableACL{Items: slices.Clone(d.Items)}
		touched := false
		for oid := range oids {
			if !slices.ContainsFunc(acl.Items, func(it access.TableACLItem) bool { return it.Grantee == oid }) {
				continue
			}
			all := access.AllTablePrivs
			if d.ObjType == access.DefaultSequences {
				all = access.AllSequencePrivs
			}
			next, err := c.RevokeTable(acl, d.Role, oid, d.Role, all, false, true)
			if err != nil {
				return err
			}
			acl, touched = next, true
		}
		if touched {
			c.SetDefaultACL(d.Role, d.Schema, d.ObjType, acl)
			changed = true
		}
	}
	if !changed {
		return access.ErrNoChange
	}
	return nil
}
