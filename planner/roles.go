package planner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Role statements (CREATE/ALTER/DROP ROLE|USER|GROUP, ALTER ROLE …
// RENAME TO, GRANT/REVOKE role) change the root's role catalog
// (package access), not a branch: they publish a new catalog version
// at once, with PostgreSQL 15's permission rules and messages. Inside
// an explicit transaction they are staged and published at COMMIT
// (roles_txn.go).

// isRoleStmt reports the statements roles.go runs.
func isRoleStmt(n *q.Node) bool {
	switch x := n.Node.(type) {
	case *q.Node_CreateRoleStmt, *q.Node_AlterRoleStmt, *q.Node_DropRoleStmt, *q.Node_GrantRoleStmt, *q.Node_AlterRoleSetStmt,
		*q.Node_AlterDefaultPrivilegesStmt:
		return true
	case *q.Node_RenameStmt:
		return x.RenameStmt.RenameType == q.ObjectType_OBJECT_ROLE
	case *q.Node_GrantStmt:
		// privileges on a database: a branch (branch_privileges.go)
		// … on a schema: kept in the role catalog (schema_privileges.go)
		return x.GrantStmt.Objtype == q.ObjectType_OBJECT_DATABASE || x.GrantStmt.Objtype == q.ObjectType_OBJECT_SCHEMA
	}
	return false
}

// roleStmtName is the statement's name in messages and its command tag.
func roleStmtName(n *q.Node) (name, tag string) {
	switch x := n.Node.(type) {
	case *q.Node_CreateRoleStmt:
		switch x.CreateRoleStmt.StmtType {
		case q.RoleStmtType_ROLESTMT_USER:
			return "CREATE USER", "CREATE ROLE"
		case q.RoleStmtType_ROLESTMT_GROUP:
			return "CREATE GROUP", "CREATE ROLE"
		}
		return "CREATE ROLE", "CREATE ROLE"
	case *q.Node_AlterRoleStmt, *q.Node_AlterRoleSetStmt:
		return "ALTER ROLE", "ALTER ROLE"
	case *q.Node_DropRoleStmt:
		return "DROP ROLE", "DROP ROLE"
	case *q.Node_GrantRoleStmt:
		if x.GrantRoleStmt.IsGrant {
			return "GRANT", "GRANT ROLE"
		}
		return "REVOKE", "REVOKE ROLE"
	case *q.Node_RenameStmt:
		return "ALTER ROLE", "ALTER ROLE"
	case *q.Node_AlterDefaultPrivilegesStmt:
		return "ALTER DEFAULT PRIVILEGES", "ALTER DEFAULT PRIVILEGES"
	case *q.Node_GrantStmt:
		if x.GrantStmt.IsGrant {
			return "GRANT", "GRANT"
		}
		return "REVOKE", "REVOKE"
	}
	return "this statement", ""
}

// roleCatalog is the newest role catalog (one Stat when cached).
func (s *session) roleCatalog(ctx context.Context) (*access.Catalog, error) {
	if s.access == nil {
		return &access.Catalog{}, nil
	}
	memo, _ := ctx.Value(catalogMemoKey{}).(*atomic.Pointer[access.Catalog])
	if memo != nil {
		if c := memo.Load(); c != nil && c.Version == s.access.Seen() {
			s.lastRoles.Store(c)
			return s.txRoleCatalog(ctx, c)
		}
	}
	c, err := s.access.Current(ctx)
	if err != nil {
		return nil, wire.Errorf(pgerr.IOError, "could not read the role catalog").WithDetail(err.Error())
	}
	if memo != nil {
		memo.Store(c)
	}
	s.lastRoles.Store(c)
	return s.txRoleCatalog(ctx, c) // the transaction's role statements (roles_txn.go)
}

// catalogMemoKey keys a statement's role catalog in its context: a
// statement checks its privileges against one catalog, read once (as
// PostgreSQL checks them when the executor starts), instead of probing
// for a newer version at each check — a HEAD per check on object
// storage. A change this process publishes meanwhile (Seen moves) is
// read again.
type catalogMemoKey struct{}

func withCatalogMemo(ctx context.Context) context.Context {
	return context.WithValue(ctx, catalogMemoKey{}, new(atomic.Pointer[access.Catalog]))
}

// executeRole runs a role statement.
func (s *session) executeRole(ctx context.Context, p *plan) (wire.Result, error) {
	name, tag := roleStmtName(p.node)
	if st := p.node.GetGrantStmt(); st != nil && onlyBuiltinSchemas(st) {
		// changes nothing: runs anywhere, a transaction block too
		// (schema_privileges.go)
		return s.grantOnBuiltinSchemas(ctx, p, tag)
	}
	if s.readOnly() {
		return nil, wire.Errorf(pgerr.ReadOnlySQLTransaction, "cannot execute %s in a read-only transaction", name)
	}
	if s.access == nil {
		return nil, notSupported(name)
	}
	if s.tx != nil && !s.tx.implicit {
		return s.stageRole(ctx, p, tag) // roles_txn.go
	}
	var notices []*wire.Error
	_, err := s.access.Update(ctx, s.seedRoles, func(c *access.Catalog) error {
		notices = notices[:0]
		rc := &roleChange{s: s, c: c, sql: p.sql, notice: func(e *wire.Error) { notices = append(notices, e) }}
		return rc.apply(p.node)
	})
	if err := roleCatalogError(err); err != nil { // roles_txn.go
		return nil, err
	}
	for _, n := range notices {
		if s.info.Notice != nil {
			s.info.Notice(n)
		}
	}
	return &tagResult{tag: tag}, nil
}

// seedRoles creates the first catalog version: the session user becomes
// its bootstrap superuser, so whoever starts using roles keeps control
// (package access).
func (s *session) seedRoles(c *access.Catalog) error {
	c.AddRole(access.NewSuperuser(s.info.User))
	return nil
}

// roleChange applies one role statement to a catalog being published.
type roleChange struct {
	s      *session
	c      *access.Catalog
	sql    string // the statement (error positions)
	notice func(*wire.Error)
}

// position is the 1-based character position of a parse-tree location.
func (rc *roleChange) position(loc int32) int32 {
	if loc < 0 || int(loc) > len(rc.sql) {
		return 0
	}
	return int32(utf8.RuneCountInString(rc.sql[:loc])) + 1
}

func errRole(code, format string, args ...any) *wire.Error { return wire.Errorf(code, format, args...) }

func noRole(name string) *wire.Error {
	return errRole(wire.CodeUndefinedObject, "role \"%s\" does not exist", name)
}

// actor is the role the statement runs as (SET ROLE's role, else the
// session user); in a catalog just seeded it is the bootstrap superuser.
func (rc *roleChange) actor() *access.Role {
	return rc.c.Role(rc.s.currentRole())
}

func (rc *roleChange) isSuper() bool {
	a := rc.actor()
	return a != nil && a.Superuser
}

func (rc *roleChange) hasCreateRole() bool {
	a := rc.actor()
	return a != nil && (a.Superuser || a.CreateRole)
}

// spec resolves a RoleSpec (a name, CURRENT_USER, SESSION_USER, …).
func (rc *roleChange) spec(r *q.RoleSpec) (*access.Role, string, error) {
	if r == nil {
		return nil, "", errRole(wire.CodeSyntaxError, "missing role name")
	}
	var name string
	switch r.Roletype {
	case q.RoleSpecType_ROLESPEC_CSTRING:
		name = r.Rolename
	case q.RoleSpecType_ROLESPEC_CURRENT_ROLE, q.RoleSpecType_ROLESPEC_CURRENT_USER:
		name = rc.s.currentRole()
	case q.RoleSpecType_ROLESPEC_SESSION_USER:
		name = rc.s.info.User
	case q.RoleSpecType_ROLESPEC_PUBLIC:
		return nil, "public", errRole(wire.CodeUndefinedObject, "role \"public\" does not exist")
	}
	role := rc.c.Role(name)
	if role == nil {
		return nil, name, noRole(name)
	}
	return role, name, nil
}

func (rc *roleChange) apply(n *q.Node) error {
	switch x := n.Node.(type) {
	case *q.Node_CreateRoleStmt:
		return rc.create(x.CreateRoleStmt)
	case *q.Node_AlterRoleStmt:
		return rc.alter(x.AlterRoleStmt)
	case *q.Node_AlterRoleSetStmt:
		return notSupported("ALTER ROLE … SET")
	case *q.Node_DropRoleStmt:
		return rc.drop(x.DropRoleStmt)
	case *q.Node_RenameStmt:
		return rc.rename(x.RenameStmt)
	case *q.Node_GrantRoleStmt:
		return rc.grant(x.GrantRoleStmt)
	case *q.Node_GrantStmt:
		if x.GrantStmt.Objtype == q.ObjectType_OBJECT_SCHEMA {
			return rc.grantOnSchemas(x.GrantStmt)
		}
		if isRoutine(x.GrantStmt.Objtype) {
			return rc.grantOnBuiltinFunctions(x.GrantStmt) // builtin_function_privileges.go
		}
		return rc.grantOnBranches(x.GrantStmt)
	case *q.Node_AlterDefaultPrivilegesStmt:
		return rc.alterDefaultPrivileges(x.AlterDefaultPrivilegesStmt)
	}
	return notSupported("this role statement")
}

// roleOptions are the options of CREATE/ALTER ROLE, as given.
type roleOptions struct {
	super, inherit, createRole, createDB, login, replication, bypassRLS *bool
	connLimit                                                           *int32
	password                                                            *string
	passwordNull                                                        bool
	validUntil                                                          *string
	inRole, roleMembers, adminMembers                                   []*q.RoleSpec
}

func boolArg(d *q.DefElem) bool {
	if d.Arg == nil {
		return true
	}
	if b := d.Arg.GetBoolean(); b != nil {
		return b.GetBoolval()
	}
	if i := d.Arg.GetInteger(); i != nil {
		return i.GetIval() != 0
	}
	return true
}

func roleSpecs(nodes []*q.Node) []*q.RoleSpec {
	var out []*q.RoleSpec
	for _, n := range nodes {
		if r := n.GetRoleSpec(); r != nil {
			out = append(out, r)
		}
	}
	return out
}

// granteeOIDs resolves a GRANT's or REVOKE's grantees to role OIDs,
// PUBLIC as 0.
func (rc *roleChange) granteeOIDs(nodes []*q.Node) ([]uint32, error) {
	var grantees []uint32
	for _, spec := range roleSpecs(nodes) {
		if spec.Roletype == q.RoleSpecType_ROLESPEC_PUBLIC {
			grantees = append(grantees, 0)
			continue
		}
		r, _, err := rc.spec(spec)
		if err != nil {
			return nil, err
		}
		grantees = append(grantees, r.OID)
	}
	return grantees, nil
}

func (rc *roleChange) parseRoleOptions(opts []*q.Node) (*roleOptions, error) {
	o := &roleOptions{}
	seen := map[string]bool{}
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if seen[d.Defname] {
			return nil, errRole(wire.CodeSyntaxError, "conflicting or redundant options").WithPosition(rc.position(d.Location))
		}
		seen[d.Defname] = true
		b := boolArg(d)
		switch d.Defname {
		case "superuser":
			o.super = &b
		case "inherit":
			o.inherit = &b
		case "createrole":
			o.createRole = &b
		case "createdb":
			o.createDB = &b
		case "canlogin":
			o.login = &b
		case "isreplication":
			o.replication = &b
		case "bypassrls":
			o.bypassRLS = &b
		case "connectionlimit":
			v := int32(-1)
			if i := d.Arg.GetInteger(); i != nil {
				v = i.GetIval()
			}
			if v < -1 {
				return nil, errRole(wire.CodeInvalidParameterValue, "invalid connection limit: %d", v)
			}
			o.connLimit = &v
		case "password":
			if d.Arg == nil {
				o.passwordNull = true
			} else if sv := d.Arg.GetString_(); sv != nil {
				p := sv.GetSval()
				o.password = &p
			}
		case "validUntil":
			if sv := d.Arg.GetString_(); sv != nil {
				v := sv.GetSval()
				o.validUntil = &v
			}
		case "addroleto":
			o.inRole = roleSpecs(d.Arg.GetList().GetItems())
		case "rolemembers":
			o.roleMembers = roleSpecs(d.Arg.GetList().GetItems())
		case "adminmembers":
			o.adminMembers = roleSpecs(d.Arg.GetList().GetItems())
		case "sysid":
			// PostgreSQL ignores it (with a NOTICE)
		default:
			return nil, notSupported("role option " + strings.ToUpper(d.Defname))
		}
	}
	return o, nil
}

