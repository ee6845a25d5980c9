package planner

import (
	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// reassignOwned runs REASSIGN OWNED BY old [, …] TO new on the session's
// branch (its database): every table, view and sequence an old role owns
// gets the new owner, with its ACL rewritten as ALTER … OWNER TO does
// (serial columns' sequences follow their table). As in PostgreSQL 15
// the acting role needs the privileges of every role named (superusers
// have them), the bootstrap superuser's objects cannot be reassigned,
// and default privileges stay with their role. The change is one graph
// commit of catalog-only redefinitions.
func (w *writer) reassignOwned(pc *privCtx, st *q.ReassignOwnedStmt) ([]ddl.Change, error) {
	pc = w.s.grantContext(w.ctx, pc)
	rc := &roleChange{s: w.s, c: pc.c}
	actor := rc.actor()
	mayUse := func(r *access.Role) bool {
		return actor != nil && (actor.Superuser || pc.c.MemberOf(actor.OID, r.OID, true))
	}
	denied := func() error {
		return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied to reassign objects")
	}
	var olds []*access.Role
	for _, spec := range roleSpecs(st.Roles) {
		r, _, err := rc.spec(spec)
		if err != nil {
			return nil, err
		}
		olds = append(olds, r)
	}
	for _, r := range olds {
		if !mayUse(r) {
			return nil, denied()
		}
	}
	newOwner, _, err := rc.spec(st.Newrole)
	if err != nil {
		return nil, err
	}
	if !mayUse(newOwner) {
		return nil, denied()
	}
	for _, r := range olds {
		if r.OID == access.BootstrapOID {
			return nil, wire.Errorf(pgerr.DependentObjectsStillExist, "cannot reassign ownership of objects owned by role %s because they are required by the database system", r.Name)
		}
	}
	var changes []ddl.Change
	for _, e := range w.ddlCatalog().Tables() {
		m, err := ddl.DecodeMeta(e.Name, e.Def)
		if err != nil {
			continue
		}
		old := access.OwnerOID(m.Owner)
		reassign := false
		for _, r := range olds {
			reassign = reassign || r.OID == old
		}
		if !reassign || old == newOwner.OID {
			continue
		}
		changeOwner(&m, old, newOwner.OID)
		changes = append(changes, redefine(e, m, "REASSIGN OWNED"))
	}
	if len(changes) == 0 {
		changes = []ddl.Change{&ddl.NoOp{CommandTag: "REASSIGN OWNED"}}
	}
	return changes, nil
}
