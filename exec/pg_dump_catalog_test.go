package exec

import "testing"

// The catalog queries and functions pg_dump 15 runs answer as on
// PostgreSQL 15 (its outputs, taken from PostgreSQL 15, are the wants).
func TestPgDumpCatalogQueries(t *testing.T) {
	cat := NewMemCatalog()
	last := int64(7)
	cat.AddSequence(&SequenceDef{Name: "fresh", Start: 3})
	cat.AddSequence(&SequenceDef{Name: "used", Start: 1, LastValue: &last})
	runSQLCases(t, &Engine{Catalog: cat}, nil, []sqlCase{
		{sql: "SELECT set_config(name, 'view, foreign-table', false) FROM pg_settings WHERE name = 'restrict_nonsystem_relation_kind'", want: ""},
		{sql: "SELECT pg_catalog.set_config('search_path', '\"$user\", public', false)", want: "\"$user\", public"},
		{sql: "SELECT set_config('search_path', 'public', false)", code: CodeFeatureNotSupported},
		{sql: "SELECT set_config('no_such_setting', 'x', false)", code: CodeUndefinedObject},
		{sql: "SELECT acldefault('n', 10)::text, acldefault('r', 10)::text, acldefault('s', 10)::text, acldefault('c', 10)::text",
			want: "{postgres=UC/postgres},{postgres=arwdDxt/postgres},{postgres=rwU/postgres},{}"},
		{sql: "SELECT acldefault('f', 10)::text, acldefault('T', 6171)::text", want: "{=X/postgres,postgres=X/postgres},{=U/pg_database_owner,pg_database_owner=U/pg_database_owner}"},
		{sql: "SELECT acldefault('z', 10)", code: CodeInvalidParameterValue},
		{sql: "SELECT typname[0], typname[2], typname[63] IS NULL, typname[64] IS NULL FROM pg_type WHERE oid = 1007", want: "_,n,f,t"},
		{sql: "SELECT count(*) > 0 FROM pg_type WHERE typname[0] = '_' AND typelem <> 0", want: "t"},
		{sql: "SELECT rolname FROM pg_roles WHERE oid = 6171", want: "pg_database_owner"},
		{sql: "SELECT count(*) FROM pg_transform", want: "0"},
		{sql: "SELECT count(*) FROM pg_aggregate", want: "0"},
		{sql: "SELECT count(*) FROM pg_catalog.pg_seclabels", want: "0"},
		{sql: "SELECT last_value, is_called FROM public.fresh", want: "3,f"},
		{sql: "SELECT s.last_value, s.log_cnt, s.is_called FROM used s", want: "7,0,t"},
		{sql: "SELECT last_value FROM other.used", code: CodeUndefinedTable},
	})
}
