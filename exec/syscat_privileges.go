package exec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/access"
)

// Table privileges in the catalogs: pg_class.relowner and relacl come
// from the relation's TableDef.Owner and ACL (the planner stores them
// with the table's definition and enforces them);
// has_table_privilege, has_column_privilege and
// has_any_column_privilege answer from them with the role catalog, the
// column functions adding a column's own ACL (column_privileges.go).

// relOwner is a relation's pg_class.relowner.
func relOwner(t *TableDef) uint32 { return access.OwnerOID(t.Owner) }

// relACL is a relation's pg_class.relacl (NULL: the default).
func (c *catalogSet) relACL(t *TableDef) any {
	if t.ACL == nil {
		return nil
	}
	return c.roleCatalog().TableACLText(t.ACL)
}

// seqACL is a sequence's pg_class.relacl (NULL for the default).
func (c *catalogSet) seqACL(s *SequenceDef) any {
	if s.ACL == nil {
		return nil
	}
	return c.roleCatalog().TableACLText(s.ACL)
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
	return parsePrivList(list, access.ParseTablePriv)
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
					role, rest, err := privilegeSubject(ec, cat, a, i, withUser)
					if err != nil {
						return err
					}
					var td *TableDef
					if rest[0].T.Kind() == KStr {
						schema, name := splitSchemaName(rest[0].S[i])
						if td = cs.table(schema, name); td == nil {
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
					if err == nil && name != "has_table_privilege" && (want|opt)&^access.AllColumnPrivs != 0 {
						err = errf(CodeInvalidParameterValue, "unrecognized privilege type: \"%s\"", strings.TrimSpace(rest[len(rest)-1].S[i]))
					}
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
					switch {
					case col:
						// the column's own ACL adds to the table's
						// (column_privileges.go)
						if ci := columnIndex(td, rest[1], i); ci >= 0 {
							h, g := cat.ColumnOnly(role.OID, td.Columns[ci].ACL)
							held, grantable = held|h, grantable|g
						} else {
							out.SetNull(int(i))
							continue
						}
					case name == "has_any_column_privilege":
						for _, c := range td.Columns {
							h, g := cat.ColumnOnly(role.OID, c.ACL)
							held, grantable = held|h, grantable|g
						}
					}
					out.B[i] = held&want != 0 || grantable&opt != 0
				}
				return nil
			}}, nil
		})
	}
}

// information_schema.table_privileges and role_table_grants: one row per
// privilege of every aclitem of a user relation's ACL (its default when
// it has none: the owner holds everything), as PostgreSQL's aclexplode
// lists them. table_privileges shows the rows whose grantor or grantee
// the current role has the privileges of, or whose grantee is PUBLIC;
// role_table_grants leaves out PUBLIC's unless the grantor qualifies.
// System catalogs are not listed.
func init() {
	const cols = "grantor sql_identifier, grantee sql_identifier, table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, privilege_type character_data, is_grantable yes_or_no, with_hierarchy yes_or_no"
	infoSchemaRels["table_privileges"] = &sysRelation{13416, cols, func(c *catalogSet) [][]any { return c.tablePrivilegeRows(true) }}
	infoSchemaRels["role_table_grants"] = &sysRelation{13421, cols, func(c *catalogSet) [][]any { return c.tablePrivilegeRows(false) }}
	// column_privileges and role_column_grants: a table-level privilege
	// that applies to columns (INSERT, SELECT, UPDATE, REFERENCES) is
	// listed for each of the relation's columns, as PostgreSQL's view
	// explodes relacl over pg_attribute (columns have no ACLs of their
	// own here)
	const colCols = "grantor sql_identifier, grantee sql_identifier, table_catalog sql_identifier, table_schema sql_identifier, table_name sql_identifier, column_name sql_identifier, privilege_type character_data, is_grantable yes_or_no"
	infoSchemaRels["column_privileges"] = &sysRelation{13285, colCols, func(c *catalogSet) [][]any { return c.columnPrivilegeRows(true) }}
	infoSchemaRels["role_column_grants"] = &sysRelation{13344, colCols, func(c *catalogSet) [][]any { return c.columnPrivilegeRows(false) }}
}

