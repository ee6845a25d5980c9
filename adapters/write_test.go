package adapters

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

func TestWriteReadDeleteUpdateAcrossTables(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b", "c")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1, 2, 3}, "b": {10}, "c": {20, 21}}); err != nil {
		t.Fatal(err)
	}
	sn := head(t, g)
	if got, _ := readIDs(t, g, sn, "a"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("a = %v", got)
	}
	// delete 2 from a, update b (10 → 11), leave c
	_, addrs := readIDs(t, g, sn, "a")
	_, baddrs := readIDs(t, g, sn, "b")
	rc, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.Delete("a", []uint64{addrs[2]}); err != nil {
			return err
		}
		if err := s.Delete("b", []uint64{baddrs[10]}); err != nil {
			return err
		}
		return s.Insert("b", rowsOf(11))
	})
	if err != nil {
		t.Fatal(err)
	}
	sn2 := rc.Snapshot
	for tbl, want := range map[string][]int64{"a": {1, 3}, "b": {11}, "c": {20, 21}} {
		if got, _ := readIDs(t, g, sn2, tbl); !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", tbl, got, want)
		}
	}
	// the old snapshot is unchanged (time travel by manifest version)
	old, err := g.Root.SnapshotAt(ctx, "main", sn.Version)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, old, "a"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("time travel a = %v", got)
	}
	// lineage: each version's parent is the previous head
	if sn2.Commit.Parent != sn.Commit.ID || sn2.Version != sn.Version+1 {
		t.Fatalf("lineage: %+v after %+v", sn2.Commit, sn.Commit)
	}
	e, _ := sn2.State.TableByName("c")
	e0, _ := sn.State.TableByName("c")
	if e.Version != e0.Version {
		t.Fatalf("untouched table c re-pinned: %d → %d", e0.Version, e.Version)
	}
	if e, _ := sn2.State.TableByName("a"); e.RowCount != 2 {
		t.Fatalf("row count of a = %d", e.RowCount)
	}
	if n, err := g.Root.Store().List(ctx, "__recovery/"); err != nil || len(n) != 0 {
		t.Fatalf("sidecars left: %v %v", n, err)
	}
}

func TestUnknownTableAndEmptyWrite(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	before := head(t, g).Version
	err := insert(ctx, g, WriteOptions{}, map[string][]int64{"nope": {1}})
	if protocol.SQLState(err) != "42P01" || !protocol.IsUndefinedTable(err) {
		t.Fatalf("unknown table: %v (%s)", err, protocol.SQLState(err))
	}
	rc, err := g.Write(ctx, WriteOptions{}, func(context.Context, *Stage) error { return nil })
	if err != nil || rc.CommitID != "" || head(t, g).Version != before {
		t.Fatalf("empty write made a commit: %+v %v", rc, err)
	}
}

func TestStrictReadSetChangeIs40001AndAutocommitReprepares(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	base := head(t, g)
	// another writer changes b after our base
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"b": {1}}); err != nil {
		t.Fatal(err)
	}
	stage := func(ctx context.Context, s *Stage) error {
		if err := s.Probe("b"); err != nil { // e.g. a foreign-key probe
			return err
		}
		return s.Insert("a", rowsOf(7))
	}
	_, err := g.Write(ctx, WriteOptions{Strict: true, Base: base}, stage)
	if !protocol.IsReadSetChanged(err) || protocol.SQLState(err) != "40001" {
		t.Fatalf("strict: want 40001, got %v", err)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); len(got) != 0 {
		t.Fatalf("strict failure wrote %v", got)
	}
	// autocommit from the same stale base is re-prepared transparently:
	// the staging function runs again against a fresh base
	calls := 0
	rc, err := g.Write(ctx, WriteOptions{Base: base}, func(ctx context.Context, s *Stage) error {
		calls++
		return stage(ctx, s)
	})
	if err != nil || calls != 2 || rc.Attempts != 2 || g.Stats().Reprepares != 1 {
		t.Fatalf("re-prepare: err %v, staging calls %d, stats %+v", err, calls, g.Stats())
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "a"); !slices.Equal(got, []int64{7}) {
		t.Fatalf("a = %v", got)
	}
}