// setAttributes writes the given options onto r.
func (rc *roleChange) setAttributes(r *access.Role, o *roleOptions) error {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&r.Superuser, o.super)
	set(&r.Inherit, o.inherit)
	set(&r.CreateRole, o.createRole)
	set(&r.CreateDB, o.createDB)
	set(&r.Login, o.login)
	set(&r.Replication, o.replication)
	set(&r.BypassRLS, o.bypassRLS)
	if o.connLimit != nil {
		r.ConnLimit = *o.connLimit
	}
	switch {
	case o.passwordNull:
		r.Password = ""
	case o.password != nil:
		pw := *o.password
		if pw == "" {
			rc.notice(&wire.Error{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: "empty string is not a valid password, clearing password"})
			r.Password = ""
			break
		}
		secret, err := storedSecret(r.Name, pw)
		if err != nil {
			return err
		}
		r.Password = secret
	}
	if o.validUntil != nil {
		v := strings.TrimSpace(*o.validUntil)
		if strings.EqualFold(v, "infinity") {
			r.ValidUntil = nil
		} else {
			t, err := parseValidUntil(v, rc.s)
			if err != nil {
				return err
			}
			r.ValidUntil = &t
		}
	}
	return nil
}

// parseValidUntil reads VALID UNTIL's timestamp in the session's zone.
func parseValidUntil(v string, s *session) (time.Time, error) {
	t, err := exec.ParseTimestamptz(v, s.location())
	if err != nil {
		return time.Time{}, err
	}
	return t, nil
}

