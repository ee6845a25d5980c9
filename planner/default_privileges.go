package planner

import (
	"fmt"
	"math"
	"strings"

	"github.com/pggraph/pggraph/access"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// ALTER DEFAULT PRIVILEGES changes the role catalog's default ACLs
// (package access, default_privileges.go): it is a role statement,
// published at once and global to the root, and applies to the
// relations and sequences its roles create afterwards on any branch
// (ownCreated). PostgreSQL 15's rules: the acting role must be a member
// of every FOR ROLE role, IN SCHEMA names existing schemas, privileges
// must fit the object kind. Functions take EXECUTE defaults
// (function_privileges.go), enums and domains USAGE defaults
// (type_privileges.go).

// alterDefaultPrivileges runs one ALTER DEFAULT PRIVILEGES statement,
// in PostgreSQL's order of checks (ExecAlterDefaultPrivilegesStmt).
func (rc *roleChange) alterDefaultPrivileges(st *q.AlterDefaultPrivilegesStmt) error {
	var schemas []string
	var roles []*q.RoleSpec
	var seenSchemas, seenRoles bool
	for _, n := range st.Options {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		var seen *bool
		switch d.Defname {
		case "schemas":
			seen = &seenSchemas
			for _, s := range d.Arg.GetList().GetItems() {
				schemas = append(schemas, s.GetString_().GetSval())
			}
		case "roles":
			seen = &seenRoles
			roles = roleSpecs(d.Arg.GetList().GetItems())
		default:
			continue
		}
		if *seen {
			return errRole(wire.CodeSyntaxError, "conflicting or redundant options").WithPosition(rc.position(d.Location))
		}
		*seen = true
	}
	a := st.Action
	if a == nil {
		return notSupported("ALTER DEFAULT PRIVILEGES")
	}
	var objtype byte
	var all access.TablePrivs
	var kind string
	switch a.Objtype {
	case q.ObjectType_OBJECT_TABLE:
		objtype, all, kind = access.DefaultTables, access.AllTablePrivs, "relation"
	case q.ObjectType_OBJECT_SEQUENCE:
		objtype, all, kind = access.DefaultSequences, access.AllSequencePrivs, "sequence"
	case q.ObjectType_OBJECT_SCHEMA:
		if len(schemas) > 0 {
			return errRole(pgerr.InvalidGrantOperation, "cannot use IN SCHEMA clause when using GRANT/REVOKE ON SCHEMAS")
		}
		return notSupported("ALTER DEFAULT PRIVILEGES … ON SCHEMAS").
			WithDetail("Schemas have no privileges of their own in pgproxy.")
	case q.ObjectType_OBJECT_FUNCTION:
		objtype, all, kind = access.DefaultFunctions, access.PrivExecute, "function"
	case q.ObjectType_OBJECT_TYPE:
		objtype, all, kind = access.DefaultTypes, access.PrivUsage, "type" // type_privileges.go
	default:
		return notSupported("ALTER DEFAULT PRIVILEGES … ON " + strings.TrimPrefix(a.Objtype.String(), "OBJECT_"))
	}
	grantees, err := rc.granteeOIDs(a.Grantees)
	if err != nil {
		return err
	}
	privs := access.TablePrivs(0)
	if len(a.Privileges) == 0 {
		privs = all
	}
	for _, n := range a.Privileges {
		ap := n.GetAccessPriv()
		if ap == nil {
			continue
		}
		if len(ap.Cols) > 0 {
			return errRole(pgerr.InvalidGrantOperation, "default privileges cannot be set for columns")
		}
		p, known := access.ParseTablePriv(ap.PrivName)
		if !known {
			p, known = access.ParseSequencePriv(ap.PrivName)
		}
		if !known {
			p, known = access.ParseFunctionPriv(ap.PrivName)
		}
		if !known {
			name := strings.ToUpper(ap.PrivName)
			if name == "TEMP" {
				name = "TEMPORARY"
			}
			if isPrivilegeName(name) {
				return errRole(pgerr.InvalidGrantOperation, "invalid privilege type %s for %s", name, kind)
			}
			return errRole(wire.CodeSyntaxError, "unrecognized privilege type \"%s\"", ap.PrivName)
		}
		if p&^all != 0 {
			return errRole(pgerr.InvalidGrantOperation, "invalid privilege type %s for %s", p.Name(), kind)
		}
		privs |= p
	}
	actor := rc.actor()
	if actor == nil { // the current role was dropped meanwhile
		return noRole(rc.s.currentRole())
	}
	var targets []*access.Role
	if len(roles) == 0 {
		targets = append(targets, actor)
	}
	for _, spec := range roles {
		r, _, err := rc.spec(spec)
		if err != nil {
			return err
		}
		// FOR ROLE is a convenience for SET ROLE: membership, not
		// privileges, is what PostgreSQL asks (check_is_member_of_role)
		if !actor.Superuser && !rc.c.MemberOf(actor.OID, r.OID, false) {
			return errRole(wire.CodeInsufficientPrivilege, "must be member of role \"%s\"", r.Name)
		}
		targets = append(targets, r)
	}
	if len(schemas) == 0 {
		schemas = []string{""}
	}
	for _, r := range targets {
		for _, schema := range schemas {
			if schema != "" && schema != "public" {
				return errRole(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", schema)
			}
			acl := rc.c.DefaultACLStart(r.OID, schema, objtype)
			for _, g := range grantees {
				if a.IsGrant {
					if a.GrantOption && g == 0 {
						return errRole(pgerr.InvalidGrantOperation, "grant options can only be granted to roles")
					}
					acl = access.GrantTable(acl, r.OID, g, r.OID, privs, a.GrantOption)
					continue
				}
				next, err := rc.c.RevokeTable(acl, r.OID, g, r.OID, privs, a.GrantOption, a.Behavior == q.DropBehavior_DROP_CASCADE)
				if err != nil {
					return errRole(pgerr.DependentObjectsStillExist, "dependent privileges exist").WithHint("Use CASCADE to revoke them too.")
				}
				acl = next
			}
			rc.c.SetDefaultACL(r.OID, schema, objtype, acl)
		}
	}
	return nil
}

// defaultACLDependents describes the default privileges that keep DROP
// ROLE from dropping role, as PostgreSQL's DETAIL lines name them.
func (rc *roleChange) defaultACLDependents(role *access.Role) []string {
	describe := func(d access.DefaultACL) string {
		what := "relations"
		switch d.ObjType {
		case access.DefaultSequences:
			what = "sequences"
		case access.DefaultFunctions:
			what = "functions"
		case access.DefaultTypes:
			what = "types"
		}
		owner := "?"
		if r := rc.c.ByOID(d.Role); r != nil {
			owner = r.Name
		}
		s := fmt.Sprintf("default privileges on new %s belonging to role %s", what, owner)
		if d.Schema != "" {
			s += " in schema " + d.Schema
		}
		return s
	}
	owned, granted := rc.c.DefaultACLDependents(role.OID)
	var out []string
	for _, d := range owned {
		out = append(out, "owner of "+describe(d))
	}
	for _, d := range granted {
		out = append(out, "privileges for "+describe(d))
	}
	return out
}

// ownCreated records the acting role as the owner of the relations a
// statement creates (the bootstrap superuser is recorded as 0, the
// owner of everything created before roles) and gives them the role's
// default privileges: a table or view those for tables, a sequence
// (also a serial or identity column's) those for sequences, as
// PostgreSQL's get_user_default_acl.
func ownCreated(pc *privCtx, changes []ddl.Change) {
	if pc == nil || pc.role == math.MaxUint32 {
		return
	}
	for _, ch := range changes {
		c, ok := ch.(*ddl.CreateTable)
		if !ok {
			continue
		}
		if c.Meta.Relkind == ddl.RelSchema {
			// CREATE SCHEMA … AUTHORIZATION names its owner
			if c.Meta.Owner == 0 && pc.role != access.BootstrapOID {
				c.Meta.Owner = pc.role
				c.Def.Extra = c.Meta.Encode()
			}
			continue
		}
		changed := false
		if pc.role != access.BootstrapOID {
			c.Meta.Owner, changed = pc.role, true
		}
		objtype := access.DefaultTables
		switch c.Meta.Relkind {
		case ddl.RelSequence:
			objtype = access.DefaultSequences
		case ddl.RelFunction:
			objtype = access.DefaultFunctions // function_privileges.go
		case ddl.RelEnum, ddl.RelDomain:
			objtype = access.DefaultTypes // type_privileges.go
		}
		if acl := pc.c.CreationACL(pc.role, "public", objtype); acl != nil {
			c.Meta.ACL, changed = acl, true
		}
		if acl := pc.c.CreationACL(pc.role, "public", access.DefaultSequences); acl != nil {
			for i, col := range c.Meta.Columns {
				if col.Sequence != nil {
					sq := *col.Sequence
					sq.ACL = acl
					c.Meta.Columns[i].Sequence, changed = &sq, true
				}
			}
		}
		if changed {
			c.Def.Extra = c.Meta.Encode()
		}
	}
}
