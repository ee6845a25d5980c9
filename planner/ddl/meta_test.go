package ddl

import (
	"encoding/json"
	"fmt"
	"github.com/pggraph/pggraph/access"
	"reflect"
	"testing"

	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/lance/schema"
)

func TestMetaRoundTrip(t *testing.T) {
	ov := planInto(t,
		`CREATE TABLE n (id int PRIMARY KEY)`,
		`CREATE TABLE e (src int REFERENCES n ON DELETE SET NULL, dst int REFERENCES n, w numeric(5,1) DEFAULT 1.5 CHECK (w > 0), UNIQUE (src, dst)) WITH (graph.kind = edge, graph.max_out = 4, graph.min_out = 1, fillfactor = 50)`,
		`COMMENT ON TABLE e IS 'edges'`,
	)
	e, _ := ov.Table("e")
	m, err := DecodeMeta(e.Name, e.Def)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodeMeta(e.Name, graph.TableDef{Columns: e.Def.Columns, Extra: m.Encode()})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, again) {
		t.Fatalf("round trip changed the meta:\n%+v\n%+v", m, again)
	}
	if m.Version != metaVersionTables || m.Graph.Kind != graph.EdgeTable || *m.Graph.MaxOut != 4 || *m.Graph.MinOut != 1 ||
		m.Comment != "edges" || m.Options["fillfactor"] != "50" || m.ForeignKeys[0].OnDelete != SetNull ||
		m.Uniques[0].Name != "e_src_dst_key" || m.Checks[0].Name != "e_w_check" || m.Columns[2].Default != "1.5" {
		t.Fatalf("meta: %+v", m)
	}
}

func TestDecodeMetaRefuses(t *testing.T) {
	cols := []graph.ColumnDef{{ID: 1, Name: "a", Type: "int32"}}
	good := TableMeta{Relkind: RelTable, Columns: []ColumnMeta{{Name: "a", Type: PGType{OID: 23, Mod: -1}}}}.Encode()
	newer := json.RawMessage(fmt.Sprintf(`{"v":%d,"relkind":"table","columns":[{"name":"a","type":{"oid":23,"mod":-1}}]}`, MetaVersion+1))
	cases := []struct {
		name  string
		cols  []graph.ColumnDef
		extra json.RawMessage
		ok    bool
	}{
		{"good", cols, good, true},
		{"newer version", cols, newer, false},
		{"no version", cols, json.RawMessage(`{"relkind":"table"}`), false},
		{"not json", cols, json.RawMessage(`{`), false},
		{"column count", append(cols, graph.ColumnDef{ID: 2, Name: "b", Type: "int32"}), good, false},
		{"column name", []graph.ColumnDef{{ID: 1, Name: "z", Type: "int32"}}, good, false},
	}
	for _, c := range cases {
		_, err := DecodeMeta("t", graph.TableDef{Columns: c.cols, Extra: c.extra})
		if (err == nil) != c.ok || (err != nil && !IsBadMeta(err)) {
			t.Errorf("%s: err %v", c.name, err)
		}
		_, err = ExecTable(graph.TableEntry{Name: "t", Def: graph.TableDef{Columns: c.cols, Extra: c.extra}})
		if (err == nil) != c.ok {
			t.Errorf("%s: ExecTable err %v", c.name, err)
		}
	}
}

// FuzzDecodeMeta: stored metadata is untrusted bytes: decoding and the
// exec view never panic.
func FuzzDecodeMeta(f *testing.F) {
	f.Add([]byte(TableMeta{Relkind: RelTable, Columns: []ColumnMeta{{Name: "a", Type: PGType{OID: 23, Mod: -1}}},
		PrimaryKey:  &KeyConstraint{Name: "t_pkey", Columns: []string{"a", "zz"}},
		ForeignKeys: []ForeignKey{{Name: "f", Columns: []string{"nope"}, RefTable: "x", RefColumns: []string{"y"}}}}.Encode()))
	f.Add([]byte(`{"v":1,"columns":[{"name":"a","sequence":{"name":"s"},"identity":"always"}]}`))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		def := graph.TableDef{Columns: []graph.ColumnDef{{ID: 1, Name: "a", Type: "int32"}}, Extra: raw}
		if _, err := DecodeMeta("t", def); err != nil {
			return
		}
		if _, err := ExecTable(graph.TableEntry{Name: "t", Def: def}); err != nil {
			t.Fatalf("decoded meta but no exec view: %v", err)
		}
	})
}

