package graphsql

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
)

// history builds: main v1 init, v2 create people, v3 insert 1-3; branch
// feature forked at v3; feature v4 insert 4; main v4 insert 5.
type history struct {
	create, ins123, ins4, ins5 string
}

func buildHistory(t *testing.T) (*history, func(branch string) exec.Catalog, *countingStore, func() *graph.Root) {
	t.Helper()
	g, cs := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	h := &history{}
	head, _ := g.Root.Head(ctx, "main")
	h.create = head.Commit.ID
	h.ins123 = insertPeople(t, g, "main", "insert 1-3", 1, 2, 3)
	if _, err := g.CreateBranch(ctx, "feature", "main"); err != nil {
		t.Fatal(err)
	}
	h.ins4 = insertPeople(t, g, "feature", "insert 4", 4)
	h.ins5 = insertPeople(t, g, "main", "insert 5", 5)
	cat := func(branch string) exec.Catalog {
		sn, err := g.Root.Head(ctx, branch)
		if err != nil {
			t.Fatal(err)
		}
		return catalogAt(t, g, sn, branch)
	}
	return h, cat, cs, func() *graph.Root { return g.Root }
}

func TestViews(t *testing.T) {
	h, cat, _, root := buildHistory(t)
	init := root().RootCommitID()
	cases := []struct {
		name, branch, sql string
		want              []string
	}{
		{"commits of feature cross the fork", "feature",
			"SELECT id, branch, manifest_version, message, parent IS NULL FROM graph.commits",
			[]string{h.ins4 + "|feature|4|insert 4|f", h.ins123 + "|main|3|insert 1-3|f", h.create + "|main|2|create people|f", init + "|main|1|init|t"}},
		{"commits of main", "main",
			"SELECT id, manifest_version, writer_kind IS NOT NULL, actor FROM graph.commits",
			[]string{h.ins5 + "|4|t|test", h.ins123 + "|3|t|test", h.create + "|2|t|test", init + "|1|t|test"}},
		{"commit parents chain", "main",
			"SELECT count(*) FROM graph.commits c JOIN graph.commits p ON c.parent = p.id",
			[]string{"3"}},
		{"commits below a version start on the ancestor", "feature",
			"SELECT id, branch FROM graph.commits WHERE manifest_version <= '3' AND manifest_version > '1'",
			[]string{h.ins123 + "|main", h.create + "|main"}},
		{"commits at the branch's own version", "feature",
			"SELECT id, branch FROM graph.commits WHERE manifest_version = '4'",
			[]string{h.ins4 + "|feature"}},
		{"commits limit is newest first", "feature",
			"SELECT message FROM graph.commits LIMIT 2",
			[]string{"insert 4", "insert 1-3"}},
		{"commit time is timestamptz and ordered", "main",
			"SELECT bool_and(time <= now()), count(DISTINCT time) >= 1, pg_typeof(min(time))::text FROM graph.commits",
			[]string{"t|t|timestamp with time zone"}},
		{"branches", "main",
			"SELECT name, manifest_version, forked_from, forked_at_version, created_at IS NOT NULL, incarnation <> '' FROM graph.branches ORDER BY name",
			[]string{"feature|4|main|3|t|t", "main|4|NULL|NULL|f|t"}},
		{"branch heads", "main",
			"SELECT name FROM graph.branches b JOIN graph.commits c ON b.head = c.id",
			[]string{"main"}},
		{"tables on main", "main",
			"SELECT name, kind, table_id > 0, incarnation > 0, lance_branch, row_count, state, location LIKE 'tables/%' FROM graph.tables",
			[]string{"people|node|t|t|main|4|live|t"}},
		{"tables on feature", "feature",
			"SELECT name, lance_branch, row_count, pinned_version >= 1 FROM graph.tables",
			[]string{"people|feature|4|t"}},
		{"data on feature", "feature",
			"SELECT string_agg(name, ',' ORDER BY id) FROM people",
			[]string{"p1,p2,p3,p4"}},
		{"recovery and audit are empty", "main",
			"SELECT (SELECT count(*) FROM graph.recovery), (SELECT count(*) FROM graph.audit)",
			[]string{"0|0"}},
		{"count star without columns", "main",
			"SELECT count(*) FROM graph.commits",
			[]string{"4"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := query(t, cat(c.branch), c.sql)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("%s\n got %q\nwant %q", c.sql, got, c.want)
			}
		})
	}
}