// storedSecret is what a role's password is stored as: a SCRAM verifier
// or md5 hash given as such is kept (import, as PostgreSQL does), any
// other text is a password and stored as a new SCRAM verifier.
func storedSecret(user, pw string) (string, error) {
	if wire.IsStoredSecret(pw) {
		return pw, nil
	}
	s, err := wire.HashSCRAM(pw)
	if err != nil {
		return "", wire.Errorf(wire.CodeInternalError, "could not hash the password").WithDetail(err.Error())
	}
	return s, nil
}

// reservedRoleName refuses names PostgreSQL reserves.
func reservedRoleName(name string) error {
	if strings.HasPrefix(name, "pg_") {
		return errRole(pgerr.ReservedName, "role name \"%s\" is reserved", name).WithDetail("Role names starting with \"pg_\" are reserved.")
	}
	return nil
}

func (rc *roleChange) create(st *q.CreateRoleStmt) error {
	o, err := rc.parseRoleOptions(st.Options)
	if err != nil {
		return err
	}
	// PostgreSQL 15's CreateRole checks, in its order
	switch {
	case o.super != nil && *o.super && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to create superusers")
	case o.replication != nil && *o.replication && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to create replication users")
	case o.bypassRLS != nil && *o.bypassRLS && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to create bypassrls users")
	case !rc.hasCreateRole():
		return errRole(wire.CodeInsufficientPrivilege, "permission denied to create role")
	}
	if err := reservedRoleName(st.Role); err != nil {
		return err
	}
	if rc.c.Role(st.Role) != nil {
		return errRole(pgerr.DuplicateObject, "role \"%s\" already exists", st.Role)
	}
	r := access.NewRole(st.Role)
	r.Login = st.StmtType == q.RoleStmtType_ROLESTMT_USER
	if err := rc.setAttributes(&r, o); err != nil {
		return err
	}
	added := rc.c.AddRole(r)
	oid, grantor := added.OID, rc.actorOID()
	for _, spec := range o.inRole {
		parent, _, err := rc.spec(spec)
		if err != nil {
			return err
		}
		if err := rc.addMember(parent, oid, grantor, false); err != nil {
			return err
		}
	}
	for i, list := range [][]*q.RoleSpec{o.roleMembers, o.adminMembers} {
		for _, spec := range list {
			m, _, err := rc.spec(spec)
			if err != nil {
				return err
			}
			if err := rc.addMember(rc.c.ByOID(oid), m.OID, grantor, i == 1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (rc *roleChange) actorOID() uint32 {
	if a := rc.actor(); a != nil {
		return a.OID
	}
	return access.BootstrapOID
}

func (rc *roleChange) alter(st *q.AlterRoleStmt) error {
	target, _, err := rc.spec(st.Role)
	if err != nil {
		return err
	}
	o, err := rc.parseRoleOptions(st.Options)
	if err != nil {
		return err
	}
	if len(o.inRole) > 0 || len(o.roleMembers) > 0 || len(o.adminMembers) > 0 {
		// ALTER GROUP g ADD/DROP USER u
		members := append(append([]*q.RoleSpec(nil), o.roleMembers...), o.adminMembers...)
		for _, spec := range members {
			m, _, err := rc.spec(spec)
			if err != nil {
				return err
			}
			if st.Action < 0 {
				if err := rc.removeMember(target, m, false); err != nil {
					return err
				}
			} else if err := rc.addMember(target, m.OID, rc.actorOID(), false); err != nil {
				return err
			}
		}
		return nil
	}
	// PostgreSQL 15's AlterRole checks
	onlyPassword := o.super == nil && o.inherit == nil && o.createRole == nil && o.createDB == nil && o.login == nil &&
		o.replication == nil && o.bypassRLS == nil && o.connLimit == nil && o.validUntil == nil
	self := rc.actor() != nil && rc.actor().OID == target.OID
	switch {
	case (target.Superuser || o.super != nil) && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to alter superuser roles or change superuser attribute")
	case (target.Replication || o.replication != nil) && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to alter replication roles or change replication attribute")
	case o.bypassRLS != nil && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to change bypassrls attribute")
	case !rc.hasCreateRole() && !(self && onlyPassword):
		return errRole(wire.CodeInsufficientPrivilege, "permission denied")
	}
	return rc.setAttributes(target, o)
}

func (rc *roleChange) drop(st *q.DropRoleStmt) error {
	if !rc.hasCreateRole() {
		return errRole(wire.CodeInsufficientPrivilege, "permission denied to drop role")
	}
	for _, spec := range roleSpecs(st.Roles) {
		role, name, err := rc.spec(spec)
		if err != nil {
			if st.MissingOk && role == nil && spec.Roletype == q.RoleSpecType_ROLESPEC_CSTRING {
				rc.notice(&wire.Error{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("role \"%s\" does not exist, skipping", name)})
				continue
			}
			return err
		}
		switch {
		case name == rc.s.currentRole():
			return errRole(pgerr.ObjectInUse, "current user cannot be dropped")
		case name == rc.s.info.User:
			return errRole(pgerr.ObjectInUse, "session user cannot be dropped")
		case role.Superuser && !rc.isSuper():
			return errRole(wire.CodeInsufficientPrivilege, "must be superuser to drop superusers")
		case role.OID == access.BootstrapOID:
			return errRole(pgerr.DependentObjectsStillExist, "cannot drop role %s because it is required by the database system", name)
		}
		if err := rc.dependentPrivileges(role); err != nil {
			return err
		}
		rc.c.DropRole(role.OID)
	}
	return nil
}

func (rc *roleChange) rename(st *q.RenameStmt) error {
	name := st.Subname
	role := rc.c.Role(name)
	if role == nil {
		return noRole(name)
	}
	switch {
	case name == rc.s.info.User:
		return errRole(wire.CodeFeatureNotSupported, "session user cannot be renamed")
	case name == rc.s.currentRole():
		return errRole(wire.CodeFeatureNotSupported, "current user cannot be renamed")
	}
	if err := reservedRoleName(st.Newname); err != nil {
		return err
	}
	if rc.c.Role(st.Newname) != nil {
		return errRole(pgerr.DuplicateObject, "role \"%s\" already exists", st.Newname)
	}
	switch {
	case role.Superuser && !rc.isSuper():
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to rename superusers")
	case !rc.hasCreateRole():
		return errRole(wire.CodeInsufficientPrivilege, "permission denied to rename role")
	}
	if strings.HasPrefix(role.Password, "md5") {
		// an md5 hash is salted with the name: it no longer verifies
		role.Password = ""
		rc.notice(&wire.Error{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: "MD5 password cleared because of role rename"})
	}
	rc.c.RenameRole(role.OID, st.Newname)
	return nil
}

func (rc *roleChange) grant(st *q.GrantRoleStmt) error {
	admin := false
	for _, n := range st.Opt {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		if d.Defname != "admin" {
			return notSupported(strings.ToUpper(d.Defname) + " option of GRANT role")
		}
		admin = st.IsGrant && boolArg(d) || !st.IsGrant
	}
	// GRANTED BY names the grantor of record (PostgreSQL 15's GrantRole:
	// it must hold the admin option, and only a superuser may name
	// another role than the current one); REVOKE ignores it
	grantor := rc.actorOID()
	if st.Grantor != nil {
		g, _, err := rc.spec(st.Grantor)
		if err != nil {
			return err
		}
		if st.IsGrant {
			grantor = g.OID
		}
	}
	var members []*access.Role
	for _, spec := range roleSpecs(st.GranteeRoles) {
		m, _, err := rc.spec(spec)
		if err != nil {
			return err
		}
		members = append(members, m)
	}
	for _, n := range st.GrantedRoles {
		ap := n.GetAccessPriv()
		if ap == nil {
			continue
		}
		role := rc.c.Role(ap.PrivName)
		if role == nil {
			return noRole(ap.PrivName)
		}
		for _, m := range members {
			var err error
			if st.IsGrant {
				err = rc.addMember(role, m.OID, grantor, admin)
			} else {
				err = rc.removeMember(role, m, admin)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// mayAdminister is PostgreSQL 15's check for changing role's members
// on grantor's authority (the acting role unless GRANTED BY names
// another, which only a superuser may).
func (rc *roleChange) mayAdminister(role *access.Role, grantor uint32) error {
	if role.Superuser {
		if !rc.isSuper() {
			return errRole(wire.CodeInsufficientPrivilege, "must be superuser to alter superusers")
		}
		return nil
	}
	if g := rc.c.ByOID(grantor); !rc.hasCreateRole() && !(g != nil && g.Superuser) && !rc.c.HasAdmin(grantor, role.OID) {
		return errRole(wire.CodeInsufficientPrivilege, "must have admin option on role \"%s\"", role.Name)
	}
	if grantor != rc.actorOID() && !rc.isSuper() {
		return errRole(wire.CodeInsufficientPrivilege, "must be superuser to set grantor")
	}
	return nil
}

func (rc *roleChange) addMember(role *access.Role, member, grantor uint32, admin bool) error {
	if err := rc.mayAdminister(role, grantor); err != nil {
		return err
	}
	m := rc.c.ByOID(member)
	if rc.c.MemberOf(role.OID, member, false) {
		return errRole(pgerr.InvalidGrantOperation, "role \"%s\" is a member of role \"%s\"", role.Name, m.Name)
	}
	if ms := rc.c.Membership(role.OID, member); ms != nil && (ms.Admin || !admin) {
		rc.notice(&wire.Error{Severity: "NOTICE", Code: pgerr.SuccessfulCompletion, Message: fmt.Sprintf("role \"%s\" is already a member of role \"%s\"", m.Name, role.Name)})
		return nil
	}
	rc.c.Grant(role.OID, member, grantor, admin)
	return nil
}

func (rc *roleChange) removeMember(role, member *access.Role, adminOnly bool) error {
	if err := rc.mayAdminister(role, rc.actorOID()); err != nil {
		return err
	}
	if rc.c.Membership(role.OID, member.OID) == nil {
		rc.notice(&wire.Error{Severity: "WARNING", Code: pgerr.Warning, Message: fmt.Sprintf("role \"%s\" is not a member of role \"%s\"", member.Name, role.Name)})
		return nil
	}
	rc.c.Revoke(role.OID, member.OID, adminOnly)
	return nil
}

// tagResult is a statement's outcome without rows.
type tagResult struct{ tag string }

func (r *tagResult) Columns() []wire.Column                    { return nil }
func (r *tagResult) Next(context.Context) ([]any, bool, error) { return nil, false, nil }
func (r *tagResult) Tag() string                               { return r.tag }
func (r *tagResult) Close() error                              { return nil }

// validateSetRole checks SET ROLE: the role exists and the session user
// is a member of it, directly or not (superusers may take any role), as
// PostgreSQL 15's check_role.
func (s *session) validateSetRole(ctx context.Context, value string) error {
	if value == "none" || value == "" {
		return nil
	}
	c, err := s.roleCatalog(ctx)
	if err != nil {
		return err
	}
	if c.Bootstrap() {
		if value == s.info.User {
			return nil
		}
		return wire.Errorf(wire.CodeInvalidParameterValue, "role \"%s\" does not exist", value)
	}
	target, me := c.Role(value), c.Role(s.info.User)
	switch {
	case target == nil:
		return wire.Errorf(wire.CodeInvalidParameterValue, "role \"%s\" does not exist", value)
	case me != nil && (me.Superuser || c.MemberOf(me.OID, target.OID, false)):
		return nil
	}
	return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied to set role \"%s\"", value)
}

// rolesForExec is exec.Session.Roles: the newest role catalog (nil when
// it cannot be read: exec then shows the session user alone).
func (s *session) rolesForExec() *access.Catalog {
	if s.access == nil {
		return nil
	}
	c := s.lastRoles.Load()
	if c == nil || c.Version != s.access.Seen() {
		var err error
		if c, err = s.access.Current(context.Background()); err != nil {
			return nil
		}
	}
	if t, err := s.txRoleCatalog(context.Background(), c); err == nil {
		return t // the transaction's role statements (roles_txn.go)
	}
	return c
}

// mayManageBranches is CREATEDB: a branch is a database, so creating and
// deleting one needs the attribute (or superuser), as CREATE DATABASE
// does in PostgreSQL.
func (s *session) mayManageBranches(ctx context.Context) error {
	c, err := s.roleCatalog(ctx)
	if err != nil {
		return err
	}
	if c.Bootstrap() {
		return nil
	}
	if r := c.Role(s.currentRole()); r != nil && (r.Superuser || r.CreateDB) {
		return nil
	}
	return wire.Errorf(wire.CodeInsufficientPrivilege, "permission denied to create database").
		WithDetail("A database is a graph branch: creating or deleting one needs CREATEDB.")
}

// checkOwnerChange vets ALTER … OWNER TO (pg_dump's restore scripts end
// every object with one) of objects other than tables, views and
// sequences (those record their owner: table_privileges.go). Other
// objects have no per-role owner here: the bootstrap superuser owns
// them, so a superuser's OWNER TO an
// existing role is accepted without changing what the catalogs show,
// a missing role is 42704 and anyone else is not the owner (42501), as
// PostgreSQL answers a non-owner.
func (s *session) checkOwnerChange(ctx context.Context, n *q.Node) error {
	type change struct {
		owner      *q.RoleSpec
		kind, name string
	}
	var changes []change
	switch x := n.Node.(type) {
	case *q.Node_AlterOwnerStmt:
		switch t := x.AlterOwnerStmt.ObjectType; {
		case isRoutine(t):
			return nil // functions record their owner (function_privileges.go)
		case t == q.ObjectType_OBJECT_TYPE || t == q.ObjectType_OBJECT_DOMAIN:
			return nil // so do types (type_privileges.go)
		case t == q.ObjectType_OBJECT_SCHEMA:
			c, err := s.roleCatalog(ctx)
			if err != nil {
				return err
			}
			if _, ok := (&roleChange{s: s, c: c}).createdSchema(x.AlterOwnerStmt.Object.GetString_().GetSval()); ok {
				return nil // and created schemas (database_privileges.go)
			}
		}
		name := ""
		if x.AlterOwnerStmt.Relation != nil {
			name = x.AlterOwnerStmt.Relation.Relname
		} else if sv := x.AlterOwnerStmt.Object.GetString_(); sv != nil {
			name = sv.GetSval()
		}
		changes = append(changes, change{x.AlterOwnerStmt.Newowner, strings.ToLower(strings.TrimPrefix(x.AlterOwnerStmt.ObjectType.String(), "OBJECT_")), name})
	case *q.Node_AlterTableStmt:
		switch x.AlterTableStmt.Objtype {
		case q.ObjectType_OBJECT_TABLE, q.ObjectType_OBJECT_VIEW, q.ObjectType_OBJECT_SEQUENCE:
			return nil // relations record their owner (table_privileges.go)
		}
		for _, c := range x.AlterTableStmt.Cmds {
			if cmd := c.GetAlterTableCmd(); cmd != nil && cmd.Subtype == q.AlterTableType_AT_ChangeOwner {
				name := ""
				if x.AlterTableStmt.Relation != nil {
					name = x.AlterTableStmt.Relation.Relname
				}
				changes = append(changes, change{cmd.Newowner, strings.ToLower(strings.TrimPrefix(x.AlterTableStmt.Objtype.String(), "OBJECT_")), name})
			}
		}
	}
	if len(changes) == 0 {
		return nil
	}
	c, err := s.roleCatalog(ctx)
	if err != nil || c.Bootstrap() {
		return err
	}
	rc := &roleChange{s: s, c: c}
	for _, ch := range changes {
		if _, _, err := rc.spec(ch.owner); err != nil {
			return err
		}
		if !rc.isSuper() {
			return wire.Errorf(wire.CodeInsufficientPrivilege, "must be owner of %s %s", ch.kind, ch.name)
		}
	}
	return nil
}
