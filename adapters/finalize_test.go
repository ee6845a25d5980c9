package adapters

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
)

// gatedDeletes holds every sidecar delete until released.
type gatedDeletes struct {
	objstore.Store
	release chan struct{}
}

func (s *gatedDeletes) Delete(ctx context.Context, key string) error {
	if strings.HasPrefix(key, graph.RecoveryDir) {
		<-s.release
	}
	return s.Store.Delete(ctx, key)
}

// TestSidecarDeleteFollowsTheAcknowledgement: by default a write returns
// once its manifest CAS landed, without waiting for its sidecar delete
// (stage H); Pending and Close wait for the deletes in flight, and none
// is lost.
func TestSidecarDeleteFollowsTheAcknowledgement(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	seed := openGraph(t, mem, true)
	createTables(t, seed, "a")
	seed.Close()

	store := &gatedDeletes{Store: mem, release: make(chan struct{})}
	g, err := Open(ctx, store, Options{Actor: "test", Location: "/test-root"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}}) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(store.release)
		t.Fatal("the write waited for its sidecar delete")
	}
	if objs, err := mem.List(ctx, graph.RecoveryDir); err != nil || len(objs) != 1 {
		t.Fatalf("sidecar of the acknowledged write: %v %v (want it still present while its delete is held)", objs, err)
	}
	pending := make(chan int, 1)
	go func() {
		p, err := g.Pending(ctx)
		if err != nil {
			t.Error(err)
		}
		pending <- len(p)
	}()
	select {
	case n := <-pending:
		t.Fatalf("Pending returned (%d intents) before the delete in flight finished", n)
	case <-time.After(50 * time.Millisecond):
	}
	close(store.release)
	if n := <-pending; n != 0 {
		t.Fatalf("%d pending intents after the write finished", n)
	}
	// the next writes run while deletes may be in flight; Close waits
	for i := int64(2); i < 6; i++ {
		if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {i}}); err != nil {
			t.Fatal(err)
		}
	}
	ids, _ := readIDs(t, g, head(t, g), "a")
	g.Close()
	if len(ids) != 5 {
		t.Fatalf("rows %v, want 1..5", ids)
	}
	if objs, err := mem.List(ctx, graph.RecoveryDir); err != nil || len(objs) != 0 {
		t.Fatalf("sidecars left after Close: %v %v", objs, err)
	}
	if s := g.Recovery.Stats(); s.FinalizeFailures != 0 {
		t.Fatalf("finalize failures: %+v", s)
	}
}
