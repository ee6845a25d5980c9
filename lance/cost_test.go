package lance

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// TestHotPathNeverLists pins the I/O of a warm write: staging a delete
// and committing it exactly, then refreshing, uses no List and a fixed
// number of operations however long the history is.
func TestHotPathNeverLists(t *testing.T) {
	ctx := context.Background()
	for _, history := range []int{1, 30} {
		mem := objstore.NewMem()
		ds, err := Create(ctx, mem, "t", rowsReader(t, 0, 100, 100), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < history; i++ {
			st, err := ds.StageDelete(ctx, []uint64{RowAddress(0, uint32(i))}, StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		cs := objstore.NewCounting(mem)
		warm := *ds
		warm.store = cs
		st, err := warm.StageDelete(ctx, []uint64{RowAddress(0, 99)}, StageOptions{})
		if err != nil {
			t.Fatal(err)
		}
		nd, err := st.Commit(ctx, CommitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := nd.Latest(ctx); err != nil {
			t.Fatal(err)
		}
		s := cs.Stats()
		if s.Ops[objstore.OpList] != 0 {
			t.Fatalf("history %d: hot path listed %d times", history, s.Ops[objstore.OpList])
		}
		// delete: read old deletion vector (≤1 Get), write .bin + txn +
		// manifest (PutIfAbsent ×3), hint (Put), refresh (Stat)
		total := s.Total(^objstore.OpMask(0))
		want := int64(6)
		if history == 1 {
			want = 5 // no previous deletion file to read
		}
		if total != want {
			t.Fatalf("history %d: %d operations %v, want %d", history, total, s.Ops, want)
		}
	}
}