func TestCreateWithRowsAndDrop(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	rc, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.CreateTable(TableSpec{Name: "n", Columns: testCols}); err != nil {
			return err
		}
		return s.Insert("n", rowsOf(1, 2))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "n"); !slices.Equal(got, []int64{1, 2}) {
		t.Fatalf("n = %v", got)
	}
	e, _ := rc.Snapshot.State.TableByName("n")
	if e.Version != 1 || e.RowCount != 2 || len(e.Def.Columns) != 2 || e.Def.Columns[0].ID == e.Def.Columns[1].ID {
		t.Fatalf("entry %+v", e)
	}
	id1 := rc.Snapshot.State.Schema.Identity()
	rc, err = g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error { return s.DropTable("n") })
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rc.Snapshot.State.TableByName("n"); ok || rc.Snapshot.State.Schema.Identity() == id1 {
		t.Fatalf("drop: %+v", rc.Snapshot.State)
	}
	// re-create gets a new identity
	rc, err = g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		return s.CreateTable(TableSpec{Name: "n", Columns: testCols})
	})
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := rc.Snapshot.State.TableByName("n")
	if e2.ID == e.ID || e2.Def.Columns[0].ID == e.Def.Columns[0].ID {
		t.Fatalf("re-created table reused ids: %+v vs %+v", e2, e)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "n"); len(got) != 0 {
		t.Fatalf("re-created table has rows %v", got)
	}
	_ = fmt.Sprint()
}

// genSource streams n rows in batches of 4096, built lazily: the write
// path never holds the whole input.
func genSource(n int) Source {
	return func(ctx context.Context) (array.RecordReader, error) { return &lazyReader{n: n}, nil }
}

type lazyReader struct {
	n, done int
	cur     arrow.RecordBatch
}

func (l *lazyReader) Retain()               {}
func (l *lazyReader) Release()              {}
func (l *lazyReader) Schema() *arrow.Schema { return testSchema }
func (l *lazyReader) Err() error            { return nil }
func (l *lazyReader) Next() bool {
	if l.cur != nil {
		l.cur.Release()
		l.cur = nil
	}
	if l.done >= l.n {
		return false
	}
	k := min(4096, l.n-l.done)
	b := array.NewRecordBuilder(memory.DefaultAllocator, testSchema)
	defer b.Release()
	for i := 0; i < k; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(l.done + i))
		b.Field(1).(*array.StringBuilder).Append("x")
	}
	l.done += k
	l.cur = b.NewRecordBatch()
	return true
}
func (l *lazyReader) RecordBatch() arrow.RecordBatch { return l.cur }
func (l *lazyReader) Record() arrow.RecordBatch      { return l.cur }

func TestLargeCommitStreamsIntoManyFragments(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "big")
	const rows = 100_000
	rc, err := g.Write(ctx, WriteOptions{MaxRowsPerFile: 10_000}, func(ctx context.Context, s *Stage) error {
		return s.Insert("big", genSource(rows))
	})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := rc.Snapshot.State.TableByName("big")
	ds, _, err := g.Table(ctx, rc.Snapshot, "big")
	if err != nil {
		t.Fatal(err)
	}
	if e.RowCount != rows || ds.CountRows() != rows || len(ds.Fragments()) != rows/10_000 {
		t.Fatalf("rows %d/%d in %d fragments", e.RowCount, ds.CountRows(), len(ds.Fragments()))
	}
	ids, _ := readIDs(t, g, rc.Snapshot, "big")
	if len(ids) != rows || ids[0] != 0 || ids[rows-1] != rows-1 {
		t.Fatalf("read back %d rows", len(ids))
	}
}

func TestExplicitTransaction(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	tx, err := g.Begin(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	tx.CreateTable(TableSpec{Name: "n", Columns: testCols})
	tx.Insert("n", rowsOf(1))
	tx.Insert("a", rowsOf(1))
	tx.Probe("b")
	rc, err := tx.Commit(ctx, "one transaction")
	if err != nil {
		t.Fatal(err)
	}
	if rc.Snapshot.Commit.Message != "one transaction" || rc.Snapshot.Version != tx.Snapshot().Version+1 {
		t.Fatalf("DDL and DML of one transaction are one graph commit: %+v", rc.Snapshot.Commit)
	}
	// a transaction whose probed table changed under it fails COMMIT
	tx2, _ := g.Begin(ctx, "")
	tx2.Probe("b")
	tx2.Insert("a", rowsOf(2))
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"b": {5}}); err != nil {
		t.Fatal(err)
	}
	if _, err := tx2.Commit(ctx, ""); protocol.SQLState(err) != "40001" {
		t.Fatalf("want 40001, got %v", err)
	}
	if _, err := tx2.Commit(ctx, ""); err == nil {
		t.Fatal("a finished transaction committed twice")
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{1}) {
		t.Fatalf("a = %v", got)
	}
}

func TestCommitsAuditPendingViews(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a")
	if err := insert(ctx, g, WriteOptions{Message: "m"}, map[string][]int64{"a": {1}}); err != nil {
		t.Fatal(err)
	}
	cs, err := g.Commits(ctx, "")
	if err != nil || len(cs) != 3 || cs[2].Message != "m" || cs[2].Parent != cs[1].ID {
		t.Fatalf("commits %+v %v", cs, err)
	}
	if a, err := g.Audit(ctx); err != nil || len(a) != 0 {
		t.Fatalf("audit %v %v", a, err)
	}
	if p, err := g.Pending(ctx); err != nil || len(p) != 0 {
		t.Fatalf("pending %v %v", p, err)
	}
}