// columnPrivileges are the privileges a column can hold.
const columnPrivileges = access.PrivInsert | access.PrivSelect | access.PrivUpdate | access.PrivReferences

func (c *catalogSet) columnPrivilegeRows(public bool) [][]any {
	var rows [][]any
	byTable := map[string]*TableDef{}
	for _, t := range c.userTables() {
		byTable[t.Schema+"."+t.Name] = t
	}
	for _, r := range c.tablePrivilegeRows(public) {
		t := byTable[r[3].(string)+"."+r[4].(string)]
		p, _ := access.ParseTablePriv(r[5].(string))
		if t == nil || p&columnPrivileges == 0 {
			continue
		}
		for _, col := range t.Columns {
			rows = append(rows, []any{r[0], r[1], r[2], r[3], r[4], col.Name, r[5], r[6]})
		}
	}
	// and the columns' own ACLs, without repeating a row (the view's UNION)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[fmt.Sprint(r...)] = true
	}
	for _, r := range c.privilegeRows(public, true) {
		if k := fmt.Sprint(r...); !seen[k] {
			seen[k] = true
			rows = append(rows, r)
		}
	}
	return rows
}

func (c *catalogSet) tablePrivilegeRows(public bool) [][]any { return c.privilegeRows(public, false) }

// privilegeRows lists the relations' ACLs as table_privileges does or,
// with columns, the columns' own ACLs as column_privileges adds them
// (grantor, grantee, catalog, schema, table, column, privilege,
// grantable).
func (c *catalogSet) privilegeRows(public, columns bool) [][]any {
	v := c.aclViewer()
	cat, sees, name, yes := v.cat, v.sees, v.name, yesNo
	var rows [][]any
	for _, t := range c.userTables() {
		if t.Kind == "sequence" {
			continue
		}
		owner := access.OwnerOID(t.Owner)
		emit := func(items []access.TableACLItem, col string) {
			for _, it := range items {
				if !sees(it.Grantor) && !(it.Grantee != 0 && sees(it.Grantee)) && !(public && it.Grantee == 0) {
					continue
				}
				for p := access.PrivInsert; p <= access.PrivTrigger; p <<= 1 {
					if it.Privs&p == 0 {
						continue
					}
					grantable := it.GrantOption&p != 0 || it.Grantee != 0 && cat.MemberOf(it.Grantee, owner, true)
					if columns {
						rows = append(rows, []any{name(it.Grantor), name(it.Grantee), c.database(), t.Schema, t.RelName(), col, p.Name(), yes(grantable)})
					} else {
						rows = append(rows, []any{name(it.Grantor), name(it.Grantee), c.database(), t.Schema, t.RelName(), p.Name(), yes(grantable), yes(p == access.PrivSelect)})
					}
				}
			}
		}
		if columns {
			for _, col := range t.Columns {
				if col.ACL != nil {
					emit(col.ACL.Items, col.Name)
				}
			}
			continue
		}
		items := access.DefaultTableACL(t.Owner)
		if t.ACL != nil {
			items = t.ACL.Items
		}
		emit(items, "")
	}
	return rows
}

// privilegeSubject is the role a has_*_privilege call asks about at row
// i: its first argument (a role name or OID) when withUser, else the
// current user (nil: an OID naming no role); rest are the arguments
// after the role.
func privilegeSubject(ec *evalCtx, cat *access.Catalog, a []*Vec, i int32, withUser bool) (role *access.Role, rest []*Vec, err error) {
	if !withUser {
		return cat.Role(ec.run.user), a, nil
	}
	if a[0].T.Kind() == KStr {
		if role = cat.Role(a[0].S[i]); role == nil {
			return nil, nil, errf(CodeUndefinedObject, "role \"%s\" does not exist", a[0].S[i])
		}
		return role, a[1:], nil
	}
	return cat.ByOID(uint32(a[0].I[i])), a[1:], nil
}

