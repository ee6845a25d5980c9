package exec

// Column privileges in the catalogs: pg_attribute.attacl is a column's
// own ACL (ColumnDef.ACL, stored by the planner with the column's
// definition); has_column_privilege and has_any_column_privilege add it
// to the table's (syscat_privileges.go).

// columnACL is a column's pg_attribute.attacl (NULL when it has none).
func (c *catalogSet) columnACL(col ColumnDef) any {
	if col.ACL == nil {
		return nil
	}
	return c.roleCatalog().TableACLText(col.ACL)
}

// columnIndex is the column has_column_privilege names, by name or by
// attnum, or -1 (an attnum naming no column: NULL).
func columnIndex(td *TableDef, arg *Vec, i int32) int {
	if arg.T.Kind() == KStr {
		for k, c := range td.Columns {
			if c.Name == arg.S[i] {
				return k
			}
		}
		return -1
	}
	if n := int(arg.I[i]); n >= 1 && n <= len(td.Columns) {
		return n - 1
	}
	return -1
}
