package lance

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

// slotThief is a store on which every manifest PutIfAbsent loses, as if
// another writer always took the slot first, while the slot still looks
// free to Stat (so rebasing never finds a newer version).
type slotThief struct {
	objstore.Store
	steal atomic.Bool
	puts  atomic.Int64
}

func (s *slotThief) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if s.steal.Load() && strings.Contains(key, "/_versions/") {
		s.puts.Add(1)
		return objstore.ErrExists
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

func TestRebaseRetriesAreBounded(t *testing.T) {
	ctx := context.Background()
	store := &slotThief{Store: objstore.NewMem()}
	ds := createFake(t, store, "t", NamingV2, 1)
	st, err := ds.StageOperation(ctx, &format.Append{Fragments: []format.Fragment{fakeFragment("x", 1)}}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	store.steal.Store(true)
	start := time.Now()
	_, err = st.Commit(ctx, CommitOptions{Mode: CommitRebase, MaxRetries: 4, Backoff: time.Millisecond})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Kind != ConflictTooManyRetries || !IsRetryable(err) {
		t.Fatalf("want too-many-retries conflict, got %v", err)
	}
	if n := store.puts.Load(); n != 5 {
		t.Fatalf("%d attempts, want 1 + 4 retries", n)
	}
	if time.Since(start) < 4*time.Millisecond/2 {
		t.Fatal("no backoff between attempts")
	}
	// cancellation stops the backoff
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.Commit(cctx, CommitOptions{Mode: CommitRebase, Backoff: time.Hour}); !errors.Is(err, context.Canceled) {
		t.Fatalf("canceled: %v", err)
	}
	// exact mode never retries
	store.puts.Store(0)
	if _, err := st.Commit(ctx, CommitOptions{}); err == nil || store.puts.Load() != 1 {
		t.Fatalf("exact: %v after %d attempts", err, store.puts.Load())
	}
}