// splitSchemaName splits a possibly qualified relation name ("" schema:
// the search path).
func splitSchemaName(qualified string) (schema, name string) {
	parts := splitQualified(qualified)
	if len(parts) > 1 {
		schema = parts[len(parts)-2]
	}
	return schema, parts[len(parts)-1]
}

// oidDefaultACLBase numbers pg_default_acl rows (their OIDs are not
// stored: a row is named by its role, schema and kind).
const oidDefaultACLBase = 14000

// defaultACLRows is pg_default_acl, from the role catalog's default
// privileges (ALTER DEFAULT PRIVILEGES; global to the root).
func (c *catalogSet) defaultACLRows() [][]any {
	cat := c.roleCatalog()
	var rows [][]any
	for i, d := range cat.DefaultACLs {
		ns := uint32(0)
		if d.Schema != "" {
			ns = oidPublic
		}
		rows = append(rows, []any{uint32(oidDefaultACLBase + i), d.Role, ns, string(d.ObjType),
			cat.TableACLText(&access.TableACL{Items: d.Items})})
	}
	return rows
}

// aclViewer answers, for the information_schema privilege views, whose
// grants the current role may see and how a role OID is named.
type aclViewer struct {
	c   *catalogSet
	cat *access.Catalog
	me  *access.Role
}

func (c *catalogSet) aclViewer() aclViewer {
	cat := c.roleCatalog()
	return aclViewer{c: c, cat: cat, me: cat.Role(c.user_)}
}

// sees reports whether the current role has the privileges of role
// (pg_has_role(role, 'USAGE')).
func (v aclViewer) sees(role uint32) bool {
	if v.cat.Bootstrap() {
		return true
	}
	if v.me == nil {
		return false
	}
	return v.me.Superuser || v.cat.MemberOf(v.me.OID, role, true)
}

// name is a grantor's or grantee's name (PUBLIC for 0).
func (v aclViewer) name(oid uint32) string {
	if oid == 0 {
		return "PUBLIC"
	}
	if r := v.cat.ByOID(oid); r != nil {
		return r.Name
	}
	if oid == access.BootstrapOID {
		return v.c.userName()
	}
	return strconv.FormatUint(uint64(oid), 10)
}

func yesNo(b bool) string {
	if b {
		return "YES"
	}
	return "NO"
}

// information_schema.routine_privileges and role_routine_grants: one row
// per EXECUTE grant of a user function or procedure's ACL (its default
// when it has none: PUBLIC and the owner), with the visibility rules of
// table_privileges. Built-in functions are not listed.
func init() {
	const cols = "grantor sql_identifier, grantee sql_identifier, specific_catalog sql_identifier, specific_schema sql_identifier, specific_name sql_identifier, routine_catalog sql_identifier, routine_schema sql_identifier, routine_name sql_identifier, privilege_type character_data, is_grantable yes_or_no"
	infoSchemaRels["routine_privileges"] = &sysRelation{13353, cols, func(c *catalogSet) [][]any { return c.routinePrivilegeRows(true) }}
	infoSchemaRels["role_routine_grants"] = &sysRelation{13358, cols, func(c *catalogSet) [][]any { return c.routinePrivilegeRows(false) }}
}

func (c *catalogSet) routinePrivilegeRows(public bool) [][]any {
	v := c.aclViewer()
	var rows [][]any
	for _, f := range c.functions() {
		owner := access.OwnerOID(f.Owner)
		for _, it := range access.FunctionACL(f.Owner, f.ACL).Items {
			if it.Privs&access.PrivExecute == 0 {
				continue
			}
			if !v.sees(it.Grantor) && !(it.Grantee != 0 && v.sees(it.Grantee)) && !(public && it.Grantee == 0) {
				continue
			}
			grantable := it.GrantOption&access.PrivExecute != 0 || it.Grantee != 0 && v.cat.MemberOf(it.Grantee, owner, true)
			specific := f.Name + "_" + strconv.FormatUint(uint64(f.OID), 10)
			rows = append(rows, []any{v.name(it.Grantor), v.name(it.Grantee), c.database(), f.Schema, specific,
				c.database(), f.Schema, f.Name, "EXECUTE", yesNo(grantable)})
		}
	}
	return rows
}
