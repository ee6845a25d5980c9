package exec

func init() {
	// pg_authid is what pg_dumpall --globals-only / --roles-only reads.
	// In PostgreSQL only superusers may read it; here every role may read
	// the table, and rolpassword (the stored SCRAM verifier, which
	// pg_dumpall writes back as CREATE ROLE … PASSWORD) is shown only to
	// a superuser session.
	// pg_parameter_acl: no GRANT SET/ALTER SYSTEM ON PARAMETER exists here
	pgCatalogRels["pg_parameter_acl"] = &sysRelation{6243, "oid oid, parname text, paracl aclitem[]", func(*catalogSet) [][]any { return nil }}
	pgCatalogRels["pg_authid"] = &sysRelation{1260, "oid oid, rolname name, rolsuper bool, rolinherit bool, rolcreaterole bool, rolcreatedb bool, rolcanlogin bool, rolreplication bool, rolbypassrls bool, rolconnlimit int4, rolpassword text, rolvaliduntil timestamptz", (*catalogSet).authidRows}
}

func (c *catalogSet) authidRows() [][]any {
	cat := c.roleCatalog()
	cur := c.user_
	if cur == "" {
		cur = c.sessUser
	}
	super := false
	for i := range cat.Roles {
		if cat.Roles[i].Name == cur {
			super = cat.Roles[i].Superuser
		}
	}
	var rows [][]any
	for i := range cat.Roles {
		r := &cat.Roles[i]
		var pw any
		if super && r.Password != "" {
			pw = r.Password
		}
		rows = append(rows, []any{r.OID, r.Name, r.Superuser, r.Inherit, r.CreateRole, r.CreateDB, r.Login, r.Replication,
			r.BypassRLS, r.ConnLimit, pw, validUntil(r)})
	}
	rows = append(rows, []any{uint32(oidDatabaseOwnerRole), "pg_database_owner", false, true, false, false, false, false,
		false, int32(-1), nil, nil})
	return rows
}
