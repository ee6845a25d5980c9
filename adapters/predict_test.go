package adapters

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// manifestFirst, once armed, holds every table transaction file until a
// __manifest data file has been written, or 2 s: a predicted commit
// writes its __manifest files while its table files are being written;
// an unpredicted one writes them only after (it times out here).
type manifestFirst struct {
	objstore.Store
	armed, timedOut atomic.Bool
	mu              sync.Mutex
	written         chan struct{}
}

func (s *manifestFirst) arm() {
	s.mu.Lock()
	s.written = make(chan struct{})
	s.mu.Unlock()
	s.timedOut.Store(false)
	s.armed.Store(true)
}

func (s *manifestFirst) Put(ctx context.Context, key string, data []byte) error {
	s.noteManifestData(key)
	return s.Store.Put(ctx, key, data)
}

func (s *manifestFirst) noteManifestData(key string) {
	if s.armed.Load() && strings.HasPrefix(key, "__manifest.lance/data/") {
		s.mu.Lock()
		select {
		case <-s.written:
		default:
			close(s.written)
		}
		s.mu.Unlock()
	}
}

// PutIfAbsent is also how new files arrive here (objstore.PutNew's
// fallback for a store without NewPutter).
func (s *manifestFirst) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	s.noteManifestData(key)
	if s.armed.Load() && strings.HasPrefix(key, "tables/") && strings.Contains(key, "/_transactions/") {
		s.mu.Lock()
		w := s.written
		s.mu.Unlock()
		select {
		case <-w:
		case <-time.After(2 * time.Second):
			s.timedOut.Store(true)
		}
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

func (s *manifestFirst) PutVolatile(ctx context.Context, key string, data []byte) error {
	return objstore.PutVolatile(ctx, s.Store, key, data)
}

// TestDeletesArePredicted: an UPDATE-shaped write (deletes by address
// plus in-memory inserts) whose deleted rows are within the base's
// fragments has its row count predicted and takes the two-round path;
// an address listed twice counts once. A delete in a fragment that
// already has a deletion file is predicted from that file (an address
// it already holds does not count) and commits the right count: a
// wrong prediction fails the commit.
func TestDeletesArePredicted(t *testing.T) {
	ctx := context.Background()
	gs := &manifestFirst{Store: objstore.NewMem()}
	g, err := Open(ctx, gs, Options{Create: true, Actor: "test", Location: "/test-root"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	createTables(t, g, "a")
	for _, rows := range [][]int64{{1}, {2}, {4, 5}} {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": rows}); err != nil {
			t.Fatal(err)
		}
	}
	_, before := readIDs(t, g, head(t, g), "a")
	update := func(del []int64, stale []uint64, ins int64) {
		t.Helper()
		_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
			_, addrs := readIDs(t, g, s.Base(), "a")
			as := append([]uint64(nil), stale...)
			for _, id := range del {
				as = append(as, addrs[id], addrs[id])
			}
			if err := s.Delete("a", as); err != nil {
				return err
			}
			return s.InsertBatches("a", testSchema, batchOf(ins))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, step := range []struct {
		about string
		del   []int64
		stale []uint64
		ins   int64
	}{
		{"1 and 4 live in fragments without deletion files", []int64{1, 4}, nil, 3},
		{"5's fragment has a deletion file holding 4's address, deleted again", []int64{5}, []uint64{before[4]}, 6},
	} {
		gs.arm()
		update(step.del, step.stale, step.ins)
		if gs.timedOut.Load() {
			t.Fatalf("%s: the update's row count was not predicted: its __manifest files waited for its table files", step.about)
		}
		gs.armed.Store(false)
	}
	sn := head(t, g)
	ids, _ := readIDs(t, g, sn, "a")
	e, _ := sn.State.TableByName("a")
	if !slices.Equal(ids, []int64{2, 3, 6}) || e.RowCount != 3 {
		t.Fatalf("rows %v, published row count %d; want [2 3 6] and 3", ids, e.RowCount)
	}
}
