package ddl

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// planInto plans statements into an overlay and returns it.
func planInto(t *testing.T, stmts ...string) *Overlay {
	t.Helper()
	ov := NewOverlay(memCatalog{})
	n := 0
	p := Planner{NewKey: func() string { n++; return fmt.Sprintf("k%d", n) }}
	for _, s := range stmts {
		tree, err := q.Parse(s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		cs, err := p.Plan(tree.Stmts[0].Stmt, ov)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		ov.Apply(cs...)
	}
	return ov
}

func TestExecTable(t *testing.T) {
	ov := planInto(t,
		`CREATE TABLE people (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name varchar(40) NOT NULL UNIQUE, score numeric(8,2) DEFAULT 0 CHECK (score >= 0), emb vector(4), tags text, born timestamptz(3))`,
		`CREATE TABLE knows (src bigint REFERENCES people ON DELETE CASCADE, dst bigint REFERENCES people, since date) WITH (graph.kind = edge)`,
		`CREATE INDEX ON knows (since)`,
		`COMMENT ON TABLE people IS 'humans'`,
		`COMMENT ON COLUMN people.name IS 'display name'`,
	)
	e, _ := ov.Table("people")
	e.ID = 7
	td, err := ExecTable(e)
	if err != nil {
		t.Fatal(err)
	}
	want := &exec.TableDef{
		OID: FirstUserOID + 7, Schema: "public", Name: "people", Kind: "node", Comment: "humans",
		Columns: []exec.ColumnDef{
			{Name: "id", Type: exec.TInt8, NotNull: true, Default: "nextval('people_id_seq'::regclass)", Identity: exec.IdentityAlways, OwnedSequence: "people_id_seq"},
			{Name: "name", Type: exec.Type{OID: exec.OIDVarchar, Mod: 44}, NotNull: true, Comment: "display name"},
			{Name: "score", Type: exec.Type{OID: exec.OIDNumeric, Mod: exec.TypeModNumeric(8, 2)}, Default: "0"},
			{Name: "emb", Type: exec.VectorType(4)},
			{Name: "tags", Type: exec.TText},
			{Name: "born", Type: exec.Type{OID: exec.OIDTimestamptz, Mod: 3}},
		},
		PrimaryKey: []int{0}, PrimaryKeyName: "people_pkey",
		Unique: [][]int{{1}}, UniqueNames: []string{"people_name_key"},
		Checks: []exec.CheckDef{{Name: "people_score_check", Expr: "score >= 0"}},
	}
	if !reflect.DeepEqual(td, want) {
		t.Fatalf("got  %+v\nwant %+v", td, want)
	}
	k, _ := ov.Table("knows")
	td, err = ExecTable(k)
	if err != nil {
		t.Fatal(err)
	}
	if td.Kind != "edge" || len(td.ForeignKeys) != 2 || td.ForeignKeys[0].OnDelete != exec.RefCascade ||
		td.ForeignKeys[1].OnDelete != exec.RefNoAction || td.ForeignKeys[0].RefTable != "people" ||
		!reflect.DeepEqual(td.ForeignKeys[0].RefColumns, []string{"id"}) || !reflect.DeepEqual(td.ForeignKeys[0].Columns, []int{0}) {
		t.Fatalf("foreign keys: %+v", td.ForeignKeys)
	}
	if !reflect.DeepEqual(td.Indexes, []exec.IndexDef{{Name: "knows_since_idx", Columns: []int{2}}}) {
		t.Fatalf("indexes: %+v", td.Indexes)
	}
	if !td.Columns[0].NotNull || !td.Columns[1].NotNull || td.Columns[2].NotNull {
		t.Fatalf("edge endpoints must be NOT NULL: %+v", td.Columns)
	}
}

// A table registered without SQL metadata gets a derived one.
func TestExecTableDerived(t *testing.T) {
	def := graph.TableDef{Columns: []graph.ColumnDef{
		{ID: 1, Name: "id", Type: "int64"},
		{ID: 2, Name: "name", Type: "string", Nullable: true},
		{ID: 3, Name: "amount", Type: "decimal:128:10:2", Nullable: true},
		{ID: 4, Name: "at", Type: "timestamp:us:UTC", Nullable: true},
		{ID: 5, Name: "u", Type: "fixed_size_binary:16", Nullable: true},
		{ID: 6, Name: "v", Type: "fixed_size_list:float:3", Nullable: true},
		{ID: 7, Name: "odd", Type: "uint8", Nullable: true},
	}, PrimaryKey: []string{"id"}}
	td, err := ExecTable(graph.TableEntry{ID: 1, Name: "legacy", Def: def})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range td.Columns {
		got = append(got, c.Type.String())
	}
	want := []string{"bigint", "text", "numeric(10,2)", "timestamp with time zone", "uuid", "vector(3)", "text"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("types %v, want %v", got, want)
	}
	if td.PrimaryKeyName != "legacy_pkey" || td.Kind != "node" || !td.Columns[0].NotNull {
		t.Fatalf("derived key/kind: %+v", td)
	}
}

func TestLookupColumns(t *testing.T) {
	ov := planInto(t,
		`CREATE TABLE t (a int, b int, c int, d int, PRIMARY KEY (b, a), UNIQUE (c), UNIQUE (b, d))`,
		`CREATE INDEX ON t (d, a)`,
		`CREATE INDEX ON t (c)`,
	)
	e, _ := ov.Table("t")
	td, err := ExecTable(e)
	if err != nil {
		t.Fatal(err)
	}
	if got := LookupColumns(td); !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Fatalf("lookup columns %v, want [1 2 3]", got)
	}
}

// TestLookupColumnsEdge: an edge table's endpoints are lookup columns
// without any index (adjacency), also when renamed by graph.source/target.
func TestLookupColumnsEdge(t *testing.T) {
	ov := planInto(t,
		`CREATE TABLE person (id int PRIMARY KEY)`,
		`CREATE TABLE knows (since int, src int REFERENCES person (id), dst int REFERENCES person (id)) WITH (graph.kind = edge)`,
		`CREATE TABLE likes (w int, a int REFERENCES person (id), b int REFERENCES person (id), id int UNIQUE) WITH (graph.kind = edge, graph.source = a, graph.target = b)`,
	)
	for _, tc := range []struct {
		table string
		want  []int
	}{{"knows", []int{1, 2}}, {"likes", []int{3, 1, 2}}, {"person", []int{0}}} {
		e, _ := ov.Table(tc.table)
		td, err := ExecTable(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := LookupColumns(td); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: lookup columns %v, want %v", tc.table, got, tc.want)
		}
	}
}

func TestExecTableSequence(t *testing.T) {
	ov := planInto(t, `CREATE SEQUENCE s`)
	e, _ := ov.Table("s")
	td, err := ExecTable(e)
	if err != nil || td.Kind != "sequence" || len(td.Columns) != 3 || td.Columns[0].Name != "last_value" {
		t.Fatalf("%+v %v", td, err)
	}
}
