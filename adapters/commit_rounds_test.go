package adapters

import (
	"context"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// serialStore runs one durable write at a time on a local store, so
// every durability wait of a commit follows the one before it and the
// commit's durable rounds are exactly the sum of its writes' waits,
// whatever the scheduler does.
type serialStore struct {
	*objstore.Local
	mu sync.Mutex
}

func (s *serialStore) Put(ctx context.Context, key string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Local.Put(ctx, key, data)
}

func (s *serialStore) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Local.PutIfAbsent(ctx, key, data)
}

func (s *serialStore) PutNew(ctx context.Context, key string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Local.PutNew(ctx, key, data)
}

func (s *serialStore) Delete(ctx context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Local.Delete(ctx, key)
}

// PutIfAbsentAfter releases the store while it waits (the fence waits
// for other writes).
func (s *serialStore) PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Local.PutIfAbsentAfter(ctx, key, data, func() error {
		s.mu.Unlock()
		defer s.mu.Lock()
		if wait == nil {
			return nil
		}
		return wait()
	})
}

// A commit's receipt (and its log line and metric) counts the durable
// rounds the commit waited for, through every goroutine of the commit
// path and nothing after the acknowledgement. On a serialized store a
// 1-row INSERT (commit path v2) waits for exactly: 3 files created with
// PutNew (the table's data and transaction file, the __manifest's data
// file: one round each; the __manifest version's transaction is inline
// in its manifest only, docs/write-protocol.md §7.6) and the __manifest
// CAS (its staging file's fsync, then the directory's after the link)
// = 5. The same commit on the store as it is runs those rounds
// concurrently: [3 PutNews ‖ CAS staging] → CAS link = 2 when they
// overlap, never fewer, and never more than the serialized count.
func TestCommitCountsDurableRounds(t *testing.T) {
	ctx := context.Background()
	for _, serial := range []bool{true, false} {
		local, err := objstore.NewLocal(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		var store objstore.Store = local
		if serial {
			store = &serialStore{Local: local}
		}
		g, err := Open(ctx, store, Options{Create: true, Actor: "t", Location: "/t"})
		if err != nil {
			t.Fatal(err)
		}
		createTables(t, g, "a")
		for i := range int64(4) {
			recs := batchOf(i)
			rc, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
				return s.InsertBatches("a", testSchema, recs)
			})
			recs.Release()
			if err != nil {
				t.Fatal(err)
			}
			g.coord.WaitFinalized() // the next commit starts quiet
			if i == 0 {
				continue // the first insert creates the table's directories
			}
			switch got := rc.DurableRounds; {
			case serial && got != 5:
				t.Fatalf("serialized 1-row insert %d: %d durable rounds, want 5", i, got)
			case !serial && (got < 2 || got > 5):
				t.Fatalf("1-row insert %d: %d durable rounds, want 2..5", i, got)
			}
		}
		g.Close()
	}
}
