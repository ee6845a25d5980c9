package planner

import (
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// Type privileges: GRANT/REVOKE USAGE ON TYPE|DOMAIN for user types
// (enums and domains). A type's owner and ACL are stored with its
// definition (ddl.TableMeta.Owner/ACL, nil: PostgreSQL's default, PUBLIC
// and the owner hold USAGE), so a grant is a catalog-only redefinition
// published by the statement's graph commit, versioned with the branch's
// schema like a table's (table_privileges.go). USAGE is checked where a
// statement declares something of the type — a table's or view's
// column, a function's argument or result, a domain's base type — as
// PostgreSQL checks it; values and casts need none. Built-in types keep
// PostgreSQL's default (PUBLIC may use them): a grant on one answers
// 0A000.

// errGrantor is PostgreSQL 15's answer to GRANTED BY naming a role other
// than the current one (the clause exists for SQL compatibility).
func errGrantor() *wire.Error {
	return wire.Errorf(wire.CodeFeatureNotSupported, "grantor must be current user")
}

// checkGrantedBy refuses GRANT/REVOKE … GRANTED BY a role other than
// role, before anything else is looked up, as ExecuteGrantStmt does.
func (rc *roleChange) checkGrantedBy(spec *q.RoleSpec, role uint32) error {
	if spec == nil {
		return nil
	}
	g, _, err := rc.spec(spec)
	if err != nil {
		return err
	}
	if g.OID != role {
		return errGrantor()
	}
	return nil
}

// userType is one user type a statement names.
type userType struct {
	e    graph.TableEntry
	m    ddl.TableMeta
	name string
}

// lookupUserType finds the enum or domain of name (public or
// unqualified) in the statement's catalog.
func (w *writer) lookupUserType(name string) (userType, bool) {
	e, ok := w.ddlCatalog().Table(ddl.TypeEntryPrefix + name)
	if !ok {
		return userType{}, false
	}
	m, err := ddl.DecodeMeta(e.Name, e.Def)
	if err != nil || (m.Relkind != ddl.RelEnum && m.Relkind != ddl.RelDomain) {
		return userType{}, false
	}
	return userType{e, m, name}, true
}

// grantTypes runs GRANT/REVOKE … ON TYPE|DOMAIN, in PostgreSQL's order:
// the grantor, the types, the grantees, the privileges, then per type.
func (w *writer) grantTypes(pc *privCtx, st *q.GrantStmt) ([]ddl.Change, error) {
	rc := &roleChange{s: w.s, c: pc.c}
	if err := rc.checkGrantedBy(st.Grantor, pc.role); err != nil {
		return nil, err
	}
	domain := st.Objtype == q.ObjectType_OBJECT_DOMAIN
	var types []userType
	var arrays []string
	builtin := false
	for _, o := range st.Objects {
		parts := nameList(o.GetList().GetItems())
		if len(parts) == 0 {
			continue
		}
		name := parts[len(parts)-1]
		qualified := strings.Join(parts, ".")
		schema := ""
		if len(parts) > 1 {
			schema = parts[len(parts)-2]
		}
		if schema == "" || schema == "public" {
			if t, ok := w.lookupUserType(name); ok {
				if domain && t.m.Relkind != ddl.RelDomain {
					return nil, wire.Errorf(pgerr.WrongObjectType, "\"%s\" is not a domain", name)
				}
				types = append(types, t)
				continue
			}
			if elem, ok := strings.CutPrefix(name, "_"); ok {
				if _, ok := w.lookupUserType(elem); ok {
					arrays = append(arrays, name)
					continue
				}
			}
		}
		if (schema == "" || schema == "pg_catalog") && exec.IsBuiltinTypeName(name) {
			builtin = true
			continue
		}
		return nil, wire.Errorf(wire.CodeUndefinedObject, "type \"%s\" does not exist", qualified)
	}
	grantees, err := rc.granteeOIDs(st.Grantees)
	if err != nil {
		return nil, err
	}
	kind := "type"
	if domain {
		kind = "domain"
	}
	for _, pn := range st.Privileges {
		ap := pn.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return nil, wire.Errorf(pgerr.InvalidGrantOperation, "column privileges are only valid for relations")
		}
		if _, ok := access.ParseTypePriv(ap.PrivName); !ok {
			if _, known := access.ParseTablePriv(ap.PrivName); known || isPrivilegeName(ap.PrivName) {
				name := strings.ToUpper(ap.PrivName)
				if name == "TEMP" {
					name = "TEMPORARY"
				}
				return nil, wire.Errorf(pgerr.InvalidGrantOperation, "invalid privilege type %s for %s", name, kind)
			}
			return nil, wire.Errorf(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
	}
	if len(arrays) > 0 {
		return nil, wire.Errorf(pgerr.InvalidGrantOperation, "cannot set privileges of array types").
			WithHint("Set the privileges of the element type instead.")
	}
	name := grantName(st)
	if builtin {
		return nil, wire.Errorf(wire.CodeFeatureNotSupported, "%s … ON TYPE is not supported for built-in types", name).
			WithDetail("Built-in types keep PostgreSQL's default privileges: every role may use them.")
	}
	what := "were granted"
	if !st.IsGrant {
		what = "could be revoked"
	}
	var changes []ddl.Change
	done := map[string]bool{}
	for _, t := range types {
		if done[t.e.Name] {
			continue
		}
		done[t.e.Name] = true
		acl, ok, err := grantPriv(pc.c, pc.role, t.m.Owner, access.TypeACL(t.m.Owner, t.m.ACL), access.PrivUsage, grantees, st, "type", t.name)
		if err != nil {
			return nil, err
		}
		if !ok {
			w.warn(fmt.Sprintf("no privileges %s for \"%s\"", what, t.name))
			continue
		}
		m := t.m
		m.ACL = acl
		changes = append(changes, redefine(t.e, m, name))
	}
	if len(changes) == 0 {
		changes = []ddl.Change{&ddl.NoOp{CommandTag: name}}
	}
	return changes, nil
}

// grantPriv applies GRANT/REVOKE of the one privilege p by role to an
// object of owner whose ACL is cur, for the grantees: the grantor is
// role's best grantor; without the grant option nothing changes (ok
// false: the caller warns) unless role holds no p at all (42501 naming
// the kind of object); a REVOKE of what others received through the
// grantor needs CASCADE (2BP01).
func grantPriv(c *access.Catalog, role, owner uint32, cur *access.TableACL, p access.TablePrivs, grantees []uint32, st *q.GrantStmt, kind, name string) (acl *access.TableACL, ok bool, err error) {
	grantor, options := c.TableGrantor(role, owner, cur, p)
	if options&p == 0 {
		if held, _ := c.TablePrivileges(grantor, owner, cur); held&p == 0 {
			return nil, false, errPermission(kind, name)
		}
		return nil, false, nil
	}
	acl = cur
	for _, g := range grantees {
		if st.IsGrant {
			acl = access.GrantTable(acl, owner, g, grantor, p, st.GrantOption)
			continue
		}
		next, err := c.RevokeTable(acl, owner, g, grantor, p, st.GrantOption, st.Behavior == q.DropBehavior_DROP_CASCADE)
		if err != nil {
			return nil, false, wire.Errorf(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
		}
		acl = next
	}
	return acl, true, nil
}

// typeUsageCheck refuses a statement whose planned changes declare a
// column, function argument or result, or domain of a user type the
// acting role holds no USAGE on: PostgreSQL's "permission denied for
// type". Columns an ALTER TABLE leaves as they were are not checked;
// domains are checked too (a CREATE TABLE AS query's, resultDomainColumns).
func (w *writer) typeUsageCheck(pc *privCtx, changes []ddl.Change, domains ...uint32) error {
	if pc == nil || pc.c.Bootstrap() {
		return nil
	}
	var byOID map[uint32]userType
	need := func(oids ...uint32) error {
		for _, oid := range oids {
			if oid < exec.EnumOIDBase {
				continue
			}
			if byOID == nil {
				byOID = map[uint32]userType{}
				for _, e := range w.ddlCatalog().Tables() {
					name, ok := ddl.TypeName(e.Name)
					if !ok {
						continue
					}
					m, err := ddl.DecodeMeta(e.Name, e.Def)
					if err != nil {
						continue
					}
					t := userType{e, m, name}
					switch {
					case m.Enum != nil:
						byOID[m.Enum.OID], byOID[m.Enum.OID+1] = t, t
					case m.Domain != nil:
						byOID[m.Domain.OID], byOID[m.Domain.OID+1] = t, t
					}
				}
			}
			t, ok := byOID[oid]
			if ok && !pc.c.MayUseType(pc.role, t.m.Owner, t.m.ACL) {
				return errPermission("type", t.name)
			}
		}
		return nil
	}
	if err := need(domains...); err != nil {
		return err
	}
	for _, ch := range changes {
		var m ddl.TableMeta
		var old map[string]ddl.ColumnMeta
		switch c := ch.(type) {
		case *ddl.CreateTable:
			m = c.Meta
		case *ddl.AlterTable:
			m = c.Meta
			e, ok := w.ddlCatalog().Table(c.Name)
			if !ok {
				break
			}
			prev, err := ddl.DecodeMeta(e.Name, e.Def)
			if err != nil {
				continue
			}
			old = map[string]ddl.ColumnMeta{}
			for _, col := range prev.Columns {
				old[col.Name] = col
			}
		default:
			continue
		}
		switch {
		case m.Function != nil:
			var oids []uint32
			for _, a := range m.Function.Args {
				oids = append(oids, a.Type.OID)
			}
			if err := need(append(oids, m.Function.Ret.OID)...); err != nil {
				return err
			}
		case m.Domain != nil:
			if _, altered := ch.(*ddl.AlterTable); !altered {
				if err := need(m.Domain.Base.OID); err != nil {
					return err
				}
			}
		case m.Relkind == ddl.RelTable || m.Relkind == ddl.RelView:
			for _, col := range m.Columns {
				if was, ok := old[col.Name]; ok && was.Type == col.Type && was.Domain == col.Domain {
					continue
				}
				if err := need(col.Type.OID, col.Domain); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resultDomainColumns are the domains of a query's result columns that
// read a table's domain column as it is (Column.TableOID and AttNum
// name it, as PostgreSQL's resorigtbl): CREATE TABLE AS gives its table
// columns of the base type, while PostgreSQL's DefineRelation sees the
// domain and checks USAGE on it (typeUsageCheck). A computed column of
// a domain type (1::posint) names no table and is not found.
func (w *writer) resultDomainColumns(cols []exec.Column) []uint32 {
	var out []uint32
	for _, c := range cols {
		if c.TableOID == 0 || c.AttNum <= 0 {
			continue
		}
		for _, e := range w.ddlCatalog().Tables() {
			if e.RelOID() != c.TableOID {
				continue
			}
			m, err := ddl.DecodeMeta(e.Name, e.Def)
			if err == nil && int(c.AttNum) <= len(m.Columns) {
				if col := m.Columns[c.AttNum-1]; col.Domain != 0 && col.Type.OID == c.TypeOID {
					out = append(out, col.Domain)
				}
			}
			break
		}
	}
	return out
}

// alterTypeOwner runs ALTER TYPE|DOMAIN … OWNER TO on a user type, as
// PostgreSQL 15's AlterTypeOwner: an array type is refused; nothing to
// do when the owner stays; otherwise a superuser may, anyone else must
// own the type, be a member of the new owner, and the new owner must
// hold CREATE on the type's schema. The ACL's grants by and to the old
// owner move with it. A built-in type's owner is not stored: a
// superuser's change to another role answers 0A000. handled is false
// for a name in a schema other than public.
func (w *writer) alterTypeOwner(pc *privCtx, st *q.AlterOwnerStmt) (changes []ddl.Change, handled bool, err error) {
	parts := nameList(st.Object.GetList().GetItems())
	if len(parts) == 0 || len(parts) > 2 || len(parts) == 2 && parts[0] != "public" && parts[0] != "pg_catalog" {
		return nil, false, nil
	}
	name := parts[len(parts)-1]
	tag := alterTagOf(st.ObjectType)
	t, ok := w.lookupUserType(name)
	if !ok {
		elem, isArray := strings.CutPrefix(name, "_")
		if _, ok := w.lookupUserType(elem); isArray && ok {
			return nil, true, wire.Errorf(pgerr.WrongObjectType, "cannot alter array type %s[]", elem).
				WithHint(fmt.Sprintf("You can alter type %s, which will alter the array type as well.", elem))
		}
		if !exec.IsBuiltinTypeName(name) {
			return nil, true, wire.Errorf(wire.CodeUndefinedObject, "type \"%s\" does not exist", strings.Join(parts, "."))
		}
		// a built-in type: its owner, the bootstrap superuser, is not
		// stored, so only a change to that owner can be carried out
		pc = w.s.grantContext(w.ctx, pc)
		rc := &roleChange{s: w.s, c: pc.c}
		newOwner, _, err := rc.spec(st.Newowner)
		switch {
		case err != nil:
			return nil, true, err
		case !rc.isSuper():
			return nil, true, errNotOwner("type", name)
		case newOwner.OID != access.BootstrapOID:
			return nil, true, wire.Errorf(wire.CodeFeatureNotSupported, "%s … OWNER TO is not supported for built-in types", tag)
		}
		return []ddl.Change{&ddl.NoOp{CommandTag: tag}}, true, nil
	}
	if st.ObjectType == q.ObjectType_OBJECT_DOMAIN && t.m.Relkind != ddl.RelDomain {
		return nil, true, wire.Errorf(pgerr.WrongObjectType, "%s is not a domain", name)
	}
	pc = w.s.grantContext(w.ctx, pc)
	rc := &roleChange{s: w.s, c: pc.c}
	newOwner, _, err := rc.spec(st.Newowner)
	if err != nil {
		return nil, true, err
	}
	old := access.OwnerOID(t.m.Owner)
	if newOwner.OID == old {
		return []ddl.Change{&ddl.NoOp{CommandTag: tag}}, true, nil
	}
	if !rc.isSuper() {
		switch {
		case !pc.c.IsOwner(pc.role, t.m.Owner):
			return nil, true, errNotOwner("type", name)
		case !pc.c.MemberOf(pc.role, newOwner.OID, false):
			return nil, true, wire.Errorf(wire.CodeInsufficientPrivilege, "must be member of role \"%s\"", newOwner.Name)
		case !pc.schemaPrivilege(w.s.branch(), newOwner.OID, access.PrivSchemaCreate):
			return nil, true, errPermission("schema", "public")
		}
	}
	m := t.m
	changeOwner(&m, old, newOwner.OID)
	return []ddl.Change{redefine(t.e, m, tag)}, true, nil
}
