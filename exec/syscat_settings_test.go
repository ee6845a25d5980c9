package exec

import "testing"

// pg_settings shows each parameter's source, so \dconfig's query (source
// not default, value not the built-in one) finds what was set.
func TestSettingsSources(t *testing.T) {
	sess := &Session{Parameters: func() []Parameter {
		return []Parameter{
			{Name: "application_name", Value: "psql", Boot: "", Reset: "psql", Source: "client"},
			{Name: "extra_float_digits", Value: "2", Boot: "1", Reset: "1", Source: "session"},
			{Name: "statement_timeout", Value: "5s", Boot: "0", Reset: "5s", Source: "command line"},
			{Name: "TimeZone", Value: "UTC", Boot: "UTC", Reset: "UTC", Source: "client"},
			{Name: "server_version", Value: "15.18", Boot: "15.18", Reset: "15.18", Source: "default", ReadOnly: true},
		}
	}}
	eng := &Engine{Catalog: NewMemCatalog()}
	runSQLCases(t, eng, sess, []sqlCase{
		{sql: "SELECT string_agg(name || '=' || setting || '/' || source, ',' ORDER BY name) FROM pg_settings WHERE source <> 'default' AND setting IS DISTINCT FROM boot_val",
			want: "application_name=psql/client,extra_float_digits=2/session,statement_timeout=5s/command line"},
		{sql: "SELECT context FROM pg_settings WHERE name = 'server_version'", want: "internal"},
		// the engine's defaults fill in what the session does not report
		{sql: "SELECT setting, source FROM pg_settings WHERE name = 'max_connections'", want: "100,default"},
		{sql: "SELECT count(*) FROM pg_settings WHERE name = 'is_superuser'", want: "0"},
		// pg_show_all_settings() in FROM reads the same rows, under its
		// name, an alias or column aliases
		{sql: "SELECT pg_show_all_settings.setting || '/' || source FROM pg_catalog.pg_show_all_settings() WHERE name = 'extra_float_digits'", want: "2/session"},
		{sql: "SELECT (SELECT count(*) FROM pg_show_all_settings()) = (SELECT count(*) FROM pg_settings)", want: "t"},
		{sql: "SELECT s.n, s.v FROM pg_show_all_settings() s(n, v) WHERE s.n = 'TimeZone'", want: "TimeZone,UTC"},
		{sql: "SELECT * FROM pg_show_all_settings(1)", code: CodeUndefinedFunction},
		{sql: "SELECT * FROM pg_show_all_settings() WITH ORDINALITY", code: CodeFeatureNotSupported},
	})
	// without a session's parameters: the engine's defaults
	runSQLCases(t, eng, nil, []sqlCase{
		{sql: "SELECT count(*) FROM pg_settings WHERE source <> 'default'", want: "0"},
		{sql: "SELECT setting FROM pg_settings WHERE name = 'DateStyle'", want: "ISO, MDY"},
	})
}
