package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPropGraphCatalogs: a property graph's rows in pg_class (relkind
// 'g') and the five pg_propgraph_* catalogs, with PostgreSQL 19's
// columns, as PostgreSQL 19 fills them for the same definition (written
// by hand from its documentation: labels and properties once per graph,
// keys and endpoints as column numbers, equality operators per key
// column, the default label named after the element's alias).
func TestPropGraphCatalogs(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c,
		"create table person (id int primary key, name text, age int)",
		"create table org (oid int primary key, title text)",
		"create table member (p int not null references person (id), o int not null references org (oid), role text)",
		"create property graph cg vertex tables (person label person label human properties (name, age * 12 as months), "+
			"org as company label org properties (oid as id, title as name)) "+
			"edge tables (member key (p, o) source person destination company)")
	for _, tc := range []struct{ sql, want string }{
		{"select relname, relkind::text, relnatts from pg_class where relkind = 'g'", "cg|g|0"},
		// what psql 19's \\dG lists
		{"select n.nspname, c.relname, case c.relkind when 'g' then 'property graph' end, pg_catalog.pg_get_userbyid(c.relowner) " +
			"from pg_catalog.pg_class c left join pg_catalog.pg_namespace n on n.oid = c.relnamespace " +
			"where c.relkind in ('g', '') and n.nspname !~ '^pg_toast' and pg_catalog.pg_table_is_visible(c.oid) order by 1, 2",
			"public|cg|property graph|app"}, // the creating role owns it
		{"select e.pgealias, e.pgekind::text, r.relname, e.pgekey::text, e.pgesrckey::text, e.pgesrcref::text, e.pgesrceqop::text, " +
			"e.pgedestkey::text, e.pgedestref::text, e.pgedesteqop::text, s.pgealias, d.pgealias " +
			"from pg_propgraph_element e join pg_class g on g.oid = e.pgepgid join pg_class r on r.oid = e.pgerelid " +
			"left join pg_propgraph_element s on s.oid = e.pgesrcvertexid left join pg_propgraph_element d on d.oid = e.pgedestvertexid " +
			"where g.relname = 'cg' order by 1",
			"company|v|org|{1}|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>;" +
				"member|e|member|{1,2}|{1}|{1}|{96}|{2}|{1}|{96}|person|company;" +
				"person|v|person|{1}|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>|<nil>"},
		{"select l.pgllabel from pg_propgraph_label l join pg_class g on g.oid = l.pglpgid where g.relname = 'cg' order by 1",
			"human;member;org;person"},
		{"select e.pgealias, l.pgllabel from pg_propgraph_element_label el join pg_propgraph_element e on e.oid = el.pgelelid " +
			"join pg_propgraph_label l on l.oid = el.pgellabelid order by 1, 2",
			"company|org;member|member;person|human;person|person"},
		{"select pgpname, pgptypid::regtype::text, pgptypmod, pgpcollation <> 0 from pg_propgraph_property order by 1",
			"age|integer|-1|false;id|integer|-1|false;months|integer|-1|false;name|text|-1|true;o|integer|-1|false;p|integer|-1|false;role|text|-1|true"},
		{"select e.pgealias, l.pgllabel, p.pgpname from pg_propgraph_label_property lp " +
			"join pg_propgraph_property p on p.oid = lp.plppropid join pg_propgraph_element_label el on el.oid = lp.plpellabelid " +
			"join pg_propgraph_element e on e.oid = el.pgelelid join pg_propgraph_label l on l.oid = el.pgellabelid order by 1, 2, 3",
			"company|org|id;company|org|name;member|member|o;member|member|p;member|member|role;" +
				"person|human|months;person|human|name;person|person|age;person|person|id;person|person|name"},
	} {
		if got := enumRows(t, c, tc.sql); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
	enumExec(t, c, "drop property graph cg")
	if got := enumRows(t, c, "select count(*) from pg_propgraph_element"); got != "0" {
		t.Errorf("after DROP PROPERTY GRAPH: %s elements", got)
	}
}

