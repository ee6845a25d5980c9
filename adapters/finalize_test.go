package adapters

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

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
// is lost. (A write with a sidecar: the commit path before v2, which a
// branch's first touch still uses.)
func TestSidecarDeleteFollowsTheAcknowledgement(t *testing.T) {
	ctx := context.Background()
	mem := objstore.NewMem()
	seed := openGraph(t, mem, true)
	createTables(t, seed, "a")
	seed.Close()

	store := &gatedDeletes{Store: mem, release: make(chan struct{})}
	g, err := Open(ctx, store, Options{Actor: "test", Location: "/test-root", LegacyCommitPath: true})
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

// TestStagingFailureLandsNothing: staged files are written in the
// background while the sidecar is armed; a source that fails while being
// staged reaches the caller unchanged, leaves no intent and no rows, and
// the next write commits.
func TestStagingFailureLandsNothing(t *testing.T) {
	ctx := context.Background()
	g := openGraph(t, objstore.NewMem(), true)
	defer g.Close()
	createTables(t, g, "a", "b")
	bad := errors.New("bad input row")
	_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
		if err := s.Insert("a", rowsOf(1)); err != nil {
			return err
		}
		return s.Insert("b", func(ctx context.Context) (array.RecordReader, error) { return nil, bad })
	})
	if !errors.Is(err, bad) {
		t.Fatalf("write with a failing source: %v, want the source's error", err)
	}
	if p, err := g.Pending(ctx); err != nil || len(p) != 0 {
		t.Fatalf("pending intents after a failed staging: %v %v", p, err)
	}
	if ids, _ := readIDs(t, g, head(t, g), "a"); len(ids) != 0 {
		t.Fatalf("rows of the failed write are visible: %v", ids)
	}
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {2}, "b": {3}}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := readIDs(t, g, head(t, g), "a"); len(ids) != 1 || ids[0] != 2 {
		t.Fatalf("rows after the next write: %v", ids)
	}
}
