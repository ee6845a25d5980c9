package adapters

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

func TestLoadIsOneCommitOfManyFiles(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	before := head(t, g)
	rc, err := g.Load(ctx, WriteOptions{MaxRowsPerFile: 1000}, "a", genSource(10_000), func(ctx context.Context, s *Stage) error {
		return s.Probe("b") // a validator's probe joins the read set
	})
	if err != nil {
		t.Fatal(err)
	}
	sn := rc.Snapshot
	if sn.Version != before.Version+1 || sn.Commit.WriterKind != string(Load) {
		t.Fatalf("commit %+v at %d", sn.Commit, sn.Version)
	}
	ds, e, err := g.Table(ctx, sn, "a")
	if err != nil {
		t.Fatal(err)
	}
	if e.RowCount != 10_000 || len(ds.Fragments()) != 10 {
		t.Fatalf("rows %d, fragments %d", e.RowCount, len(ds.Fragments()))
	}
	ids, _ := readIDs(t, g, sn, "a")
	if len(ids) != 10_000 || ids[0] != 0 || ids[9999] != 9999 {
		t.Fatalf("ids %d [%d…]", len(ids), ids[0])
	}
	// a load mixed with other row changes is a Mutation
	rc, err = g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.Load("a", rowsOf(-1)); err != nil {
			return err
		}
		return s.Insert("b", rowsOf(1))
	})
	if err != nil || rc.Snapshot.Commit.WriterKind != string(Mutation) {
		t.Fatalf("mixed: %v %+v", err, rc)
	}
	if _, err := g.Load(ctx, WriteOptions{}, "nope", rowsOf(1), nil); !protocol.IsUndefinedTable(err) {
		t.Fatalf("unknown table: %v", err)
	}
}

// TestLoadAfterConsumedStreamIs40001: the COPY stream cannot be
// replayed, so a read-set change noticed after it was consumed (here: a
// probed table changes while the rows are being written) answers 40001
// and writes nothing, instead of re-preparing with missing rows.
func TestLoadAfterConsumedStreamIs40001(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	g := openGraph(t, store, true)
	defer g.Close()
	createTables(t, g, "a", "b")
	other := openGraph(t, store, false)
	defer other.Close()
	var opened atomic.Int32
	src := func(ctx context.Context) (array.RecordReader, error) {
		if opened.Add(1) == 1 {
			// another client commits to the probed table mid-COPY
			if err := insert(ctx, other, WriteOptions{}, map[string][]int64{"b": {1}}); err != nil {
				t.Error(err)
			}
		}
		return rowsOf(1, 2, 3)(context.Background())
	}
	_, err := g.Load(ctx, WriteOptions{}, "a", src, func(ctx context.Context, s *Stage) error { return s.Probe("b") })
	if !protocol.IsReadSetChanged(err) || opened.Load() != 1 {
		t.Fatalf("want 40001 with the stream opened once, got %v (opened %d)", err, opened.Load())
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); len(got) != 0 {
		t.Fatalf("a = %v", got)
	}
	// without interference the same kind of load commits
	if _, err := g.Load(ctx, WriteOptions{}, "a", rowsOf(1, 2, 3), func(ctx context.Context, s *Stage) error { return s.Probe("b") }); err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{1, 2, 3}) {
		t.Fatalf("a = %v", got)
	}
}

// failingReader yields one batch, then fails with err.
type failingReader struct {
	array.RecordReader
	n   int
	err error
}

func (f *failingReader) Next() bool {
	if f.n > 0 {
		return false
	}
	f.n++
	return f.RecordReader.Next()
}
func (f *failingReader) Err() error { return f.err }

// TestLoadErrorMidStreamIsFinal: bad COPY data found while the rows
// stream (after the intent is armed) lands nothing and reaches the
// caller unchanged — not retried, not a recovery case; no intent stays.
func TestLoadErrorMidStreamIsFinal(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a")
	bad := protocol.Errorf(protocol.KindNotNull, nil, "null value in column \"id\"")
	var opened atomic.Int32
	src := func(ctx context.Context) (array.RecordReader, error) {
		opened.Add(1)
		r, err := rowsOf(1, 2)(context.Background())
		return &failingReader{RecordReader: r, err: bad}, err
	}
	before := head(t, g)
	_, err := g.Load(ctx, WriteOptions{}, "a", src, nil)
	if !errors.Is(err, bad) || protocol.SQLState(err) != "23502" || opened.Load() != 1 {
		t.Fatalf("want the stream's 23502 once, got %v (%s), opened %d", err, protocol.SQLState(err), opened.Load())
	}
	if sn := head(t, g); sn.Version != before.Version {
		t.Fatal("a failed load published")
	}
	if objs, _ := g.Root.Store().List(ctx, "__recovery/"); len(objs) != 0 {
		t.Fatalf("intents left: %v", objs)
	}
	if st := g.Stats(); st.RecoveryRequired != 0 || st.Reprepares != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestWritersWaitForALoad: a long COPY holds its table's gate while it
// streams, so an in-process INSERT into the same table waits and then
// re-prepares instead of making the COPY fail with 40001.
func TestWritersWaitForALoad(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a")
	other := openGraph(t, g.Root.Store(), false)
	defer other.Close()
	done := make(chan error, 1)
	src := func(ctx context.Context) (array.RecordReader, error) {
		go func() { done <- insert(ctx, other, WriteOptions{}, map[string][]int64{"a": {-1}}) }()
		time.Sleep(50 * time.Millisecond) // the insert prepares and queues at the gate
		return genSource(5000)(context.Background())
	}
	if _, err := g.Load(ctx, WriteOptions{MaxRowsPerFile: 1000}, "a", src, nil); err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("concurrent insert: %v", err)
	}
	ids, _ := readIDs(t, g, head(t, g), "a")
	if len(ids) != 5001 || ids[0] != -1 {
		t.Fatalf("a has %d rows, first %v", len(ids), ids[:1])
	}
}

// TestLoadErrorMidStreamOnBranchIsFinal: on a branch's first touch the
// stream is read on the new fork; bad data there drops the fork again
// (nothing was committed on it), so the error is final and no intent or
// fork stays.
func TestLoadErrorMidStreamOnBranchIsFinal(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a")
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	bad := protocol.Errorf(protocol.KindCheck, nil, "check violated")
	src := func(ctx context.Context) (array.RecordReader, error) {
		r, err := rowsOf(1, 2)(context.Background())
		return &failingReader{RecordReader: r, err: bad}, err
	}
	if _, err := g.Load(ctx, WriteOptions{Branch: "dev"}, "a", src, nil); !errors.Is(err, bad) {
		t.Fatalf("want the stream's error, got %v", err)
	}
	e := entryOf(t, head(t, g), "a")
	if _, err := lance.GetBranch(ctx, g.Root.Store(), e.Location, "dev"); !lance.IsNotFound(err) {
		t.Fatalf("the fork stayed: %v", err)
	}
	if objs, _ := g.Root.Store().List(ctx, "__recovery/"); len(objs) != 0 || g.Stats().RecoveryRequired != 0 {
		t.Fatalf("intents left: %v, stats %+v", objs, g.Stats())
	}
	rc, err := g.Load(ctx, WriteOptions{Branch: "dev"}, "a", rowsOf(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := readIDs(t, g, rc.Snapshot, "a"); !slices.Equal(got, []int64{3}) {
		t.Fatalf("dev a = %v", got)
	}
}