// TestPropGraphDurableAndBranched: a property graph is graph state. A
// second process on the same directory uses a graph the first created;
// a branch made before ALTER PROPERTY GRAPH keeps the old definition; a
// graph created on a branch reaches main by graph.merge; all of it
// survives a restart.
func TestPropGraphDurableAndBranched(t *testing.T) {
	ctx := context.Background()
	root := newSharedRoot(t)
	serve := root.serve
	a := serve(true, "main")
	b := serve(false, "main")
	enumExec(t, a,
		"create table city (id int primary key, name text)",
		"create table road (src int not null references city (id), dst int not null references city (id), km int)",
		"insert into city values (1, 'A'), (2, 'B'), (3, 'C')",
		"insert into road values (1, 2, 10), (2, 3, 20)",
		"create property graph map vertex tables (city) edge tables (road key (src, dst) "+
			"source key (src) references city (id) destination key (dst) references city (id))")
	q := "select * from graph_table (map match (x)-[r]->(y) columns (x.name as x, y.name as y, r.km)) order by km"
	if got := enumRows(t, b, q); got != "A|B|10;B|C|20" {
		t.Fatalf("the other process: %s", got)
	}
	enumExec(t, a, "call graph.create_branch('before')")
	enumExec(t, b, "alter property graph map alter edge table road add label way properties (km * 1000 as m)")
	qm := "select * from graph_table (map match (x)-[r is way]->(y) columns (r.m)) order by m"
	if got := enumRows(t, a, qm); got != "10000;20000" {
		t.Fatalf("the other process's ALTER: %s", got)
	}
	dev := serve(false, "before")
	if _, err := dev.Exec(ctx, qm); enumState(err) != "42704" {
		t.Fatalf("the branch made before ALTER: %v, want 42704", err)
	}
	enumExec(t, dev, "create property graph towns vertex tables (city label town properties (upper(name) as shout))")
	enumExec(t, a, "call graph.merge('before')")
	qt := "select * from graph_table (towns match (t is town) columns (t.shout)) order by 1"
	if got := enumRows(t, a, qt); got != "A;B;C" {
		t.Fatalf("graph merged from a branch: %s", got)
	}
	root.closeAll()
	c := serve(false, "main")
	if got := enumRows(t, c, qm); got != "10000;20000" {
		t.Fatalf("after restart: %s", got)
	}
	if got := enumRows(t, c, qt); got != "A;B;C" {
		t.Fatalf("merged graph after restart: %s", got)
	}
	if got := enumRows(t, c, "select relname from pg_class where relkind = 'g' order by 1"); got != "map;towns" {
		t.Fatalf("pg_class after restart: %s", got)
	}
}

// TestGraphTableParameters: $n inside a GRAPH_TABLE clause are the
// statement's parameters (extended protocol), typed by their use in the
// pattern, and each execution answers for its own values.
func TestGraphTableParameters(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	enumExec(t, c,
		"create table n (id bigint primary key, name text)",
		"create table e (src bigint not null references n (id), dst bigint not null references n (id), w int) with (graph.kind = edge)",
		"insert into n select g, 'n' || g from generate_series(1, 30) g",
		"insert into e select g, g % 30 + 1, g from generate_series(1, 30) g union all select g, (g * 7) % 30 + 1, g * 2 from generate_series(1, 30) g")
	for id := int64(1); id <= 12; id++ {
		got := enumRows(t, c, "select b from graph_table (graph match (a where a.id = $1)-[k is e where k.w > $2]->(x)-[is e]->(y) columns (y.id as b)) order by 1", id, 5)
		want := enumRows(t, c, "select e2.dst from e e1 join e e2 on e2.src = e1.dst where e1.src = $1 and e1.w > $2 order by 1", id, 5)
		if got != want {
			t.Errorf("a.id = %d: %s, want %s", id, got, want)
		}
	}
}
