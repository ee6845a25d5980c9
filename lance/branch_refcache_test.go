package lance

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// etagStore reports each listed object's MD5 as its entity tag, as S3
// does for single-part objects, and counts reads of branch refs.
type etagStore struct {
	objstore.Store
	refGets atomic.Int64
}

func (s *etagStore) List(ctx context.Context, prefix string) ([]objstore.ObjectInfo, error) {
	infos, err := s.Store.List(ctx, prefix)
	for i := range infos {
		if b, gerr := s.Store.Get(ctx, infos[i].Key); gerr == nil {
			sum := md5.Sum(b)
			infos[i].ETag = hex.EncodeToString(sum[:])
		}
	}
	return infos, err
}

func (s *etagStore) Get(ctx context.Context, key string) ([]byte, error) {
	if strings.Contains(key, "/_refs/branches/") {
		s.refGets.Add(1)
	}
	return s.Store.Get(ctx, key)
}

// A branch delete reads no ref whose listed entity tag names a body this
// process wrote or read (branch_refcache.go), so its reads do not grow
// with the number of branches; a ref deleted and created again under
// the same name (another body, another tag) is read, and its new parent
// counts.
func TestBranchDeleteReadsOnlyUnseenRefs(t *testing.T) {
	ctx := context.Background()
	mem, _ := branchFixture(t)
	store := &etagStore{Store: mem}
	main, err := Open(ctx, store, "b.lance", Options{Location: memLocation})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"x1", "x2", "x3", "a", "b"} {
		if _, err := main.CreateBranch(ctx, n, 0); err != nil {
			t.Fatal(err)
		}
	}
	before := store.refGets.Load()
	if err := main.DeleteBranch(ctx, "x1"); err != nil {
		t.Fatal(err)
	}
	if n := store.refGets.Load() - before; n != 0 {
		t.Fatalf("deleting a branch read %d refs this process wrote", n)
	}
	// "b" is re-created from "a" by "another process": its body is new
	if err := main.DeleteBranch(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, mem, "b.lance", Options{Location: memLocation, Branch: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateBranch(ctx, "b", 0); err != nil {
		t.Fatal(err)
	}
	refBodies.Lock()
	refBodies.m = map[string][]byte{} // that process's write is not ours
	refBodies.Unlock()
	before = store.refGets.Load()
	if err := main.DeleteBranch(ctx, "a"); !IsInUse(err) {
		t.Fatalf("deleting a, parent of the re-created b: %v", err)
	}
	if n := store.refGets.Load() - before; n != 4 {
		t.Fatalf("the first delete after the cache emptied read %d refs, want 4 (a, b, x2, x3)", n)
	}
	before = store.refGets.Load()
	if err := main.DeleteBranch(ctx, "x2"); err != nil {
		t.Fatal(err)
	}
	if n := store.refGets.Load() - before; n != 0 {
		t.Fatalf("a delete read %d refs read before", n)
	}
}