func TestTypeMapping(t *testing.T) {
	cases := []struct{ sql, pg, storage string }{
		{"smallint", "smallint", "int16"},
		{"int", "integer", "int32"},
		{"int8", "bigint", "int64"},
		{"real", "real", "float"},
		{"float8", "double precision", "double"},
		{"numeric(10,2)", "numeric(10,2)", "decimal:128:10:2"},
		{"decimal(38)", "numeric(38,0)", "decimal:128:38:0"},
		{"numeric(39,2)", "numeric(39,2)", "string"},
		{"numeric", "numeric", "string"},
		{"boolean", "boolean", "bool"},
		{"text", "text", "string"},
		{"varchar(12)", "character varying(12)", "string"},
		{"varchar", "character varying", "string"},
		{"char(3)", "character(3)", "string"},
		{"bytea", "bytea", "binary"},
		{"date", "date", "date32:day"},
		{"timestamp", "timestamp without time zone", "timestamp:us:-"},
		{"timestamp(3) with time zone", "timestamp(3) with time zone", "timestamp:us:UTC"},
		{"time", "time without time zone", "time64:us"},
		{"uuid", "uuid", "fixed_size_binary:16"},
		{"json", "json", "string"},
		{"jsonb", "jsonb", "string"},
		{"vector(3)", "vector(3)", "fixed_size_list:float:3"},
		{"serial", "integer", "int32"},
		{"bigserial", "bigint", "int64"},
	}
	for _, c := range cases {
		tree, err := q.Parse("CREATE TABLE t (c " + c.sql + ")")
		if err != nil {
			t.Fatal(err)
		}
		cd := tree.Stmts[0].Stmt.GetCreateStmt().TableElts[0].GetColumnDef()
		rt, err := resolveType(cd.TypeName)
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if rt.String() != c.pg {
			t.Errorf("%s: PostgreSQL type %q, want %q", c.sql, rt.String(), c.pg)
		}
		def, err := buildDef(TableMeta{Columns: []ColumnMeta{{Name: "c", Type: rt.PGType}}}, func(int) bool { return true })
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if def.Columns[0].Type != c.storage {
			t.Errorf("%s: storage %q, want %q", c.sql, def.Columns[0].Type, c.storage)
		}
		// the storage type reads back as the same PostgreSQL type (derived meta)
		if _, err := def.ArrowSchema(); err != nil {
			t.Errorf("%s: storage type does not parse: %v", c.sql, err)
		}
	}
}

