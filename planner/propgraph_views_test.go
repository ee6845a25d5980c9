package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestPropGraphViewDependencies: a view whose GRAPH_TABLE reads a named
// property graph depends on the graph and on the element tables its
// pattern reads, as PostgreSQL records it: DROP PROPERTY GRAPH and DROP
// TABLE answer 2BP01 naming the view (DETAIL as PostgreSQL words it)
// until CASCADE drops the view too; a view over the implicit graph
// depends on its tables; renaming a graph a view reads is refused
// (0A000: the stored clause names it) instead of breaking the view.
func TestPropGraphViewDependencies(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	enumExec(t, c,
		"create table person (id int primary key, name text)",
		"create table knows (a int not null references person (id), b int not null references person (id), since int)",
		"insert into person values (1, 'Ada'), (2, 'Bob')",
		"insert into knows values (1, 2, 2010)",
		"create property graph social vertex tables (person) edge tables (knows key (a, b) source key (a) references person (id) destination key (b) references person (id))",
		"create view friends as select * from graph_table (social match (x)-[k]->(y) columns (x.name as a, y.name as b, k.since))",
		"create view friends2 as select a from friends",
		"create view implicit_names as select * from graph_table (graph match (p is person) columns (p.name))",
	)
	if got := enumRows(t, c, "select a, b, since from friends"); got != "Ada|Bob|2010" {
		t.Fatalf("friends: %s", got)
	}
	type failure struct{ sql, code, msg, detail string }
	for _, f := range []failure{
		{"drop property graph social", "2BP01", "cannot drop property graph social because other objects depend on it",
			"view friends depends on property graph social\nview friends2 depends on view friends"},
		{"alter property graph social rename to social2", "0A000", `renaming property graph "social" is not supported while view "friends" reads it`, ""},
		{"drop table knows", "2BP01", "cannot drop table knows because other objects depend on it", "view friends depends on table knows"},
		{"alter table person drop column name", "2BP01", "cannot drop column name of table person because other objects depend on it", "view friends depends on column name of table person"},
	} {
		_, err := c.Exec(ctx, f.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != f.code || pe.Message != f.msg || f.detail != "" && !strings.Contains(pe.Detail, f.detail) {
			t.Errorf("%s\n got %v (detail %q)\nwant %s %s (detail %q)", f.sql, err, detailOf(err), f.code, f.msg, f.detail)
		}
	}
	enumExec(t, c, "drop property graph social cascade")
	if got := enumRows(t, c, "select string_agg(viewname, ',' order by viewname) from pg_views where schemaname = 'public'"); got != "implicit_names" {
		t.Errorf("views after DROP PROPERTY GRAPH … CASCADE: %s", got)
	}
	if _, err := c.Exec(ctx, "drop table person cascade"); err != nil {
		t.Fatal(err)
	}
	if got := enumRows(t, c, "select count(*) from pg_views where schemaname = 'public'"); got != "0" {
		t.Errorf("views after DROP TABLE person CASCADE: %s", got)
	}
}
