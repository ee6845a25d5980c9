package adapters

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// wideSchema is testSchema plus a nullable int64 column w (ALTER TABLE
// … ADD COLUMN w).
var wideSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "w", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// wideRowsOf yields (id, "v", id*10) rows in wideSchema.
func wideRowsOf(ids ...int64) Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, wideSchema)
		defer b.Release()
		for _, id := range ids {
			b.Field(0).(*array.Int64Builder).Append(id)
			b.Field(1).(*array.StringBuilder).Append("v")
			b.Field(2).(*array.Int64Builder).Append(id * 10)
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		return array.NewRecordReader(wideSchema, []arrow.RecordBatch{rec})
	}
}

// addColumnW is the definition of e plus a new column w (id 0: fresh).
func addColumnW(e graph.TableEntry) graph.TableDef {
	d := e.Def
	d.Columns = append(slices.Clone(d.Columns), graph.ColumnDef{Name: "w", Type: "int64", Nullable: true})
	return d
}

func entryOf(t testing.TB, sn *graph.Snapshot, name string) graph.TableEntry {
	t.Helper()
	e, ok := sn.State.TableByName(name)
	if !ok {
		t.Fatalf("table %q not in the snapshot", name)
	}
	return e
}

func write(t testing.TB, g *Graph, o WriteOptions, fn StageFunc) *graph.Snapshot {
	t.Helper()
	rc, err := g.Write(context.Background(), o, fn)
	if err != nil {
		t.Fatalf("write: %v", err)
	}
	return rc.Snapshot
}

func TestRedefineIsCatalogOnly(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1, 2}}); err != nil {
		t.Fatal(err)
	}
	before := head(t, g)
	ea := entryOf(t, before, "a")
	def := ea.Def
	def.Columns = slices.Clone(def.Columns)
	def.Columns[1].Nullable = false // SET NOT NULL
	def.Columns[0].ID = 0           // 0 keeps the stored id
	def.Extra = json.RawMessage(`{"comment":"people"}`)
	sn := write(t, g, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.Redefine("a", "people", def); err != nil {
			return err
		}
		if err := s.SetKind("people", graph.EdgeTable); err != nil {
			return err
		}
		// the new name resolves in the same stage; the old one does not
		if err := s.Insert("a", rowsOf(9)); !protocol.IsUndefinedTable(err) {
			t.Errorf("old name after rename: %v", err)
		}
		return s.Insert("people", rowsOf(3))
	})
	if sn.Commit.WriterKind != string(SchemaApply) {
		t.Fatalf("writer kind %q", sn.Commit.WriterKind)
	}
	e := entryOf(t, sn, "people")
	if e.Key() != ea.Key() || e.Location != ea.Location || e.Kind != graph.EdgeTable || e.Def.Columns[0].ID != ea.Def.Columns[0].ID ||
		e.Def.Columns[1].Nullable || string(e.Def.Extra) != `{"comment":"people"}` {
		t.Fatalf("redefined entry %+v (was %+v)", e, ea)
	}
	if got, _ := readIDs(t, g, sn, "people"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("people = %v", got)
	}
	if _, ok := sn.State.TableByName("a"); ok {
		t.Fatal("old name still resolves")
	}
	if sn.State.Schema.Identity() == before.State.Schema.Identity() {
		t.Fatal("schema identity unchanged by a redefinition")
	}
	// a catalog-only write alone moves no Lance HEAD
	ds, err := lance.Open(ctx, g.Root.Store(), e.Location, g.Root.DatasetOptions(e.Location, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	v := ds.Version()
	sn = write(t, g, WriteOptions{}, func(ctx context.Context, s *Stage) error { return s.Redefine("people", "p2", e.Def) })
	if ds2, _ := lance.Open(ctx, g.Root.Store(), e.Location, g.Root.DatasetOptions(e.Location, "", 0)); ds2.Version() != v || entryOf(t, sn, "p2").Version != v {
		t.Fatalf("catalog-only change moved the table: %d → %d", v, ds2.Version())
	}

	// refusals: a physical change, a taken name, an unknown table
	wider := addColumnW(entryOf(t, sn, "p2"))
	renamedCol := entryOf(t, sn, "p2").Def
	renamedCol.Columns = slices.Clone(renamedCol.Columns)
	renamedCol.Columns[1].Name = "vv"
	wrongID := entryOf(t, sn, "p2").Def
	wrongID.Columns = slices.Clone(wrongID.Columns)
	wrongID.Columns[0].ID = 999
	for _, c := range []struct {
		name string
		fn   func(s *Stage) error
		pred func(error) bool
	}{
		{"add column", func(s *Stage) error { return s.Redefine("p2", "", wider) }, protocol.IsInvalidDefinition},
		{"rename column", func(s *Stage) error { return s.Redefine("p2", "", renamedCol) }, protocol.IsInvalidDefinition},
		{"changed column id", func(s *Stage) error { return s.Redefine("p2", "", wrongID) }, protocol.IsInvalidDefinition},
		{"rename onto b", func(s *Stage) error { return s.Redefine("p2", "b", e.Def) }, protocol.IsDuplicateTable},
		{"unknown", func(s *Stage) error { return s.Redefine("zz", "", e.Def) }, protocol.IsUndefinedTable},
		{"bad kind", func(s *Stage) error { return s.SetKind("p2", "vertex") }, protocol.IsInvalidDefinition},
	} {
		_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error { return c.fn(s) })
		if !c.pred(err) {
			t.Errorf("%s: %v (%s)", c.name, err, protocol.SQLState(err))
		}
	}

	// the redefined table is a read-set member: a strict transaction
	// whose table changed since its pin gets 40001
	tx, err := g.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"p2": {4}}); err != nil {
		t.Fatal(err)
	}
	tx.Redefine("p2", "p3", entryOf(t, tx.Snapshot(), "p2").Def)
	if _, err := tx.Commit(ctx, ""); !protocol.IsReadSetChanged(err) {
		t.Fatalf("strict redefine over a changed table: %v", err)
	}
}

