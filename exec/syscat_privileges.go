package exec

import (
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/access"
)

// Table privileges in the catalogs: pg_class.relowner and relacl come
// from the relation's TableDef.Owner and ACL (the planner stores them
// with the table's definition and enforces them);
// has_table_privilege, has_column_privilege and
// has_any_column_privilege answer from them with the role catalog
// (columns have no privileges of their own here, so the column
// functions give the table's answer, as PostgreSQL does for a column
// without an attacl).

// relOwner is a relation's pg_class.relowner.
func relOwner(t *TableDef) uint32 { return access.OwnerOID(t.Owner) }

// relACL is a relation's pg_class.relacl (NULL: the default).
func (c *catalogSet) relACL(t *TableDef) any {
	if t.ACL == nil {
		return nil
	}
	return c.roleCatalog().TableACLText(t.ACL)
}

// ownerName is the name of a relation's owner (pg_tables.tableowner).
func (c *catalogSet) ownerName(t *TableDef) string {
	if t.Owner == 0 {
		return c.userName()
	}
	if r := c.roleCatalog().ByOID(t.Owner); r != nil {
		return r.Name
	}
	return "unknown (OID=" + strconv.FormatUint(uint64(t.Owner), 10) + ")"
}

// parseTablePrivs reads has_table_privilege's privilege list ("SELECT,
// INSERT WITH GRANT OPTION").
func parseTablePrivs(list string) (want, opt access.TablePrivs, err error) {
	for _, p := range strings.Split(list, ",") {
		p = strings.ToUpper(strings.Join(strings.Fields(p), " "))
		withOpt := false
		if base, ok := strings.CutSuffix(p, " WITH GRANT OPTION"); ok {
			p, withOpt = base, true
		}
		tp, ok := access.ParseTablePriv(p)
		if !ok {
			return 0, 0, errf(CodeInvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(list))
		}
		if withOpt {
			opt |= tp
		} else {
			want |= tp
		}
	}
	return want, opt, nil
}

// firstUserOID is where user relations' OIDs start.
const firstUserOID = 16384

func init() {
	// name: the function; cols: whether a column argument precedes the
	// privilege
	for _, f := range []struct {
		name string
		col  bool
	}{{"has_table_privilege", false}, {"has_column_privilege", true}, {"has_any_column_privilege", false}} {
		name, col := f.name, f.col
		minArgs := 2
		if col {
			minArgs = 3
		}
		defCustom(name, func(b *binder, args []Expr) (Expr, error) {
			if len(args) < minArgs || len(args) > minArgs+1 {
				return nil, noFunction(name, args)
			}
			for i := range args {
				if args[i].Type().OID == OIDUnknown {
					args[i], _ = b.coerce(args[i], TText, castImplicit, "")
				}
			}
			withUser := len(args) == minArgs+1
			cs := b.cat
			return &opExpr{name: name, t: TBool, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
				cat := ec.run.roleCatalog()
				tables := cs.userTables()
				for _, i := range sel {
					role := cat.Role(ec.run.user)
					rest := a
					if withUser {
						rest = a[1:]
						if a[0].T.Kind() == KStr {
							if role = cat.Role(a[0].S[i]); role == nil {
								return errf(CodeUndefinedObject, "role \"%s\" does not exist", a[0].S[i])
							}
						} else {
							role = cat.ByOID(uint32(a[0].I[i]))
						}
					}
					var td *TableDef
					if rest[0].T.Kind() == KStr {
						parts := splitQualified(rest[0].S[i])
						schema := ""
						if len(parts) > 1 {
							schema = parts[len(parts)-2]
						}
						if td = cs.table(schema, parts[len(parts)-1]); td == nil {
							return errf(CodeUndefinedTable, "relation \"%s\" does not exist", rest[0].S[i])
						}
					} else {
						oid := uint32(rest[0].I[i])
						for _, t := range tables {
							if t.OID == oid {
								td = t
							}
						}
					}
					want, opt, err := parseTablePrivs(rest[len(rest)-1].S[i])
					if err != nil {
						return err
					}
					if td == nil || td.OID < firstUserOID {
						// an OID naming no user relation (PostgreSQL: NULL), or
						// a catalog relation (everyone may read it)
						if td == nil {
							out.SetNull(int(i))
						} else {
							out.B[i] = want&^access.PrivSelect == 0 && opt == 0
						}
						continue
					}
					if col && rest[1].T.Kind() == KStr && !hasColumn(td, rest[1].S[i]) {
						return errf(CodeUndefinedColumn, "column \"%s\" of relation \"%s\" does not exist", rest[1].S[i], td.Name)
					}
					if role == nil {
						out.B[i] = false
						continue
					}
					held, grantable := cat.TablePrivileges(role.OID, td.Owner, td.ACL)
					out.B[i] = held&want != 0 || grantable&opt != 0
				}
				return nil
			}}, nil
		})
	}
}
