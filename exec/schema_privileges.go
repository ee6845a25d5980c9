package exec

import (
	"strings"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/pgerr"
)

// Schema privileges in the catalogs: pg_namespace.nspacl and
// has_schema_privilege read the ACL the role catalog keeps per branch
// and schema (access/schema_privileges.go; the planner enforces CREATE
// with it). A schema nobody granted or revoked on shows PostgreSQL 15's
// initdb ACL, which pg_dump and psql's \dn+ expect.

// schemaACL is a schema's effective ACL on the statement's branch:
// pg_toast has no PUBLIC item (PostgreSQL leaves its nspacl NULL, whose
// default gives the owner everything), the others their stored or
// default ACL.
func (c *catalogSet) schemaACL(cat *access.Catalog, schema string) *access.TableACL {
	if schema == "pg_toast" {
		return &access.TableACL{Items: []access.TableACLItem{{Grantee: access.BootstrapOID, Grantor: access.BootstrapOID, Privs: access.AllSchemaPrivs}}}
	}
	acl, _ := cat.SchemaACL(c.database(), schema)
	return acl
}

// schemaACLText is pg_namespace.nspacl for public: the stored ACL (with
// pg_database_owner as its owner), or the initdb one.
func (c *catalogSet) schemaACLText(schema string) []string {
	cat := c.roleCatalog()
	if acl, changed := cat.SchemaACL(c.database(), schema); changed {
		return cat.TableACLText(acl)
	}
	return []string{"pg_database_owner=UC/pg_database_owner", "=U/pg_database_owner"}
}

// parseSchemaPrivs reads has_schema_privilege's privilege list ("USAGE,
// CREATE WITH GRANT OPTION").
func parseSchemaPrivs(list string) (want, opt access.TablePrivs, err error) {
	return parsePrivList(list, access.ParseSchemaPriv)
}

// parsePrivList reads a has_*_privilege privilege list: privileges
// separated by commas, each optionally WITH GRANT OPTION (case and
// spacing free), parse naming each privilege.
func parsePrivList(list string, parse func(string) (access.TablePrivs, bool)) (want, opt access.TablePrivs, err error) {
	for _, p := range strings.Split(list, ",") {
		p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
		withOpt := false
		if base, ok := strings.CutSuffix(p, " WITH GRANT OPTION"); ok {
			p, withOpt = base, true
		}
		sp, ok := parse(p)
		if !ok {
			return 0, 0, errf(CodeInvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(list))
		}
		if withOpt {
			opt |= sp
		} else {
			want |= sp
		}
	}
	return want, opt, nil
}

// bindPrivilegeArgs checks a has_*_privilege([role,] object,
// privileges) call's arity and types its untyped literals as text;
// withUser reports the three-argument form.
func bindPrivilegeArgs(b *binder, name string, args []Expr) (withUser bool, err error) {
	if len(args) < 2 || len(args) > 3 {
		return false, noFunction(name, args)
	}
	for i := range args {
		if args[i].Type().OID == OIDUnknown {
			args[i], _ = b.coerce(args[i], TText, castImplicit, "")
		}
	}
	return len(args) == 3, nil
}

func init() {
	// has_schema_privilege([role,] schema, privileges): schema by name
	// (3F000 when missing) or OID (NULL when missing)
	const name = "has_schema_privilege"
	defCustom(name, func(b *binder, args []Expr) (Expr, error) {
		withUser, err := bindPrivilegeArgs(b, name, args)
		if err != nil {
			return nil, err
		}
		cs := b.cat
		return &opExpr{name: name, t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			cat := ec.run.roleCatalog()
			spaces := cs.namespaces()
			for _, i := range sel {
				role, rest, err := privilegeSubject(ec, cat, a, i, withUser)
				if err != nil {
					return err
				}
				schema := ""
				if rest[0].T.Kind() == KStr {
					for _, ns := range spaces {
						if ns.name == rest[0].S[i] {
							schema = ns.name
						}
					}
					if schema == "" {
						return errf(pgerr.InvalidSchemaName, "schema \"%s\" does not exist", rest[0].S[i])
					}
				} else {
					for _, ns := range spaces {
						if ns.oid == uint32(rest[0].I[i]) {
							schema = ns.name
						}
					}
				}
				want, opt, err := parseSchemaPrivs(rest[1].S[i])
				if err != nil {
					return err
				}
				switch {
				case schema == "":
					out.SetNull(int(i))
				case role == nil:
					out.B[i] = cat.Bootstrap()
				default:
					owner, acl := access.SchemaOwner(schema), cs.schemaACL(cat, schema)
					if d, ok := cs.createdSchema(schema); ok {
						owner = access.OwnerOID(d.Owner)
						acl, _ = cat.CreatedSchemaACL(cs.database(), d.OID, d.Owner)
					}
					held, grantable := cat.TablePrivileges(role.OID, owner, acl)
					out.B[i] = held&want != 0 || grantable&opt != 0
				}
			}
			return nil
		}}, nil
	})
}

// createdSchema finds a created schema (CREATE SCHEMA) by name.
func (c *catalogSet) createdSchema(name string) (SchemaDef, bool) {
	for _, d := range c.schemaDefs() {
		if d.Name == name {
			return d, true
		}
	}
	return SchemaDef{}, false
}

// createdSchemaACLText is a created schema's nspacl: NULL (the default)
// until someone granted or revoked on it.
func (c *catalogSet) createdSchemaACLText(d SchemaDef) any {
	cat := c.roleCatalog()
	if acl, changed := cat.CreatedSchemaACL(c.database(), d.OID, d.Owner); changed {
		return cat.TableACLText(acl)
	}
	return nil
}
