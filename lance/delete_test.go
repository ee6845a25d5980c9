package lance

import (
	"context"
	"errors"
	"testing"

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