func TestReplaceTableKeepsIDAndColumnIDs(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1, 2}}); err != nil {
		t.Fatal(err)
	}
	old := head(t, g)
	ea := entryOf(t, old, "a")
	sn := write(t, g, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		// rows inserted before the rewrite are discarded: rows is the
		// complete new content
		if err := s.Insert("a", rowsOf(77)); err != nil {
			return err
		}
		if err := s.ReplaceTable("a", addColumnW(ea), wideRowsOf(1, 2)); err != nil {
			return err
		}
		return s.Insert("a", wideRowsOf(3)) // into the new incarnation
	})
	e := entryOf(t, sn, "a")
	if e.ID != ea.ID || e.Incarnation == ea.Incarnation || e.Location == ea.Location || e.Version != 1 || e.RowCount != 3 {
		t.Fatalf("replacement entry %+v (was %+v)", e, ea)
	}
	if e.Def.Columns[0].ID != ea.Def.Columns[0].ID || e.Def.Columns[1].ID != ea.Def.Columns[1].ID ||
		e.Def.Columns[2].ID == 0 || e.Def.Columns[2].ID < old.State.Schema.NextID {
		t.Fatalf("column ids %+v (was %+v, allocator %d)", e.Def.Columns, ea.Def.Columns, old.State.Schema.NextID)
	}
	if o, ok := sn.State.Table(ea.Key()); !ok || o.State != graph.Dropped {
		t.Fatalf("old incarnation not tombstoned: %+v", o)
	}
	if got, _ := readIDs(t, g, sn, "a"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("a = %v", got)
	}
	ds, _, err := g.Table(ctx, sn, "a")
	if err != nil || ds.Schema().NumFields() != 3 || !ds.Schema().Field(1).Nullable {
		t.Fatalf("new dataset schema %v %v", ds.Schema(), err)
	}
	// time travel still reads the old incarnation
	if got, _ := readIDs(t, g, old, "a"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("old snapshot a = %v", got)
	}
	// a kept id must belong to the table
	bad := addColumnW(e)
	bad.Columns[3].ID = entryOf(t, sn, "b").Def.Columns[0].ID
	bad.Columns[3].Name = "x"
	if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error { return s.ReplaceTable("a", bad, nil) }); !protocol.IsInvalidDefinition(err) {
		t.Fatalf("foreign column id: %v", err)
	}
}

