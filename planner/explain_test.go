package planner

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestExplain: EXPLAIN of a query answers the executor's plan tree in
// PostgreSQL's text layout and a Snapshot line (ANALYZE also runs it and
// adds actual rows, loops and time); binding errors are
// PostgreSQL's (the codes are compared with PostgreSQL 15); other
// formats and writing statements are 0A000.
func TestExplain(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		t.Run(mode.String(), func(t *testing.T) {
			ts := startServer(t, createPeople(t))
			c := ts.connect(t, mode)
			plan := func(sql string, args ...any) []string {
				t.Helper()
				rows, err := c.Query(ctx, sql, args...)
				if err != nil {
					t.Fatalf("%s: %v", sql, err)
				}
				var out []string
				for rows.Next() {
					var l string
					if err := rows.Scan(&l); err != nil {
						t.Fatal(err)
					}
					out = append(out, l)
				}
				if rows.Err() != nil {
					t.Fatalf("%s: %v", sql, rows.Err())
				}
				if fd := rows.FieldDescriptions(); len(fd) != 1 || fd[0].Name != "QUERY PLAN" {
					t.Fatalf("%s: columns %v", sql, fd)
				}
				return out
			}
			snapshot := func(got []string) bool {
				return len(got) > 0 && strings.HasPrefix(got[len(got)-1], `Snapshot: branch "main", graph version `)
			}
			got := plan("explain select p.name from people p join people q on q.id = p.id where p.id > $1", 1)
			if len(got) < 4 || !(strings.HasPrefix(got[0], "Hash Join") || strings.HasPrefix(got[0], "Nested Loop")) ||
				!slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "->  Seq Scan on people") }) ||
				!slices.ContainsFunc(got, func(l string) bool { return strings.Contains(l, "Filter: (id > ") }) || !snapshot(got) {
				t.Fatalf("plan %q", got)
			}
			got = plan("explain analyze select * from people")
			if len(got) != 3 || !strings.HasPrefix(got[0], "Seq Scan on people  (rows=3) (actual time=") || !strings.HasSuffix(got[0], " rows=3 loops=1)") ||
				!strings.HasPrefix(got[1], "Execution Time: ") || !snapshot(got) {
				t.Fatalf("analyze plan %q", got)
			}
			got = plan("explain select name from people where id = 2")
			if len(got) != 3 || got[0] != "Index Scan using people_pkey on people  (rows=1)" || got[1] != "  Index Cond: (id = 2)" || !snapshot(got) {
				t.Fatalf("lookup plan %q", got)
			}
			// a view: the tables under it (here through another view)
			for _, ddl := range []string{"create view ids as select id from people", "create view pv as select p.name from ids i join people p using (id)"} {
				if _, err := c.Exec(ctx, ddl); err != nil {
					t.Fatal(err)
				}
			}
			got = plan("explain select * from pv")
			if n := len(slices.DeleteFunc(slices.Clone(got), func(l string) bool { return !strings.Contains(l, "Seq Scan on people") })); n != 2 || !snapshot(got) {
				t.Fatalf("view plan %q", got)
			}
			got = plan("explain (verbose, costs off) values (1)")
			if len(got) != 2 || !snapshot(got) {
				t.Fatalf("values plan %q", got)
			}
		})
	}
	// errors: binding errors as PostgreSQL reports them
	pg := pgtest.Shared(t)
	want, err := pgx.Connect(ctx, pg.ConnString("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close(ctx)
	ts := startServer(t, createPeople(t))
	got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, s := range []string{"create table people (id int8 primary key, name text, score float8)"} {
		if _, err := want.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	defer want.Exec(ctx, "drop table people")
	for _, sql := range []string{"explain select * from nope", "explain select nope from people", "explain selec 1", "explain (format yaml) select 1"} {
		_, we := want.Exec(ctx, sql)
		_, ge := got.Exec(ctx, sql)
		wc, gc := sqlState(we), sqlState(ge)
		if sql == "explain (format yaml) select 1" {
			wc = "0A000" // PostgreSQL has YAML plans; pgproxy refuses them
		}
		if wc != gc || gc == "" {
			t.Errorf("%s: postgres %v, pgproxy %v", sql, we, ge)
		}
	}
	// writing statements: the operation above its row source, as
	// PostgreSQL prints them without costs (our estimates stripped)
	if _, err := want.Exec(ctx, "insert into people values (1, 'a', 0.5), (3, 'c', 2.5)"); err != nil {
		t.Fatal(err)
	}
	estimate := regexp.MustCompile(`  \(rows=\d+\)`)
	for _, sql := range []string{
		"explain (costs off) delete from people where id = 2",
		"explain (costs off) update people set name = 'y' where id = 3",
		"explain (costs off) delete from people where score > 1",
		"explain (costs off) insert into people values (9, 'x', 1)",
		"explain (costs off) delete from people p where p.id = 1",
	} {
		var lines [2][]string
		for i, c := range []*pgx.Conn{want, got} {
			rows, err := c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			for rows.Next() {
				var l string
				if err := rows.Scan(&l); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(l, "Snapshot: ") {
					lines[i] = append(lines[i], estimate.ReplaceAllString(l, ""))
				}
			}
			rows.Close()
		}
		if !slices.Equal(lines[0], lines[1]) {
			t.Errorf("%s:\npostgres %q\npgproxy  %q", sql, lines[0], lines[1])
		}
	}
	if _, err := got.Exec(ctx, "explain analyze delete from people where id = 1"); sqlState(err) != "0A000" {
		t.Errorf("explain analyze delete: %v", err)
	}
	// FORMAT JSON: a json value whose plan names the same node type,
	// index and relation as PostgreSQL's
	if _, err := want.Exec(ctx, "insert into people values (2, 'x', 1)"); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{"explain (format json) select name from people where id = 2", "explain (format json, analyze) select name from people where id = 2"} {
		var wantDoc, gotDoc []map[string]any
		var wantType, gotType uint32
		for _, side := range []struct {
			c   *pgx.Conn
			doc *[]map[string]any
			typ *uint32
		}{{want, &wantDoc, &wantType}, {got, &gotDoc, &gotType}} {
			rows, err := side.c.Query(ctx, sql, pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			var text string
			for rows.Next() {
				if err := rows.Scan(&text); err != nil {
					t.Fatal(err)
				}
			}
			*side.typ = rows.FieldDescriptions()[0].DataTypeOID
			rows.Close()
			if err := json.Unmarshal([]byte(text), side.doc); err != nil || len(*side.doc) != 1 {
				t.Fatalf("%s: %v in %s", sql, err, text)
			}
		}
		if wantType != gotType {
			t.Errorf("%s: result type %d, PostgreSQL's %d", sql, gotType, wantType)
		}
		wp, _ := wantDoc[0]["Plan"].(map[string]any)
		gp, _ := gotDoc[0]["Plan"].(map[string]any)
		for _, k := range []string{"Node Type", "Index Name", "Relation Name", "Index Cond"} {
			if wp[k] != gp[k] || gp[k] == nil {
				t.Errorf("%s: %q is %v, PostgreSQL's %v", sql, k, gp[k], wp[k])
			}
		}
		if strings.Contains(sql, "analyze") {
			if gp["Actual Rows"] != wp["Actual Rows"] || gp["Actual Loops"] != wp["Actual Loops"] || gotDoc[0]["Execution Time"] == nil {
				t.Errorf("%s: actual rows %v loops %v, PostgreSQL's %v %v", sql, gp["Actual Rows"], gp["Actual Loops"], wp["Actual Rows"], wp["Actual Loops"])
			}
		}
	}
}