func TestNames(t *testing.T) {
	long := "a_very_long_table_name_that_goes_on_and_on_and_on_forever_more"
	cases := []struct{ n1, n2, label, want string }{
		{"t", "", "pkey", "t_pkey"},
		{"t", "a_b", "key", "t_a_b_key"},
		{long, "col", "check", "a_very_long_table_name_that_goes_on_and_on_and_on_for_col_check"},
		{long, long, "fkey", "a_very_long_table_name_that_g_a_very_long_table_name_that__fkey"},
	}
	for _, c := range cases {
		got := makeObjectName(c.n1, c.n2, c.label)
		if got != c.want || len(got) > maxIdentLen {
			t.Errorf("makeObjectName(%q,%q,%q) = %q (%d bytes), want %q", c.n1, c.n2, c.label, got, len(got), c.want)
		}
	}
	taken := map[string]bool{"t_a_check": true, "t_a_check1": true}
	if got := chooseName(taken, "t", "a", "check"); got != "t_a_check2" {
		t.Errorf("chooseName = %q", got)
	}
	for in, want := range map[string]string{"abc": "abc", "Abc": `"Abc"`, "select": `"select"`, `a"b`: `"a""b"`, "_x1": "_x1", "1x": `"1x"`} {
		if got := quoteIdent(in); got != want {
			t.Errorf("quoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestParseRegclass(t *testing.T) {
	for in, want := range map[string]string{"s": "s", "S": "s", "public.s": "s", `"My Seq"`: "My Seq", `public."a""b"`: `a"b`, "other.s": "other.s"} {
		got, err := ParseRegclass(in)
		if err != nil || got != want {
			t.Errorf("ParseRegclass(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, code := range map[string]string{"pg_catalog.s": CodeInvalidSchemaName, `"open`: "22P02", "a..b": "22P02", "": "22P02"} {
		_, err := ParseRegclass(in)
		if Code(err) != code {
			t.Errorf("ParseRegclass(%q): %v, want %s", in, err, code)
		}
	}
}

func TestUpperValueKeywords(t *testing.T) {
	for in, want := range map[string]string{
		"current_timestamp":                      "CURRENT_TIMESTAMP",
		"date_trunc('day', current_timestamp)":   "date_trunc('day', CURRENT_TIMESTAMP)",
		"'current_date' || \"current_date\"":     "'current_date' || \"current_date\"",
		"'it''s current_user' || current_user":   "'it''s current_user' || CURRENT_USER",
		"t.user_id + current_date_x + localtime": "t.user_id + current_date_x + LOCALTIME",
		"now()":                                  "now()",
	} {
		if got := upperValueKeywords(in); got != want {
			t.Errorf("upperValueKeywords(%q) = %q, want %q", in, got, want)
		}
	}
}

// Arrays are stored as list:<elem>; whether that parses depends on the
// storage layer's logical types. Either the column is created with the
// exact type, or CREATE answers 0A000 — never anything else.
func TestArrayColumns(t *testing.T) {
	_, parseErr := schema.ParseLogicalType("list:int32")
	tree, err := q.Parse(`CREATE TABLE t (a int[], b text[], c timestamptz[])`)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := Plan(tree.Stmts[0].Stmt, memCatalog{})
	if parseErr != nil {
		if !IsNotSupported(err) {
			t.Fatalf("storage cannot hold lists yet: want 0A000, got %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	ct := cs[0].(*CreateTable)
	var got []string
	for i, c := range ct.Meta.Columns {
		got = append(got, c.Type.String()+"="+ct.Def.Columns[i].Type)
	}
	want := []string{"integer[]=list:int32", "text[]=list:string", "timestamp with time zone[]=list:timestamp:us:UTC"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("array columns %v, want %v", got, want)
	}
	if _, err := ct.Def.ArrowSchema(); err != nil {
		t.Fatal(err)
	}
}

// TestViewMetaVersions: tables and sequences are still written as
// version 1 (builds that predate views read them), a view as version 2
// (those builds refuse it: their DecodeMeta accepts only 1, and the
// stored placeholder column, of type null, is not readable as a table
// either); a view's meta must come with its placeholder definition.
func TestViewMetaVersions(t *testing.T) {
	version := func(raw []byte) int {
		var probe struct {
			V int `json:"v"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			t.Fatal(err)
		}
		return probe.V
	}
	table := TableMeta{Relkind: RelTable, Columns: []ColumnMeta{{Name: "a", Type: PGType{OID: 23, Mod: -1}}}}
	if v := version(table.Encode()); v != 1 {
		t.Fatalf("a table's meta is version %d, want 1", v)
	}
	view := TableMeta{Relkind: RelView, Columns: []ColumnMeta{{Name: "a", Type: PGType{OID: 23, Mod: -1}}, {Name: "b", Type: PGType{OID: 25, Mod: -1}}},
		Graph: GraphMeta{Kind: graph.RelationTable}, View: &ViewMeta{Query: "SELECT t.a AS a, t.b AS b FROM public.t", Depends: []ViewDepend{{Relation: "t", Columns: []string{"a", "b"}}}}}
	def := viewDef(view, 7)
	if v := version(def.Extra); v != 2 {
		t.Fatalf("a view's meta is version %d, want 2", v)
	}
	got, err := DecodeMeta("v", def)
	if err != nil || got.View == nil || got.View.Query != view.View.Query || len(got.Columns) != 2 {
		t.Fatalf("view meta: %+v %v", got, err)
	}
	td, err := ExecTable(graph.TableEntry{ID: 3, Name: "v", Def: def})
	if err != nil || td.View == nil || td.Kind != "view" || len(td.Columns) != 2 || td.View.Depends[0].Name != "t" {
		t.Fatalf("exec view: %+v %v", td, err)
	}
	bad := []struct {
		name string
		def  graph.TableDef
	}{
		{"view stamped version 1", graph.TableDef{Columns: def.Columns, Extra: []byte(`{"v":1,"relkind":"view","columns":[],"graph":{"kind":"relation"},"view":{"query":"SELECT 1"}}`)}},
		{"view without its placeholder", graph.TableDef{Columns: []graph.ColumnDef{{ID: 1, Name: "a", Type: "int32"}}, Extra: def.Extra}},
		{"view kind without a query", graph.TableDef{Columns: def.Columns, Extra: []byte(`{"v":2,"relkind":"view","columns":[],"graph":{"kind":"relation"}}`)}},
	}
	for _, c := range bad {
		if _, err := DecodeMeta("v", c.def); !IsBadMeta(err) {
			t.Errorf("%s: err %v, want bad metadata", c.name, err)
		}
	}
}

// TestACLMetaVersion: a relation with an owner or an ACL is written as
// version 3 (a build that predates privileges refuses it rather than
// ignore its grants), one without stays at version 1, and ExecTable
// carries both to exec.
func TestACLMetaVersion(t *testing.T) {
	version := func(raw []byte) int {
		var probe struct {
			V int `json:"v"`
		}
		if err := json.Unmarshal(raw, &probe); err != nil {
			t.Fatal(err)
		}
		return probe.V
	}
	cols := []graph.ColumnDef{{ID: 1, Name: "a", Type: "int32"}}
	plain := TableMeta{Relkind: RelTable, Columns: []ColumnMeta{{Name: "a", Type: PGType{OID: 23, Mod: -1}}}}
	if v := version(plain.Encode()); v != 1 {
		t.Fatalf("plain table: version %d, want 1", v)
	}
	owned := plain
	owned.Owner = 16390
	owned.ACL = &access.TableACL{Items: []access.TableACLItem{{Grantee: 16390, Grantor: 16390, Privs: access.AllTablePrivs}, {Grantee: 0, Grantor: 16390, Privs: access.PrivSelect}}}
	raw := owned.Encode()
	if v := version(raw); v != 3 {
		t.Fatalf("owned table: version %d, want 3", v)
	}
	td, err := ExecTable(graph.TableEntry{ID: 1, Name: "t", Def: graph.TableDef{Columns: cols, Extra: raw}})
	if err != nil {
		t.Fatal(err)
	}
	if td.Owner != 16390 || td.ACL == nil || len(td.ACL.Items) != 2 || td.ACL.Items[1].Privs != access.PrivSelect {
		t.Fatalf("exec table: owner %d acl %+v", td.Owner, td.ACL)
	}
}
