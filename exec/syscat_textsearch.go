package exec

// Text search catalogs. pggraph has no text search (tsvector, to_tsvector
// and @@ answer 0A000), so it has no configurations, dictionaries,
// parsers or templates: the relations are present with PostgreSQL 15's
// columns and no rows, and psql's \dF, \dFd, \dFp and \dFt print their
// headers over an empty list. (A PostgreSQL installation lists its
// built-in configurations there, one per snowball language it ships.)

func init() {
	empty := func(*catalogSet) [][]any { return nil }
	pgCatalogRels["pg_ts_config"] = &sysRelation{3602, "oid oid, cfgname name, cfgnamespace oid, cfgowner oid, cfgparser oid", empty}
	pgCatalogRels["pg_ts_config_map"] = &sysRelation{3603, "mapcfg oid, maptokentype int4, mapseqno int4, mapdict oid", empty}
	pgCatalogRels["pg_ts_dict"] = &sysRelation{3600, "oid oid, dictname name, dictnamespace oid, dictowner oid, dicttemplate oid, dictinitoption text", empty}
	pgCatalogRels["pg_ts_parser"] = &sysRelation{3601, "oid oid, prsname name, prsnamespace oid, prsstart regproc, prstoken regproc, prsend regproc, prsheadline regproc, prslextype regproc", empty}
	pgCatalogRels["pg_ts_template"] = &sysRelation{3764, "oid oid, tmplname name, tmplnamespace oid, tmplinit regproc, tmpllexize regproc", empty}
	for _, name := range []string{"pg_ts_config_is_visible", "pg_ts_dict_is_visible", "pg_ts_parser_is_visible", "pg_ts_template_is_visible"} {
		def(name, sig(TBool, nullKernel, TOid)) // no such objects: NULL, as PostgreSQL answers for an unknown OID
	}
}