// TestCommitsScanIsBounded: a LIMIT stops the history walk after a
// handful of manifest reads, however long the history is.
func TestCommitsScanIsBounded(t *testing.T) {
	g, cs := openLocal(t)
	createPeople(t, g)
	const n = 60
	for i := int64(1); i <= n; i++ {
		insertPeople(t, g, "main", "row "+itoa(i), i)
	}
	ctx := context.Background()
	views, _ := Tables(ctx, g, "main")
	cat := WithViews(exec.NewMemCatalog(), views)
	for _, c := range []struct {
		sql      string
		want     string
		maxReads int64
	}{
		{"SELECT message FROM graph.commits LIMIT 1", "row 60", 8},
		{"SELECT count(*) FROM graph.commits", itoa(n + 2), 10 * n},
		// the executor pushes comparisons with constants of the column's
		// type (an unknown-typed literal is one; an int4 literal is not yet)
		{"SELECT message FROM graph.commits WHERE manifest_version = '10'", "row 8", 8},
		{"SELECT message FROM graph.commits WHERE manifest_version = 10", "row 8", 10 * n},
		{"SELECT count(*) FROM graph.commits WHERE manifest_version >= '55'", "8", 16},
		{"SELECT string_agg(message, ',') FROM graph.commits WHERE manifest_version < '3'", "create people,init", 8},
		{"SELECT count(*) FROM graph.commits WHERE manifest_version > '20' AND manifest_version <= '22'", "2", 8},
		{"SELECT count(*) FROM graph.commits WHERE manifest_version = '99'", "0", 8},
		{"SELECT count(*) FROM graph.commits WHERE manifest_version > '5' AND manifest_version < '4'", "0", 8},
		{"SELECT count(*) FROM graph.commits WHERE manifest_version < '1'", "0", 8},
	} {
		before := cs.manifestGets.Load()
		got := query(t, cat, c.sql)
		reads := cs.manifestGets.Load() - before
		t.Logf("%s: %d manifest reads", c.sql, reads)
		if len(got) != 1 || got[0] != c.want {
			t.Fatalf("%s: %q, want %q", c.sql, got, c.want)
		}
		if reads > c.maxReads {
			t.Fatalf("%s read %d manifests, want <= %d", c.sql, reads, c.maxReads)
		}
		if c.sql == "SELECT count(*) FROM graph.commits" && reads < n {
			t.Fatalf("%s read only %d manifests for %d commits: the counter does not see history reads", c.sql, reads, n)
		}
	}
}

