package adapters

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// roundOneHook runs fn once, synchronously, on the first write of a
// staged data file of the table whose location contains marker: inside
// round 1 of a v2 commit, after its base was captured and before its CAS
// (or, with onBarrier, on the barrier's listing of pending intents:
// after the write started, before its live-HEAD check).
type roundOneHook struct {
	objstore.Store
	marker    string
	onBarrier bool
	once      sync.Once
	fn        func()
}

func (h *roundOneHook) List(ctx context.Context, prefix string) ([]objstore.ObjectInfo, error) {
	if h.onBarrier && h.fn != nil && strings.HasPrefix(prefix, "__recovery") {
		h.once.Do(h.fn)
	}
	return h.Store.List(ctx, prefix)
}

func (h *roundOneHook) Put(ctx context.Context, key string, data []byte) error {
	h.fire(key)
	return h.Store.Put(ctx, key, data)
}

func (h *roundOneHook) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	h.fire(key)
	return h.Store.PutIfAbsent(ctx, key, data)
}

func (h *roundOneHook) fire(key string) {
	if !h.onBarrier && h.fn != nil && strings.HasPrefix(key, "tables/") && strings.Contains(key, h.marker) && strings.Contains(key, "/data/") {
		h.once.Do(h.fn)
	}
}

// TestBarrierHeadOverlap: a v2 commit captures its base concurrently with
// the barrier and runs stage D inside round 1 (docs/write-protocol.md
// §7.1). What changes between its base and its CAS must still be
// arbitrated: a commit by another process (another Graph on the same
// store, so nothing in this process knows of it) makes the CAS lose and
// the write re-arbitrate — a disjoint table commits on top, both rows
// landing exactly once (the same table cannot be written in-process
// meanwhile: the table gate is held); a version that
// bypassed the protocol at the table's next slot fails the write as
// uncovered drift, and its CAS is never issued.
func TestBarrierHeadOverlap(t *testing.T) {
	cases := []struct {
		name  string
		other string // table the other process writes ("" = a foreign Lance commit on "a")
		want  map[string][]int64
		drift bool
	}{
		{name: "disjoint table", other: "b", want: map[string][]int64{"a": {1}, "b": {2}}},
		{name: "foreign version at the next slot", drift: true, want: map[string][]int64{"a": nil, "b": nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			mem := objstore.NewMem()
			g0 := openGraph(t, mem, true)
			createTables(t, g0, "a", "b")
			g0.Close()
			sn := func(g *Graph) uint64 { return head(t, g).Version }
			hook := &roundOneHook{Store: mem, onBarrier: tc.drift}
			gA := openGraph(t, hook, false)
			defer gA.Close()
			gB := openGraph(t, mem, false)
			defer gB.Close()
			loc, _ := head(t, gA).State.TableByName("a")
			hook.marker = loc.Location
			hook.fn = func() {
				if tc.drift {
					ds, _, err := gB.Table(ctx, head(t, gB), "a")
					if err != nil {
						t.Error(err)
						return
					}
					rdr, err := rowsOf(99)(context.Background())
					if err != nil {
						t.Error(err)
						return
					}
					st, err := ds.StageAppend(ctx, rdr, lance.StageOptions{})
					if err == nil {
						_, err = st.Commit(ctx, lance.CommitOptions{})
					}
					if err != nil {
						t.Error(err)
					}
					return
				}
				// another process commits while gA's round 1 runs
				if err := insert(ctx, gB, WriteOptions{}, map[string][]int64{tc.other: {2}}); err != nil {
					t.Error(err)
				}
			}
			before := sn(gA)
			err := insert(ctx, gA, WriteOptions{}, map[string][]int64{"a": {1}})
			if tc.drift {
				if !protocol.IsUncoveredDrift(err) {
					t.Fatalf("want uncovered drift, got %v", err)
				}
				if v := sn(gA); v != before {
					t.Fatalf("a refused write published: manifest %d -> %d", before, v)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			final := head(t, gA)
			for tbl, want := range tc.want {
				got, _ := readIDs(t, gA, final, tbl)
				if len(got) != len(want) {
					t.Fatalf("%s: got %v, want %v", tbl, got, want)
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s: got %v, want %v", tbl, got, want)
					}
				}
			}
		})
	}
}
