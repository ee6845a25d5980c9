package lance

import (
	"context"
	"errors"
	"testing"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

func TestStageDelete(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds := createFake(t, store, "t", NamingV2, 5, 5, 5)

	commitDelete := func(ds *Dataset, addrs ...uint64) *Dataset {
		t.Helper()
		st, err := ds.StageDelete(ctx, addrs, StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nd, err := st.Commit(ctx, CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return nd
	}
	ds = commitDelete(ds, RowAddress(0, 1), RowAddress(0, 3), RowAddress(1, 0), RowAddress(1, 1), RowAddress(1, 2), RowAddress(1, 3), RowAddress(1, 4))
	if ds.CountRows() != 8 || len(ds.Fragments()) != 2 {
		t.Fatalf("rows %d frags %d", ds.CountRows(), len(ds.Fragments()))
	}
	f0 := ds.Fragments()[0]
	if f0.ID != 0 || f0.DeletionFile == nil || f0.DeletionFile.NumDeletedRows != 2 || f0.DeletionFile.ReadVersion != 1 {
		t.Fatalf("fragment 0: %+v", f0.DeletionFile)
	}
	if ds.Manifest().ReaderFeatureFlags&1 == 0 {
		t.Fatal("deletion flag not set")
	}
	txn, _ := ds.Transaction(ctx, 2)
	if txn.Op.Kind().String() != "Delete" {
		t.Fatal(txn.Op.Kind())
	}
	// a second delete merges with the existing vector
	ds = commitDelete(ds, RowAddress(0, 1), RowAddress(0, 4), RowAddress(2, 0))
	dv, err := ds.deletionVector(ctx, &ds.Fragments()[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := dv.ToArray(); len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 4 {
		t.Fatalf("merged vector %v", got)
	}
	if ds.CountRows() != 6 {
		t.Fatalf("rows %d", ds.CountRows())
	}
	for _, bad := range [][]uint64{{RowAddress(1, 0)}, {RowAddress(0, 5)}, {RowAddress(9, 0)}} {
		if _, err := ds.StageDelete(ctx, bad, StageOptions{}); !errors.Is(err, ErrInvalidArgument) {
			t.Fatalf("bad address %x: %v", bad, err)
		}
	}
}

// A delete touching several fragments stores its deletion files and its
// transaction file together: one storage round, whatever the number of
// fragments.
func TestStageDeleteWritesFilesInOneRound(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	createFake(t, mem, "t", NamingV2, 4, 4, 4, 4)
	cnt := objstore.NewCounting(mem)
	ds, err := Open(ctx, cnt, "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cnt.Reset()
	st, err := ds.StageDelete(ctx, []uint64{RowAddress(0, 1), RowAddress(1, 2), RowAddress(2, 0), RowAddress(3, 3)}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := cnt.Stats()
	if got := s.Ops[objstore.OpPutIfAbsent]; got != 5 {
		t.Fatalf("%d PutIfAbsent, want 4 deletion files + 1 transaction file", got)
	}
	if s.Rounds != 1 {
		t.Fatalf("staging took %d storage rounds, want 1", s.Rounds)
	}
	nd, err := st.Commit(ctx, CommitOptions{Mode: CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	if nd.CountRows() != 12 {
		t.Fatalf("rows after deleting 4 of 16: %d", nd.CountRows())
	}
	// a failed deletion-file write fails the staging (the transaction
	// file it may have written is unreferenced)
	f := objstore.NewFaulty(mem)
	ds2, err := Open(ctx, f, "t", Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskOf(objstore.OpPutIfAbsent), N: 1, Mode: objstore.FailPersistent})
	if _, err := ds2.StageDelete(ctx, []uint64{RowAddress(0, 2), RowAddress(1, 3)}, StageOptions{}); !errors.Is(err, objstore.ErrInjected) {
		t.Fatalf("staging with failing writes = %v", err)
	}
}

// stageOperationWhile waits for the pending writes on every path, even
// when the caller's context is already canceled (Parallel then skips
// its items): an abandoned pipeline would leak its workers.
func TestStageOperationWhileAlwaysWaitsForPending(t *testing.T) {
	ds := createFake(t, objstore.NewMem(), "t", NamingV2, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var waited bool
	_, err := ds.stageOperationWhile(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("x", 1)}}, StageOptions{},
		func(context.Context) error { waited = true; return nil })
	if !errors.Is(err, context.Canceled) || !waited {
		t.Fatalf("canceled staging: err %v, pending waited for: %v", err, waited)
	}
}
