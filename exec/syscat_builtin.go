package exec

// The built-in objects every PostgreSQL 15 database has and pggraph
// reports as PostgreSQL does: the tablespaces pg_default and pg_global
// (pggraph has no others; pg_tablespace_location is empty for both, as
// PostgreSQL answers for its built-in ones), the access methods (heap and the six index
// methods; CREATE INDEX records whichever one it names) and the
// languages (internal, c, sql and plpgsql, whose extension pg_extension
// lists), with their handler functions (listed in pg_proc) and their
// descriptions (pg_description, pg15/descriptions.tsv).

func init() {
	pgCatalogRels["pg_tablespace"] = &sysRelation{1213, "oid oid, spcname name, spcowner oid, spcacl aclitem[], spcoptions text[]", func(*catalogSet) [][]any {
		return [][]any{{oidDefaultTablespace, "pg_default", oidPostgresRole, nil, nil}, {oidGlobalTablespace, "pg_global", oidPostgresRole, nil, nil}}
	}}
	def("pg_tablespace_location", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			switch a[0].I[i] {
			case oidDefaultTablespace, oidGlobalTablespace:
				out.S[i] = ""
			default:
				out.SetNull(int(i))
			}
		}
		return nil
	}, TOid))
	pgCatalogRels["pg_am"] = &sysRelation{2601, "oid oid, amname name, amhandler regproc, amtype char", func(*catalogSet) [][]any {
		catalogProcs() // names the handlers (regproc output)
		var rows [][]any
		for _, a := range pgAMFacts() {
			rows = append(rows, []any{a.oid, a.name, a.handler, string(a.amtype)})
		}
		return rows
	}}
	pgCatalogRels["pg_language"] = &sysRelation{2612, "oid oid, lanname name, lanowner oid, lanispl bool, lanpltrusted bool, lanplcallfoid oid, laninline oid, lanvalidator oid, lanacl aclitem[]", func(*catalogSet) [][]any {
		var rows [][]any
		for _, l := range pgLanguageFacts() {
			rows = append(rows, []any{l.oid, l.name, oidPostgresRole, l.isPL, l.trusted, l.handler, l.inline, l.validator, nil})
		}
		return rows
	}}
}

// The built-in tablespaces.
const (
	oidDefaultTablespace = 1663
	oidGlobalTablespace  = 1664
)

// catalogRelOID is the OID of the pg_catalog relation obj_description's
// second argument names ("pg_class", "pg_catalog.pg_am"); 0 if none.
func catalogRelOID(name string) uint32 {
	parts := splitQualified(name)
	if len(parts) == 2 && parts[0] == "pg_catalog" {
		parts = parts[1:]
	}
	if len(parts) != 1 {
		return 0
	}
	if r := pgCatalogRels[parts[0]]; r != nil {
		return r.oid
	}
	if f := pgRelFacts()["pg_catalog."+parts[0]]; f != nil {
		return f.oid
	}
	return 0
}
