package adapters

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// checkHistory is the history checker: the branch's manifest versions
// form one chain with no gap or duplicate (each commit's parent is the
// previous version's commit), and every acknowledged commit id appears
// exactly once.
func checkHistory(t testing.TB, g *Graph, acked []string) []*graph.Snapshot {
	t.Helper()
	h, err := g.Root.History(context.Background(), graph.MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for i, sn := range h {
		if sn.Version != uint64(i+1) {
			t.Fatalf("manifest chain gap: position %d holds version %d", i, sn.Version)
		}
		if i > 0 && sn.Commit.Parent != h[i-1].Commit.ID {
			t.Fatalf("version %d: parent %s, previous commit %s", sn.Version, sn.Commit.Parent, h[i-1].Commit.ID)
		}
		seen[sn.Commit.ID]++
	}
	for _, id := range acked {
		if seen[id] != 1 {
			t.Fatalf("acknowledged commit %s appears %d times", id, seen[id])
		}
	}
	return h
}

func TestConcurrentDisjointWritersAllCommit(t *testing.T) {
	const writers, commits = 6, 5
	store := objstore.NewMem()
	g0 := openGraph(t, store, true)
	var names []string
	for i := 0; i < writers; i++ {
		names = append(names, fmt.Sprintf("t%d", i))
	}
	createTables(t, g0, names...)
	g0.Close()
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	errs := make(chan error, writers*commits)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			g := openGraph(t, store, false) // one handle per writer
			defer g.Close()
			for c := 0; c < commits; c++ {
				rc, err := g.Write(context.Background(), WriteOptions{Strict: false, MaxReprepare: 1}, func(ctx context.Context, s *Stage) error {
					return s.Insert(names[w], rowsOf(int64(c)))
				})
				if err != nil {
					errs <- fmt.Errorf("writer %d commit %d: %w", w, c, err)
					return
				}
				mu.Lock()
				acked = append(acked, rc.CommitID)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err) // disjoint writers never conflict (per-member arbitration)
	}
	g := openGraph(t, store, false)
	defer g.Close()
	h := checkHistory(t, g, acked)
	if len(acked) != writers*commits || len(h) != 2+writers*commits {
		t.Fatalf("%d acked, %d versions", len(acked), len(h))
	}
	sn := head(t, g)
	for _, n := range names {
		if ids, _ := readIDs(t, g, sn, n); !slices.Equal(ids, []int64{0, 1, 2, 3, 4}) {
			t.Fatalf("%s = %v", n, ids)
		}
	}
}

func TestConcurrentOverlappingWriters(t *testing.T) {
	const writers = 6
	store := objstore.NewMem()
	g0 := openGraph(t, store, true)
	createTables(t, g0, "hot")
	g0.Close()

	t.Run("autocommit re-prepares", func(t *testing.T) {
		var mu sync.Mutex
		var acked []string
		var ackedIDs []int64
		var wg sync.WaitGroup
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				g := openGraph(t, store, false)
				defer g.Close()
				rc, err := g.Write(context.Background(), WriteOptions{MaxReprepare: 20}, func(ctx context.Context, s *Stage) error {
					return s.Insert("hot", rowsOf(int64(w)))
				})
				if err != nil {
					if !protocol.IsReadSetChanged(err) {
						t.Errorf("writer %d: unexpected %v", w, err)
					}
					return
				}
				if rc.Attempts < 1 {
					t.Errorf("attempts %d", rc.Attempts)
				}
				mu.Lock()
				acked = append(acked, rc.CommitID)
				ackedIDs = append(ackedIDs, int64(w))
				mu.Unlock()
			}(w)
		}
		wg.Wait()
		g := openGraph(t, store, false)
		defer g.Close()
		checkHistory(t, g, acked)
		ids, _ := readIDs(t, g, head(t, g), "hot")
		sort.Slice(ackedIDs, func(i, j int) bool { return ackedIDs[i] < ackedIDs[j] })
		if !slices.Equal(ids, ackedIDs) || len(acked) != writers {
			t.Fatalf("table has %v; acknowledged %v", ids, ackedIDs)
		}
	})

	t.Run("strict: exactly one winner", func(t *testing.T) {
		g := openGraph(t, store, false)
		base := head(t, g)
		g.Close()
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins, conflicts := 0, 0
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				g := openGraph(t, store, false)
				defer g.Close()
				_, err := g.Write(context.Background(), WriteOptions{Strict: true, Base: base}, func(ctx context.Context, s *Stage) error {
					return s.Insert("hot", rowsOf(int64(100+w)))
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					wins++
				case protocol.IsReadSetChanged(err) && protocol.SQLState(err) == "40001":
					conflicts++
				default:
					t.Errorf("writer %d: %v", w, err)
				}
			}(w)
		}
		wg.Wait()
		if wins != 1 || conflicts != writers-1 {
			t.Fatalf("wins %d conflicts %d", wins, conflicts)
		}
	})
}
