package exec

import (
	"strings"

	"github.com/pggraph/pggraph/access"
)

// Type privileges. A user type's (enum's or domain's) owner and ACL are
// stored with its definition by the planner (EnumDef/DomainDef.ACL, nil:
// PostgreSQL's default, USAGE for PUBLIC and the owner), which checks
// USAGE where a statement declares something of the type; values and
// casts need none, as in PostgreSQL. An array type has its element's
// privileges. Built-in types keep PostgreSQL's default.

// typeACL is pg_type.typacl of a user type: NULL until someone granted
// or revoked on it.
func (c *catalogSet) typeACL(acl *access.TableACL) any {
	if acl == nil {
		return nil
	}
	return c.roleCatalog().TableACLText(acl)
}

// userTypeACL finds the user type (or array of one) oid names: its
// owner and ACL, and whether it is one.
func (c *catalogSet) userTypeACL(oid uint32) (owner uint32, acl *access.TableACL, ok bool) {
	for _, o := range []uint32{oid, oid - 1} {
		if e := c.enumByOID(o); e != nil && (o == oid || e.ArrayOID() == oid) {
			return e.Owner, e.ACL, true
		}
		if d := c.domainByOID(o); d != nil && (o == oid || d.ArrayOID() == oid) {
			return d.Owner, d.ACL, true
		}
	}
	return 0, nil, false
}

// typeExists reports a type OID pg_type has a row for.
func (c *catalogSet) typeExists(oid uint32) bool {
	if _, _, ok := c.userTypeACL(oid); ok {
		return true
	}
	_, ok := typeInfos[oid]
	return ok || pgTypeFacts()[oid] != nil
}

func init() {
	// has_type_privilege([role,] type, privileges): the type by regtype
	// text (42704 when missing) or OID (NULL when missing)
	const name = "has_type_privilege"
	defCustom(name, func(b *binder, args []Expr) (Expr, error) {
		withUser, err := bindPrivilegeArgs(b, name, args)
		if err != nil {
			return nil, err
		}
		cs := b.cat
		return &opExpr{name: name, t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			cat := ec.run.roleCatalog()
			for _, i := range sel {
				role, rest, err := privilegeSubject(ec, cat, a, i, withUser)
				if err != nil {
					return err
				}
				var oid uint32
				if rest[0].T.Kind() == KStr {
					text := strings.TrimSpace(rest[0].S[i])
					oid, err = cs.regLookup(OIDRegtype, text)
					if err != nil {
						// _name is the array type of a user type name
						elem, isArray := strings.CutPrefix(text, "_")
						var found bool
						if isArray {
							if e := cs.enumByName(elem); e != nil {
								oid, found = e.ArrayOID(), true
							} else if d := cs.domainByName(elem); d != nil {
								oid, found = d.ArrayOID(), true
							}
						}
						if !found {
							return err
						}
					}
				} else {
					oid = uint32(rest[0].I[i])
				}
				want, opt, err := parsePrivList(rest[1].S[i], access.ParseTypePriv)
				if err != nil {
					return err
				}
				switch {
				case !cs.typeExists(oid):
					out.SetNull(int(i))
				case role == nil:
					out.B[i] = cat.Bootstrap()
				default:
					owner, acl, _ := cs.userTypeACL(oid)
					held, grantable := cat.TablePrivileges(role.OID, owner, access.TypeACL(owner, acl))
					out.B[i] = held&want != 0 || grantable&opt != 0
				}
			}
			return nil
		}}, nil
	})
}
