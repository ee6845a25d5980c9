package exec

import (
	"context"
	"testing"
)

func TestRelationVisibilityFollowsSearchPath(t *testing.T) {
	cat := NewMemCatalog()
	for _, td := range []*TableDef{
		{Schema: "public", Name: "person", Columns: []ColumnDef{{Name: "id", Type: TInt8}}},
		{Schema: "graph", Name: "commits", Kind: "view", Columns: []ColumnDef{{Name: "id", Type: TText}}},
	} {
		src, err := NewMemTable(td.Columns, nil)
		if err != nil {
			t.Fatal(err)
		}
		td.Source = src
		cat.Add(td)
	}
	eng := &Engine{Catalog: cat}
	q := `SELECT c.relname || ':' || c.relkind || ':' || pg_table_is_visible(c.oid)::text
	      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
	      WHERE n.nspname IN ('public', 'graph') ORDER BY 1`
	cases := []struct {
		path string // "" = the default search_path
		want string
	}{
		{"", "commits:v:false,person:r:true"},
		{"graph, public", "commits:v:true,person:r:true"},
		{`"graph"`, "commits:v:true,person:r:false"},
	}
	for _, c := range cases {
		sess := &Session{User: "alice", Setting: func(name string) (string, bool) {
			if name == "search_path" && c.path != "" {
				return c.path, true
			}
			return "", false
		}}
		r, err := eng.Query(context.Background(), sess, "SELECT string_agg(x, ',') FROM ("+q+") s(x)")
		if err != nil {
			t.Fatal(err)
		}
		if got := oneText(t, r); got != c.want {
			t.Errorf("search_path %q: %s, want %s", c.path, got, c.want)
		}
	}
	// information_schema relations are not on the default path either
	r, err := eng.Query(context.Background(), nil, "SELECT pg_table_is_visible('information_schema.tables'::regclass)::text || pg_table_is_visible('pg_class'::regclass)::text")
	if err != nil {
		t.Fatal(err)
	}
	if got := oneText(t, r); got != "falsetrue" {
		t.Errorf("system relations: %s", got)
	}
}
