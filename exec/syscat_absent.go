package exec

// Catalogs of features pggraph does not have, present with PostgreSQL
// 15's columns and no rows so that clients' queries bind and list
// nothing: large objects, per-database and per-role settings (ALTER
// ROLE/DATABASE ... SET), encoding conversions (pggraph speaks UTF8
// only), logical-replication subscriptions, transforms, security labels, aggregates defined
// with CREATE AGGREGATE (the built-in ones are not listed either), foreign-server user
// mappings and operator classes and families with their operators and
// support functions (pggraph's indexes are key lookups without operator
// classes). A fresh PostgreSQL database has no
// rows in the first four either; its built-in conversions and operator
// classes are hidden by psql's \dc and \dd unless asked for with S.
//
// The visibility functions of these object kinds answer NULL: there is
// no such object (PostgreSQL's answer for an OID it does not know).

func init() {
	empty := func(*catalogSet) [][]any { return nil }
	pgCatalogRels["pg_largeobject_metadata"] = &sysRelation{2995, "oid oid, lomowner oid, lomacl aclitem[]", empty}
	pgCatalogRels["pg_db_role_setting"] = &sysRelation{2964, "setdatabase oid, setrole oid, setconfig text[]", empty}
	pgCatalogRels["pg_conversion"] = &sysRelation{2607, "oid oid, conname name, connamespace oid, conowner oid, conforencoding int4, contoencoding int4, conproc regproc, condefault bool", empty}
	pgCatalogRels["pg_subscription"] = &sysRelation{6100, "oid oid, subdbid oid, subskiplsn pg_lsn, subname name, subowner oid, subenabled bool, subbinary bool, substream bool, subtwophasestate char, subdisableonerr bool, subconninfo text, subslotname name, subsynccommit text, subpublications text[]", empty}
	pgCatalogRels["pg_user_mappings"] = &sysRelation{12327, "umid oid, srvid oid, srvname name, umuser oid, usename name, umoptions text[]", empty}
	pgCatalogRels["pg_opclass"] = &sysRelation{2616, "oid oid, opcmethod oid, opcname name, opcnamespace oid, opcowner oid, opcfamily oid, opcintype oid, opcdefault bool, opckeytype oid", empty}
	pgCatalogRels["pg_opfamily"] = &sysRelation{2753, "oid oid, opfmethod oid, opfname name, opfnamespace oid, opfowner oid", empty}
	pgCatalogRels["pg_amop"] = &sysRelation{2602, "oid oid, amopfamily oid, amoplefttype oid, amoprighttype oid, amopstrategy int2, amoppurpose char, amopopr oid, amopmethod oid, amopsortfamily oid", empty}
	pgCatalogRels["pg_amproc"] = &sysRelation{2603, "oid oid, amprocfamily oid, amproclefttype oid, amprocrighttype oid, amprocnum int2, amproc regproc", empty}
	// transforms (CREATE TRANSFORM) and user-defined aggregates: pg_dump
	// reads both while collecting functions
	pgCatalogRels["pg_transform"] = &sysRelation{3576, "oid oid, trftype oid, trflang oid, trffromsql regproc, trftosql regproc", empty}
	pgCatalogRels["pg_aggregate"] = &sysRelation{2600, "aggfnoid regproc, aggkind char, aggnumdirectargs int2, aggtransfn regproc, aggfinalfn regproc, aggcombinefn regproc, aggserialfn regproc, aggdeserialfn regproc, aggmtransfn regproc, aggminvtransfn regproc, aggmfinalfn regproc, aggfinalextra bool, aggmfinalextra bool, aggfinalmodify char, aggmfinalmodify char, aggsortop oid, aggtranstype oid, aggtransspace int4, aggmtranstype oid, aggmtransspace int4, agginitval text, aggminitval text", empty}
	pgCatalogRels["pg_user_mapping"] = &sysRelation{1418, "oid oid, umuser oid, umserver oid, umoptions text[]", empty}
	pgCatalogRels["pg_seclabels"] = &sysRelation{12099, "objoid oid, classoid oid, objsubid int4, objtype text, objnamespace oid, objname text, provider text, label text", empty}
	for _, name := range []string{"pg_conversion_is_visible", "pg_opclass_is_visible", "pg_opfamily_is_visible", "pg_statistics_obj_is_visible"} {
		def(name, sig(TBool, nullKernel, TOid))
	}
}