func TestTruncateDropCreateInOneCommit(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b", "c")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1, 2}, "b": {10}, "c": {20}}); err != nil {
		t.Fatal(err)
	}
	old := head(t, g)
	sn := write(t, g, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.Truncate("a"); err != nil {
			return err
		}
		if err := s.Insert("a", rowsOf(5)); err != nil {
			return err
		}
		// DROP TABLE b; CREATE TABLE b (…) in one transaction
		if err := s.DropTable("b"); err != nil {
			return err
		}
		if err := s.CreateTable(TableSpec{Name: "b", Kind: graph.NodeTable, Columns: testCols, PrimaryKey: []string{"id"}, Extra: json.RawMessage(`{"v":1}`)}); err != nil {
			return err
		}
		if err := s.Insert("b", rowsOf(11, 12)); err != nil {
			return err
		}
		// CREATE TABLE tmp; DROP TABLE tmp: nothing is created
		if err := s.CreateTable(TableSpec{Name: "tmp", Columns: testCols}); err != nil {
			return err
		}
		if err := s.Insert("tmp", rowsOf(1)); err != nil {
			return err
		}
		if err := s.DropTable("tmp"); err != nil {
			return err
		}
		if err := s.CreateTable(TableSpec{Name: "c", Columns: testCols}); !protocol.IsDuplicateTable(err) {
			t.Errorf("create of an existing name: %v", err)
		}
		return nil
	})
	for name, want := range map[string][]int64{"a": {5}, "b": {11, 12}, "c": {20}} {
		if got, _ := readIDs(t, g, sn, name); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if _, ok := sn.State.TableByName("tmp"); ok {
		t.Fatal("tmp was created")
	}
	ea, eb := entryOf(t, sn, "a"), entryOf(t, sn, "b")
	oa, ob := entryOf(t, old, "a"), entryOf(t, old, "b")
	if ea.ID != oa.ID || ea.Incarnation == oa.Incarnation || ea.Def.Columns[0].ID != oa.Def.Columns[0].ID {
		t.Fatalf("truncate: %+v vs %+v", ea, oa)
	}
	if eb.ID == ob.ID || string(eb.Def.Extra) != `{"v":1}` {
		t.Fatalf("re-created b: %+v vs %+v", eb, ob)
	}
	if got, _ := readIDs(t, g, old, "a"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("old snapshot a = %v", got)
	}
	if err := sn.State.Validate(); err != nil {
		t.Fatal(err)
	}
	// specs are validated before anything is staged
	for _, spec := range []TableSpec{
		{Name: "x"},
		{Name: "x", Columns: []graph.ColumnSpec{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, PrimaryKey: []string{"nope"}},
		{Name: "x", Def: &graph.TableDef{Columns: []graph.ColumnDef{{ID: 3, Name: "id", Type: "int64"}}}},
		{Name: "x", Def: &graph.TableDef{Columns: []graph.ColumnDef{{Name: "id", Type: "no-such-type"}}}},
		{Name: "", Columns: testCols},
	} {
		if _, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error { return s.CreateTable(spec) }); !protocol.IsInvalidDefinition(err) {
			t.Errorf("spec %+v: %v", spec, err)
		}
	}
}