func TestWithViewsCatalog(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	views, err := Tables(ctx, g, "")
	if err != nil {
		t.Fatal(err)
	}
	base := exec.NewMemCatalog()
	base.Add(&exec.TableDef{Name: "commits", Columns: []exec.ColumnDef{{Name: "x", Type: exec.TInt8}}, Source: &exec.MemTable{}})
	cat := WithViews(base, views)
	if s := cat.Schemas(); strings.Join(s, ",") != "graph,public" {
		t.Fatalf("schemas %v", s)
	}
	if td := cat.Table("", "commits"); td == nil || td.Schema != "public" {
		t.Fatalf("unqualified commits resolved to %+v; want the user table", td)
	}
	var names []string
	for _, td := range cat.Tables(Schema) {
		names = append(names, td.Name)
		if td.Kind != ViewKind || td.Schema != Schema {
			t.Fatalf("view %s has kind %q schema %q", td.Name, td.Kind, td.Schema)
		}
		if td.OID >= 16384 || td.OID < 16100 {
			t.Fatalf("view %s has OID %d inside the user or namespace range", td.Name, td.OID)
		}
	}
	if strings.Join(names, ",") != "audit,branches,commits,conflicts,progress,recovery,table_storage,tables" {
		t.Fatalf("views %v", names)
	}
	// column types as PostgreSQL sees them
	got := query(t, cat, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'graph.commits'::regclass AND attnum > 0 ORDER BY attnum")
	want := "text,text,text,text,bigint,text,text,timestamp with time zone,text,text,text,text,text,text,text[]"
	if strings.Join(got, ",") != want {
		t.Fatalf("column types %q", got)
	}
}

// TestViewsAsOf: an as-of session's commits and tables are those of its
// snapshot, even on a branch whose snapshot predates the fork.
func TestViewsAsOf(t *testing.T) {
	g, h, _ := asOfGraph(t)
	ctx := context.Background()
	for _, c := range []struct {
		branch, value, commits, tables string
	}{
		{"main", "3", h.ins123 + "," + h.create + "," + g.Root.RootCommitID(), "people:3:main"},
		{"feature", h.ins4, h.ins4 + "," + h.ins123 + "," + h.create + "," + g.Root.RootCommitID(), "people:4:feature"},
		{"feature", "2", h.create + "," + g.Root.RootCommitID(), "people:0:main"},
	} {
		sn, err := ResolveAsOf(ctx, g, c.branch, c.value, nil)
		if err != nil {
			t.Fatal(err)
		}
		views, err := TablesAsOf(ctx, g, sn)
		if err != nil {
			t.Fatal(err)
		}
		cat := WithViews(exec.NewMemCatalog(), views)
		got := query(t, cat, "SELECT string_agg(id, ',') FROM graph.commits")
		if got[0] != c.commits {
			t.Fatalf("%s as of %s: commits %q, want %q", c.branch, c.value, got, c.commits)
		}
		got = query(t, cat, "SELECT string_agg(name || ':' || row_count || ':' || lance_branch, ',') FROM graph.tables")
		if got[0] != c.tables {
			t.Fatalf("%s as of %s: tables %q, want %q", c.branch, c.value, got, c.tables)
		}
	}
}

// TestLineageTwoForks: a branch of a branch walks both fork points.
func TestLineageTwoForks(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)                         // main v2
	insertPeople(t, g, "main", "1-3", 1, 2, 3) // main v3
	if _, err := Call(ctx, g, Env{}, "create_branch", []any{"a", "main"}); err != nil {
		t.Fatal(err)
	}
	insertPeople(t, g, "a", "4 on a", 4) // a v4
	if _, err := Call(ctx, g, Env{Branch: "a"}, "create_branch", []any{"b"}); err != nil {
		t.Fatal(err)
	}
	insertPeople(t, g, "b", "6 on b", 6) // b v5
	insertPeople(t, g, "main", "5", 5)   // main v4
	if _, err := Call(ctx, g, Env{Branch: "b"}, "create_branch", []any{"c"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ branch, want string }{
		{"b", "b@5:6 on b,a@4:4 on a,main@3:1-3,main@2:create people,main@1:init"},
		{"c", "b@5:6 on b,a@4:4 on a,main@3:1-3,main@2:create people,main@1:init"},
		{"a", "a@4:4 on a,main@3:1-3,main@2:create people,main@1:init"},
		{"main", "main@4:5,main@3:1-3,main@2:create people,main@1:init"},
	} {
		views, _ := Tables(ctx, g, c.branch)
		got := query(t, WithViews(exec.NewMemCatalog(), views), "SELECT string_agg(branch || '@' || manifest_version || ':' || message, ',') FROM graph.commits")
		if got[0] != c.want {
			t.Fatalf("commits of %s: %q\nwant %q", c.branch, got[0], c.want)
		}
	}
	for _, c := range []struct {
		branch, value, wantBranch, people string
	}{
		{"c", "3", "main", "1,2,3"},
		{"c", "4", "a", "1,2,3,4"},
		{"c", "5", "b", "1,2,3,4,6"},
		{"b", "2", "main", ""},
	} {
		sn, err := ResolveAsOf(ctx, g, c.branch, c.value, nil)
		if err != nil {
			t.Fatal(err)
		}
		if sn.Branch != c.wantBranch || peopleAt(t, g, sn) != c.people {
			t.Fatalf("%s as of %s: %s %q", c.branch, c.value, sn.Branch, peopleAt(t, g, sn))
		}
	}
}

// graph.table_storage sums each table's fragments at its pinned version:
// two inserts on main are two fragments of one data file each, and the
// branch's view counts its own version.
func TestTableStorageView(t *testing.T) {
	g, _, _ := asOfGraph(t)
	ctx := context.Background()
	for _, c := range []struct{ branch, want string }{
		{"main", "people|node|4|2|2|4|t|0"},
		{"feature", "people|node|4|2|2|4|t|0"},
	} {
		views, err := Tables(ctx, g, c.branch)
		if err != nil {
			t.Fatal(err)
		}
		cat := WithViews(exec.NewMemCatalog(), views)
		got := query(t, cat, "SELECT name, kind, row_count, fragments, data_files, physical_rows, data_bytes > 0, fragments_with_deletions FROM graph.table_storage")
		if strings.Join(got, ";") != c.want {
			t.Errorf("%s: graph.table_storage = %q, want %q", c.branch, got, c.want)
		}
	}
}
