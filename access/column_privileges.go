package access

import "slices"

// Column privileges (PostgreSQL's attacl): SELECT, INSERT, UPDATE and
// REFERENCES granted on single columns. A column's ACL starts empty
// (nil: the table's ACL alone decides; the owner's privileges are
// table-level) and is stored with the column's definition, versioned
// like the table's ACL. A role holds a privilege on a column when it
// holds it on the table or on the column; grants on a column pick their
// grantor from the table's and the column's ACL together, as
// PostgreSQL's ExecGrant_Attribute does.

// AllColumnPrivs are the privileges a column can hold.
const AllColumnPrivs = PrivSelect | PrivInsert | PrivUpdate | PrivReferences

// ParseColumnPriv reads a privilege name GRANT may give on columns.
func ParseColumnPriv(name string) (TablePrivs, bool) {
	p, ok := parsePriv(name)
	return p, ok && p&AllColumnPrivs != 0
}

// ColumnOnly are the privileges and grant options role holds through a
// column's own ACL (not the table's).
func (c *Catalog) ColumnOnly(role uint32, col *TableACL) (held, grantable TablePrivs) {
	if col == nil {
		return 0, 0
	}
	for _, it := range col.Items {
		if it.Grantee == 0 || c.MemberOf(role, it.Grantee, true) {
			held |= it.Privs
			grantable |= it.GrantOption
		}
	}
	return held, grantable
}

// ColumnPrivileges are the privileges role holds on a column: those of
// the table's ACL plus the column's (restricted to column privileges).
func (c *Catalog) ColumnPrivileges(role, owner uint32, table, col *TableACL) (held, grantable TablePrivs) {
	held, grantable = c.TablePrivileges(role, owner, table)
	h, g := c.ColumnOnly(role, col)
	return (held | h) & AllColumnPrivs, (grantable | g) & AllColumnPrivs
}

// MergedColumnACL is a table's ACL followed by a column's, the ACL a
// column grant chooses its grantor from.
func MergedColumnACL(owner uint32, table, col *TableACL) *TableACL {
	items := table.items(owner)
	if col != nil {
		items = append(items, col.Items...)
	}
	return &TableACL{Items: items}
}

// GrantColumn adds privs to grantee's item from grantor in a column's
// ACL (empty when nil).
func GrantColumn(col *TableACL, grantee, grantor uint32, privs TablePrivs, withOption bool) *TableACL {
	if col == nil {
		col = &TableACL{}
	}
	return GrantTable(col, 0, grantee, grantor, privs, withOption)
}

// RevokeColumn takes privs from grantee's item from grantor in a
// column's ACL, as RevokeTable does; a column that never had an ACL
// keeps none. PostgreSQL keeps an emptied attacl as an empty array.
func (c *Catalog) RevokeColumn(col *TableACL, owner, grantee, grantor uint32, privs TablePrivs, optionOnly, cascade bool) (*TableACL, error) {
	if col == nil {
		return nil, nil
	}
	out, err := c.RevokeTable(&TableACL{Items: slices.Clone(col.Items)}, owner, grantee, grantor, privs, optionOnly, cascade)
	if err != nil {
		return nil, err
	}
	if out.Items == nil {
		out.Items = []TableACLItem{}
	}
	return out, nil
}