// TestSchemaChangesOnBranch: ALTER (rewrite and catalog-only) and
// TRUNCATE on a branch touch only the branch; the rewritten table is
// then written on the branch (first touch of the new dataset).
func TestSchemaChangesOnBranch(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b", "c")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}, "b": {10}, "c": {20}}); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	main0 := head(t, g)
	ea := entryOf(t, main0, "a")
	write(t, g, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		if err := s.ReplaceTable("a", addColumnW(ea), wideRowsOf(1)); err != nil {
			return err
		}
		if err := s.Redefine("b", "bb", entryOf(t, s.Base(), "b").Def); err != nil {
			return err
		}
		return s.Truncate("c")
	})
	sn := write(t, g, WriteOptions{Branch: "dev"}, func(ctx context.Context, s *Stage) error {
		if err := s.Insert("a", wideRowsOf(2)); err != nil {
			return err
		}
		return s.Insert("bb", rowsOf(11))
	})
	for name, want := range map[string][]int64{"a": {1, 2}, "bb": {10, 11}, "c": {}} {
		if got, _ := readIDs(t, g, sn, name); !slices.Equal(got, want) && len(got)+len(want) > 0 {
			t.Errorf("dev %s = %v, want %v", name, got, want)
		}
	}
	if e := entryOf(t, sn, "a"); e.Branch != "dev" || e.RowCount != 2 {
		t.Fatalf("dev a entry %+v", e)
	}
	m := head(t, g)
	if m.Version != main0.Version {
		t.Fatal("main moved")
	}
	for name, want := range map[string][]int64{"a": {1}, "b": {10}, "c": {20}} {
		if got, _ := readIDs(t, g, m, name); !slices.Equal(got, want) {
			t.Errorf("main %s = %v, want %v", name, got, want)
		}
	}
	// main keeps writing its own (old) incarnation
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {3}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{1, 3}) {
		t.Fatalf("main a = %v", got)
	}
}

// TestTransactionWithDDLAndDML: CREATE, INSERT, ALTER (rewrite) and
// RENAME in one explicit transaction are one graph commit.
func TestTransactionWithDDLAndDML(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	before := head(t, g).Version
	tx, err := g.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	tx.CreateTable(TableSpec{Name: "n", Columns: testCols})
	tx.Insert("n", rowsOf(1))
	tx.ReplaceTable("n", graph.TableDef{Columns: []graph.ColumnDef{{Name: "id", Type: "int64"}, {Name: "v", Type: "string", Nullable: true}, {Name: "w", Type: "int64", Nullable: true}}}, wideRowsOf(1, 2))
	tx.Redefine("n", "m", graph.TableDef{Columns: []graph.ColumnDef{{Name: "id", Type: "int64"}, {Name: "v", Type: "string"}, {Name: "w", Type: "int64", Nullable: true}}})
	rc, err := tx.Commit(ctx, "migration 1")
	if err != nil {
		t.Fatal(err)
	}
	if rc.Snapshot.Version != before+1 {
		t.Fatalf("%d graph commits", rc.Snapshot.Version-before)
	}
	e := entryOf(t, rc.Snapshot, "m")
	if len(e.Def.Columns) != 3 || e.Def.Columns[1].Nullable || e.RowCount != 2 {
		t.Fatalf("m = %+v", e)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "m"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("m = %v", got)
	}
}

// TestNewDatasetLocationsAreUniquePerAttempt: two attempts that
// allocated the same table key (writers in two processes preparing
// against one base) create different datasets, so the loser's create can
// never be mistaken for foreign movement at the winner's location.
func TestNewDatasetLocationsAreUniquePerAttempt(t *testing.T) {
	k := graph.TableKey{ID: 7, Incarnation: 8}
	a, b := datasetLocation(k, "0b7e3c1a-1111-4222-8333-444455556666"), datasetLocation(k, "9f00aa11-1111-4222-8333-444455556666")
	if a == b || !strings.HasPrefix(a, graph.TablesDir+k.String()) || !strings.HasSuffix(a, ".lance") || strings.Count(a, "/") != 1 {
		t.Fatalf("locations %q %q", a, b)
	}
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	base := head(t, g)
	var keys []graph.TableKey
	var locs []string
	for i := 0; i < 2; i++ {
		// two prepares against one base allocate the same key
		w := newMutationWriter(g.Root, func(ctx context.Context, s *Stage) error {
			return s.CreateTable(TableSpec{Name: "t", Columns: testCols})
		})
		pw := &protocol.PreparedWrite{OperationID: fmt.Sprint(i), Base: protocol.NewBaseView(base)}
		if err := w.Prepare(context.Background(), pw); err != nil {
			t.Fatal(err)
		}
		w.Discard(pw)
		keys = append(keys, pw.Effects[0].Table)
		locs = append(locs, pw.Effects[0].Location)
	}
	if keys[0] != keys[1] || locs[0] == locs[1] {
		t.Fatalf("keys %v, locations %v", keys, locs)
	}
}
