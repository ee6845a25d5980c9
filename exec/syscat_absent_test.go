package exec

import "testing"

// The catalogs of features pggraph lacks bind with PostgreSQL's columns
// and list nothing; their helper functions answer as PostgreSQL does
// when there is no such object.
func TestAbsentFeatureCatalogs(t *testing.T) {
	eng := &Engine{Catalog: NewMemCatalog()}
	var cases []sqlCase
	for _, rel := range []string{"pg_largeobject_metadata", "pg_db_role_setting", "pg_conversion", "pg_subscription", "pg_user_mappings",
		"pg_opclass", "pg_opfamily", "pg_ts_config", "pg_ts_config_map", "pg_ts_dict", "pg_ts_parser", "pg_ts_template"} {
		cases = append(cases, sqlCase{sql: "SELECT count(*) FROM pg_catalog." + rel, want: "0"})
	}
	cases = append(cases, []sqlCase{
		{sql: "SELECT relkind FROM pg_class WHERE relname = 'pg_user_mappings'", want: "v"},
		{sql: "SELECT pg_ts_config_is_visible(3748), pg_conversion_is_visible(1), pg_opclass_is_visible(1978), pg_statistics_obj_is_visible(1)", want: "NULL,NULL,NULL,NULL"},
		{sql: "SELECT pg_collation_is_visible(950), pg_operator_is_visible(551), pg_operator_is_visible(1)", want: "t,t,NULL"},
		{sql: "SELECT option_name, option_value FROM pg_options_to_table(ARRAY['a=1', 'b', 'c=x=y'])", want: "a,1,b,NULL,c,x=y"},
		{sql: "SELECT count(*) FROM pg_partition_tree('pg_class')", want: "0"},
		{sql: "SELECT array_to_string(ARRAY(SELECT quote_ident(option_name) || ' ' || quote_literal(option_value) FROM pg_options_to_table(s.srvoptions)), ', ') FROM pg_foreign_server s", want: ""},
	}...)
	runSQLCases(t, eng, nil, cases)
}
