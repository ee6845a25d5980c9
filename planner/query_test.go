package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

var modes = []struct {
	name string
	mode pgx.QueryExecMode
}{
	{"simple", pgx.QueryExecModeSimpleProtocol},
	{"extended", pgx.QueryExecModeCacheStatement},
	{"describe-exec", pgx.QueryExecModeDescribeExec},
}

// queryCase is one statement with the rows (rendered with %v per value),
// column names and type OIDs it must return.
type queryCase struct {
	sql   string
	args  []any
	names []string
	oids  []uint32
	rows  []string // values joined by "|"
}

func runCases(t *testing.T, ts *testServer, cases []queryCase) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			c := ts.connect(t, m.mode)
			for _, tc := range cases {
				rows, err := c.Query(context.Background(), tc.sql, tc.args...)
				if err != nil {
					t.Fatalf("%s: %v", tc.sql, err)
				}
				var got []string
				for rows.Next() {
					vals, err := rows.Values()
					if err != nil {
						t.Fatalf("%s: %v", tc.sql, err)
					}
					parts := make([]string, len(vals))
					for i, v := range vals {
						parts[i] = fmt.Sprint(v)
					}
					got = append(got, strings.Join(parts, "|"))
				}
				if err := rows.Err(); err != nil {
					t.Fatalf("%s: %v", tc.sql, err)
				}
				fds := rows.FieldDescriptions()
				var names []string
				var oids []uint32
				for _, f := range fds {
					names = append(names, f.Name)
					oids = append(oids, f.DataTypeOID)
				}
				if fmt.Sprint(names) != fmt.Sprint(tc.names) || fmt.Sprint(oids) != fmt.Sprint(tc.oids) {
					t.Errorf("%s: columns %v %v, want %v %v", tc.sql, names, oids, tc.names, tc.oids)
				}
				if strings.Join(got, "\n") != strings.Join(tc.rows, "\n") {
					t.Errorf("%s: rows\n%s\nwant\n%s", tc.sql, strings.Join(got, "\n"), strings.Join(tc.rows, "\n"))
				}
			}
		})
	}
}

func TestQueriesEmptyGraph(t *testing.T) {
	ts := startServer(t, nil)
	runCases(t, ts, []queryCase{
		{sql: "SELECT 1", names: []string{"?column?"}, oids: []uint32{23}, rows: []string{"1"}},
		{sql: "select 1 + 2 as three, 'x' || 'y' as s, true and false as b", names: []string{"three", "s", "b"}, oids: []uint32{23, 25, 16}, rows: []string{"3|xy|false"}},
		{sql: "select g from generate_series(1, 3) g", names: []string{"g"}, oids: []uint32{23}, rows: []string{"1", "2", "3"}},
		{sql: "values (1, 'a'), (2, 'b')", names: []string{"column1", "column2"}, oids: []uint32{23, 25}, rows: []string{"1|a", "2|b"}},
		{sql: "with t(x) as (select 5) select x * 2 from t", names: []string{"?column?"}, oids: []uint32{23}, rows: []string{"10"}},
		{sql: "select $1::int8 + 1 as n", args: []any{int64(41)}, names: []string{"n"}, oids: []uint32{20}, rows: []string{"42"}},
		{sql: "select 1.5::float8 as f, (2.50::numeric)::text as n", names: []string{"f", "n"}, oids: []uint32{701, 25}, rows: []string{"1.5|2.50"}},
		{sql: "select current_database(), current_user", names: []string{"current_database", "current_user"}, oids: []uint32{19, 19}, rows: []string{"main|app"}},
		{sql: "select count(*) from pg_catalog.pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'", names: []string{"count"}, oids: []uint32{20}, rows: []string{"0"}},
		{sql: "select datname from pg_database", names: []string{"datname"}, oids: []uint32{19}, rows: []string{"main"}},
		{sql: "select table_name from information_schema.tables where table_schema = 'public'", names: []string{"table_name"}, oids: []uint32{19}},
	})
}

func TestQueriesReadTable(t *testing.T) {
	ts := startServer(t, createPeople(t))
	runCases(t, ts, []queryCase{
		{sql: "select id, name, score from people order by id", names: []string{"id", "name", "score"}, oids: []uint32{20, 25, 701}, rows: []string{"1|ada|1.5", "2|<nil>|2.25", "3|bob|0.1"}},
		{sql: "select name from people where id = $1", args: []any{int64(3)}, names: []string{"name"}, oids: []uint32{25}, rows: []string{"bob"}},
		{sql: "select count(*), sum(score) from people", names: []string{"count", "sum"}, oids: []uint32{20, 701}, rows: []string{"3|3.85"}},
		{sql: "table people limit 1", names: []string{"id", "name", "score"}, oids: []uint32{20, 25, 701}, rows: []string{"1|ada|1.5"}},
		{sql: "select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public' and c.relkind = 'r'", names: []string{"relname"}, oids: []uint32{19}, rows: []string{"people"}},
		{sql: "select column_name, data_type from information_schema.columns where table_name = 'people' order by ordinal_position", names: []string{"column_name", "data_type"}, oids: []uint32{19, 1043},
			rows: []string{"id|bigint", "name|text", "score|double precision"}},
	})
}

// TestUnsupportedStatements: every statement this slice does not run gets
// 0A000 naming it, and the session stays usable.
func TestUnsupportedStatements(t *testing.T) {
	ts := startServer(t, createPeople(t))
	cases := []struct{ sql, code, msg string }{
		{"explain (format yaml) select 1", "0A000", "EXPLAIN (FORMAT YAML) is not supported yet"},
		{"/* c */ CREATE RULE r AS ON INSERT TO people DO INSTEAD NOTHING", "0A000", "CREATE RULE is not supported yet"},
		{"CALL public.f()", "42883", "procedure f() does not exist"},
		{"select * from nope", "42P01", "nope"},
		{"selec 1", "42601", "syntax error"},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			c := ts.connect(t, m.mode)
			for _, tc := range cases {
				_, err := c.Exec(context.Background(), tc.sql)
				if sqlState(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
					t.Errorf("%s: %v, want %s %q", tc.sql, err, tc.code, tc.msg)
				}
				var one int
				if err := c.QueryRow(context.Background(), "select 1").Scan(&one); err != nil || one != 1 {
					t.Fatalf("after %s: %v %d", tc.sql, err, one)
				}
			}
		})
	}
}
