package adapters

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// TestNextWriteStagesOnThePublishedVersion: a write may stage on a table
// version this process published but has not materialized yet (its
// in-memory preview), and then materializes that base in its own first
// round, before its CAS (docs/architecture.md, "Commit path v2", prefix).
// The committer's own materialization is switched off, so the second
// write alone is responsible for the first one's version.
func TestNextWriteStagesOnThePublishedVersion(t *testing.T) {
	ctx := context.Background()
	gs := &stagedFirst{Store: objstore.NewMem(), staged: make(chan struct{})}
	tr := objstore.NewTracing(gs)
	g, err := Open(ctx, tr, Options{Create: true, Actor: "test", Location: "/test-root"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	g.coord.LeaveMaterialization = true
	// staging on the preview is what is measured: stage D in its own
	// round (overlapped with round 1 the check may probe cold)
	g.coord.SequentialRevalidate = true
	createTables(t, g, "a")
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {1}}); err != nil {
		t.Fatal(err)
	}
	exists := func(version uint64) bool {
		t.Helper()
		sn, err := g.Head(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		e, _ := sn.State.TableByName("a")
		_, err = lance.Open(ctx, tr, e.Location, g.Root.DatasetOptions(e.Location, "", version))
		if err != nil && !lance.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	sn, err := g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	e1, _ := sn.State.TableByName("a")
	if e1.Txn == "" || exists(e1.Version) {
		t.Fatalf("the first insert's version %d should be published (txn %q) and not materialized", e1.Version, e1.Txn)
	}
	tr.Reset()
	gs.armed.Store(true)
	if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {2}}); err != nil {
		t.Fatal(err)
	}
	if gs.timedOut.Load() {
		t.Fatalf("the second write materialized its base before staging its rows (it waited for the materialization instead of staging on the published preview)\n%s", tr.String())
	}
	lines := tr.Lines()
	tableVersion := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "tables/") && strings.Contains(l, "_versions/")
	})
	manifest := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "putifabsent") && strings.Contains(l, "__manifest.lance/_versions/")
	})
	if tableVersion < 0 || manifest < 0 || tableVersion > manifest {
		t.Fatalf("the base version must be materialized before the second write's CAS: table version at %d, CAS at %d\n%s", tableVersion, manifest, tr.String())
	}
	// staged on the preview: no table manifest was read before the CAS
	for _, l := range lines[:manifest] {
		if strings.HasPrefix(l, "get") && strings.Contains(l, "tables/") && strings.Contains(l, "_versions/") {
			t.Fatalf("the second write read a table manifest before its CAS (it should stage on the published preview): %s\n%s", l, tr.String())
		}
	}
	if !exists(e1.Version) {
		t.Fatalf("version %d does not exist after a write staged on it was published", e1.Version)
	}
	sn, err = g.Head(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := sn.State.TableByName("a")
	if e2.Version != e1.Version+1 || exists(e2.Version) {
		t.Fatalf("second pin %d (after %d), materialized %v", e2.Version, e1.Version, exists(e2.Version))
	}
	if ids, _ := readIDs(t, g, sn, "a"); !slices.Equal(ids, []int64{1, 2}) {
		t.Fatalf("rows %v, want [1 2]", ids)
	}
	// this process reads the published preview; a clean shutdown
	// materializes what it left (HEAD == pin at rest)
	if err := g.Quiesce(ctx); err != nil {
		t.Fatal(err)
	}
	if !exists(e2.Version) {
		t.Fatalf("Quiesce did not materialize version %d", e2.Version)
	}
}

// stagedFirst, once armed, holds the first materialization of a table
// version (a put-if-absent under a table's _versions/) until a table
// data file has been written, or 2 s: a write that stages on the
// published preview writes its rows while its base is materialized; one
// that waits for the materialization first times out here.
type stagedFirst struct {
	objstore.Store
	armed, timedOut atomic.Bool
	once            sync.Once
	staged          chan struct{}
}

func (s *stagedFirst) Put(ctx context.Context, key string, data []byte) error {
	if s.armed.Load() && strings.HasPrefix(key, "tables/") && strings.Contains(key, "/data/") {
		s.once.Do(func() { close(s.staged) })
	}
	return s.Store.Put(ctx, key, data)
}

// PutIfAbsent is also how data files arrive here (objstore.PutNew's
// fallback for a store without NewPutter).
func (s *stagedFirst) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if s.armed.Load() && strings.HasPrefix(key, "tables/") && strings.Contains(key, "/data/") {
		s.once.Do(func() { close(s.staged) })
	}
	if s.armed.Load() && strings.HasPrefix(key, "tables/") && strings.Contains(key, "/_versions/") {
		select {
		case <-s.staged:
		case <-time.After(2 * time.Second):
			s.timedOut.Store(true)
		}
	}
	return s.Store.PutIfAbsent(ctx, key, data)
}

func (s *stagedFirst) PutVolatile(ctx context.Context, key string, data []byte) error {
	return objstore.PutVolatile(ctx, s.Store, key, data)
}
