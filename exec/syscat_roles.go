package exec

import (
	"strings"

	"github.com/pggraph/pggraph/access"
)

// Roles in the catalogs: pg_roles, pg_user and pg_auth_members list the
// root's role catalog (Session.Roles); pg_has_role and pg_get_userbyid
// read it. A root without a role catalog has one role, the session user,
// a superuser with OID 10 (package access).

// bootstrapRoles is the catalog of a root without roles.
func bootstrapRoles(user string) *access.Catalog {
	if user == "" {
		user = "postgres"
	}
	r := access.NewSuperuser(user)
	r.OID = access.BootstrapOID
	return &access.Catalog{Roles: []access.Role{r}}
}

func resolveRoles(fn func() *access.Catalog, sessionUser string) *access.Catalog {
	if fn != nil {
		if c := fn(); !c.Bootstrap() {
			return c
		}
	}
	return bootstrapRoles(sessionUser)
}

// roleCatalog is the statement's role catalog (read once).
func (c *catalogSet) roleCatalog() *access.Catalog {
	if c.roles == nil {
		u := c.sessUser
		if u == "" {
			u = c.user_
		}
		c.roles = resolveRoles(c.rolesFn, u)
	}
	return c.roles
}

// roleCatalog is the execution's role catalog (read once).
func (rc *runCtx) roleCatalog() *access.Catalog {
	if rc.roles == nil {
		rc.roles = resolveRoles(rc.rolesFn, rc.sessionUser)
	}
	return rc.roles
}

func validUntil(r *access.Role) any {
	if r.ValidUntil == nil {
		return nil
	}
	return *r.ValidUntil
}

func (c *catalogSet) rolesRows() [][]any {
	var rows [][]any
	for i := range c.roleCatalog().Roles {
		r := &c.roleCatalog().Roles[i]
		// rolpassword is always masked in pg_roles
		rows = append(rows, []any{r.Name, r.Superuser, r.Inherit, r.CreateRole, r.CreateDB, r.Login, r.Replication,
			r.ConnLimit, "********", validUntil(r), r.BypassRLS, nil, r.OID})
	}
	return rows
}

func (c *catalogSet) userRows() [][]any {
	var rows [][]any
	for i := range c.roleCatalog().Roles {
		r := &c.roleCatalog().Roles[i]
		if r.Login {
			rows = append(rows, []any{r.Name, r.OID, r.CreateDB, r.Superuser, r.Replication, r.BypassRLS, "********", validUntil(r), nil})
		}
	}
	return rows
}

func (c *catalogSet) authMembersRows() [][]any {
	var rows [][]any
	for _, m := range c.roleCatalog().Members {
		rows = append(rows, []any{m.Role, m.Member, m.Grantor, m.Admin})
	}
	return rows
}

// pg_has_role(user, role, privilege), pg_has_role(role, privilege):
// users and roles by name or OID; privilege MEMBER (a member through any
// chain), USAGE (through roles that inherit), with or without WITH ADMIN
// OPTION / WITH GRANT OPTION, comma-separated (any one suffices).
// Superusers hold every role. Untyped literals are names (PostgreSQL
// prefers the string category's overload).
func init() {
	defCustom("pg_has_role", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 2 || len(args) > 3 {
			return nil, noFunction("pg_has_role", args)
		}
		for i := range args {
			t := args[i].Type()
			switch {
			case t.OID == OIDUnknown:
				args[i], _ = b.coerce(args[i], TName, castImplicit, "")
			case i == len(args)-1 && t.Kind() != KStr:
				return nil, noFunction("pg_has_role", args)
			case i < len(args)-1 && t.Kind() != KStr && t.OID != OIDOid:
				c, err := b.coerce(args[i], TOid, castImplicit, "")
				if err != nil {
					return nil, noFunction("pg_has_role", args)
				}
				args[i] = c
			}
		}
		return &opExpr{name: "pg_has_role", t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			cat := ec.run.roleCatalog()
			role := func(v *Vec, row int32) (*access.Role, error) {
				if v.T.Kind() != KStr {
					return cat.ByOID(uint32(v.I[row])), nil
				}
				r := cat.Role(v.S[row])
				if r == nil {
					return nil, errf(CodeUndefinedObject, "role \"%s\" does not exist", v.S[row])
				}
				return r, nil
			}
			for _, i := range sel {
				var user, target *access.Role
				var err error
				if len(a) == 2 {
					user = cat.Role(ec.run.user)
					if target, err = role(a[0], i); err != nil {
						return err
					}
				} else {
					if user, err = role(a[0], i); err != nil {
						return err
					}
					if target, err = role(a[1], i); err != nil {
						return err
					}
				}
				privs := a[len(a)-1].S[i]
				held := false
				for _, p := range strings.Split(privs, ",") {
					p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
					admin := false
					if base, ok := strings.CutSuffix(p, " WITH ADMIN OPTION"); ok {
						p, admin = base, true
					} else if base, ok := strings.CutSuffix(p, " WITH GRANT OPTION"); ok {
						p, admin = base, true
					}
					if p != "MEMBER" && p != "USAGE" {
						return errf(CodeInvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(privs))
					}
					if user == nil || target == nil {
						continue
					}
					switch {
					case user.Superuser:
						held = true
					case admin:
						held = held || cat.HasAdmin(user.OID, target.OID)
					default:
						held = held || cat.MemberOf(user.OID, target.OID, p == "USAGE")
					}
				}
				out.B[i] = held
			}
			return nil
		}}, nil
	})
}

// has_database_privilege([user,] database, privilege): a database is a
// graph branch; its privileges are CONNECT, CREATE, TEMPORARY and
// pggraph's WRITE and MERGE (access.BranchPrivs), answered from the
// role catalog. user is a name or OID (default current_user), database
// a name or the current database's OID.
func init() {
	defCustom("has_database_privilege", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 2 || len(args) > 3 {
			return nil, noFunction("has_database_privilege", args)
		}
		for i := range args {
			if args[i].Type().OID == OIDUnknown {
				args[i], _ = b.coerce(args[i], TText, castImplicit, "")
			}
		}
		db := b.cat.database()
		return &opExpr{name: "has_database_privilege", t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			cat := ec.run.roleCatalog()
			for _, i := range sel {
				role := cat.Role(ec.run.user)
				dbArg, privArg := a[0], a[1]
				if len(a) == 3 {
					dbArg, privArg = a[1], a[2]
					if a[0].T.Kind() == KStr {
						if role = cat.Role(a[0].S[i]); role == nil {
							return errf(CodeUndefinedObject, "role \"%s\" does not exist", a[0].S[i])
						}
					} else {
						role = cat.ByOID(uint32(a[0].I[i]))
					}
				}
				name := db
				if dbArg.T.Kind() == KStr {
					name = dbArg.S[i]
				} else if uint32(dbArg.I[i]) != oidDatabase {
					out.SetNull(int(i))
					continue
				}
				var want, grantOpt access.BranchPrivs
				for _, p := range strings.Split(privArg.S[i], ",") {
					p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
					opt := false
					if base, ok := strings.CutSuffix(p, " WITH GRANT OPTION"); ok {
						p, opt = base, true
					}
					bp, ok := access.ParseBranchPriv(p)
					if !ok {
						return errf(CodeInvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(privArg.S[i]))
					}
					if opt {
						grantOpt |= bp
					} else {
						want |= bp
					}
				}
				if role == nil {
					out.B[i] = false
					continue
				}
				held, grantable := cat.BranchPrivileges(role.OID, name)
				out.B[i] = held&want != 0 || grantable&grantOpt != 0
			}
			return nil
		}}, nil
	})
}
