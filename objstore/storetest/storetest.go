package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// Factory returns a new, empty store for one subtest.
type Factory func(t *testing.T) objstore.Store

// Run runs the whole contract against stores made by newStore.
func Run(t *testing.T, newStore Factory) { run(t, newStore, hierarchicalKeys) }

// RunFlatKeys runs the contract for a store with a flat key space (S3):
// an object and a "directory" of the same name may coexist, so the
// checks that such keys are refused become checks that both objects are
// stored and read back independently. Everything else is Run's.
func RunFlatKeys(t *testing.T, newStore Factory) { run(t, newStore, flatKeys) }

// RunServerKeys runs the contract for an S3-compatible server whose key
// space is its backend's: a server on a filesystem (versitygw's posix
// backend) refuses an object under another object's name, a flat one
// accepts it. Either answer passes, provided it is consistent: a
// conflicting write that succeeds leaves both objects readable, one that
// fails leaves the existing object unchanged.
func RunServerKeys(t *testing.T, newStore Factory) { run(t, newStore, serverKeys) }

// keySpace is the rule for an object and a "directory" of one name.
type keySpace int

const (
	hierarchicalKeys keySpace = iota // refused: ErrInvalidKey (Local, Mem)
	flatKeys                         // both stored (S3)
	serverKeys                       // either, consistently
)

func run(t *testing.T, newStore Factory, keys keySpace) {
	t.Run("GetMissing", func(t *testing.T) { testGetMissing(t, newStore(t)) })
	t.Run("PutGetReplace", func(t *testing.T) { testPutGetReplace(t, newStore(t)) })
	t.Run("PutIfAbsent", func(t *testing.T) { testPutIfAbsent(t, newStore(t)) })
	t.Run("GetRange", func(t *testing.T) { testGetRange(t, newStore(t)) })
	t.Run("StatDelete", func(t *testing.T) { testStatDelete(t, newStore(t)) })
	t.Run("List", func(t *testing.T) { testList(t, newStore(t)) })
	t.Run("InvalidKeys", func(t *testing.T) { testInvalidKeys(t, newStore(t), keys) })
	t.Run("Canceled", func(t *testing.T) { testCanceled(t, newStore(t)) })
	t.Run("PutIfAbsentRace", func(t *testing.T) { testPutIfAbsentRace(t, newStore(t)) })
	t.Run("PutAtomicReplace", func(t *testing.T) { testPutAtomicReplace(t, newStore(t)) })
	t.Run("PutVolatile", func(t *testing.T) { testPutVolatile(t, newStore(t), keys) })
	t.Run("PutNew", func(t *testing.T) { testPutNew(t, newStore(t), keys) })
}

// testPutNew: through objstore.PutNew (PutIfAbsent for a store without
// NewPutter) an object is created under a fresh key, a taken key is
// ErrExists and keeps its content, and keys are validated.
func testPutNew(t *testing.T, s objstore.Store, keys keySpace) {
	for i, key := range []string{"ds/data/a.lance", "ds/data/b.lance", "ds/_transactions/1-x.txn"} {
		if err := objstore.PutNew(bg, s, key, []byte{byte(i)}); err != nil {
			t.Fatalf("PutNew(%s): %v", key, err)
		}
		wantGet(t, s, key, []byte{byte(i)})
	}
	err := objstore.PutNew(bg, s, "ds/data/a.lance", []byte("other"))
	var opErr *objstore.OpError
	if !objstore.IsExists(err) || !errors.As(err, &opErr) || opErr.Key != "ds/data/a.lance" {
		t.Fatalf("PutNew over an object = %v, want ErrExists naming the key", err)
	}
	wantGet(t, s, "ds/data/a.lance", []byte{0})
	mustPut(t, s, "ds/data/c.lance", []byte("put"))
	if err := objstore.PutNew(bg, s, "ds/data/c.lance", nil); !objstore.IsExists(err) {
		t.Fatalf("PutNew over a Put object = %v, want ErrExists", err)
	}
	if err := objstore.PutNew(bg, s, "../x", nil); !errors.Is(err, objstore.ErrInvalidKey) {
		t.Fatalf("PutNew(../x) = %v, want ErrInvalidKey", err)
	}
	infos, err := s.List(bg, "ds/data/")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 3 {
		t.Fatalf("List after PutNew = %v, want the 3 objects", infos)
	}
	if keys == hierarchicalKeys {
		if err := objstore.PutNew(bg, s, "ds/data", []byte("x")); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Fatalf("PutNew over a directory = %v, want ErrInvalidKey", err)
		}
	}
}

// testPutVolatile: through objstore.PutVolatile (durable Put for a store
// without VolatilePutter) an object is created and replaced, visible at
// once, listed under its own name only, and keys are validated as for
// Put.
func testPutVolatile(t *testing.T, s objstore.Store, keys keySpace) {
	key := "d/_versions/hint.json"
	for _, v := range []string{`{"version":1}`, `{"version":22}`} {
		if err := objstore.PutVolatile(bg, s, key, []byte(v)); err != nil {
			t.Fatalf("PutVolatile: %v", err)
		}
		wantGet(t, s, key, []byte(v))
	}
	infos, err := s.List(bg, "d/")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].Key != key {
		t.Fatalf("List after PutVolatile = %v, want only %s", infos, key)
	}
	if err := objstore.PutVolatile(bg, s, "../x", nil); !errors.Is(err, objstore.ErrInvalidKey) {
		t.Fatalf("PutVolatile(../x) = %v, want ErrInvalidKey", err)
	}
	if keys != hierarchicalKeys {
		// the directory's name is a key of its own, or refused
		err := objstore.PutVolatile(bg, s, "d/_versions", []byte("x"))
		switch {
		case err == nil:
			wantGet(t, s, "d/_versions", []byte("x"))
		case keys == flatKeys:
			t.Fatalf("PutVolatile beside a prefix in a flat store: %v", err)
		}
		wantGet(t, s, key, []byte(`{"version":22}`))
		return
	}
	// a directory's name cannot hold an object
	if err := objstore.PutVolatile(bg, s, "d/_versions", []byte("x")); !errors.Is(err, objstore.ErrInvalidKey) {
		t.Fatalf("PutVolatile over a directory = %v, want ErrInvalidKey", err)
	}
}

var bg = context.Background()

func mustPut(t *testing.T, s objstore.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(bg, key, data); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func wantGet(t *testing.T, s objstore.Store, key string, want []byte) {
	t.Helper()
	got, err := s.Get(bg, key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%q) = %q, want %q", key, got, want)
	}
}

func testGetMissing(t *testing.T, s objstore.Store) {
	checks := []struct {
		name string
		err  error
	}{
		{"get", func() error { _, err := s.Get(bg, "nope/x"); return err }()},
		{"getrange", func() error { _, err := s.GetRange(bg, "nope", 0, 1); return err }()},
		{"stat", func() error { _, err := s.Stat(bg, "a/b/c"); return err }()},
		{"delete", s.Delete(bg, "nope")},
	}
	for _, c := range checks {
		if !objstore.IsNotFound(c.err) {
			t.Errorf("%s of a missing key: got %v, want ErrNotFound", c.name, c.err)
		}
	}
	// A key under an existing object, and a key naming a "directory" that
	// only holds other objects, are missing too.
	mustPut(t, s, "f", []byte("file"))
	mustPut(t, s, "d/inner", []byte("x"))
	for _, k := range []string{"f/under", "d"} {
		if _, err := s.Get(bg, k); !objstore.IsNotFound(err) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", k, err)
		}
	}
	list, err := s.List(bg, "missing/")
	if err != nil || len(list) != 0 {
		t.Errorf("List of an absent prefix = %v, %v; want empty, nil", list, err)
	}
}

func testPutGetReplace(t *testing.T, s objstore.Store) {
	mustPut(t, s, "a/b/c.bin", []byte("one"))
	wantGet(t, s, "a/b/c.bin", []byte("one"))
	mustPut(t, s, "a/b/c.bin", []byte("second, longer value"))
	wantGet(t, s, "a/b/c.bin", []byte("second, longer value"))
	mustPut(t, s, "a/b/c.bin", []byte("3"))
	wantGet(t, s, "a/b/c.bin", []byte("3"))
	mustPut(t, s, "empty", nil)
	wantGet(t, s, "empty", []byte{})
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	mustPut(t, s, "big", big)
	wantGet(t, s, "big", big)
	// The returned slice is the caller's: changing it changes nothing stored.
	got, _ := s.Get(bg, "a/b/c.bin")
	got[0] = 'X'
	wantGet(t, s, "a/b/c.bin", []byte("3"))
}

func testPutIfAbsent(t *testing.T, s objstore.Store) {
	if err := s.PutIfAbsent(bg, "v/1", []byte("first")); err != nil {
		t.Fatalf("first PutIfAbsent: %v", err)
	}
	err := s.PutIfAbsent(bg, "v/1", []byte("second"))
	if !objstore.IsExists(err) {
		t.Fatalf("second PutIfAbsent = %v, want ErrExists", err)
	}
	var opErr *objstore.OpError
	if !errors.As(err, &opErr) || opErr.Key != "v/1" {
		t.Errorf("error %v does not name the key in an *OpError", err)
	}
	wantGet(t, s, "v/1", []byte("first"))
	// PutIfAbsent after Put and after Delete.
	mustPut(t, s, "v/2", []byte("put"))
	if err := s.PutIfAbsent(bg, "v/2", []byte("x")); !objstore.IsExists(err) {
		t.Errorf("PutIfAbsent over a Put object = %v, want ErrExists", err)
	}
	if err := s.Delete(bg, "v/2"); err != nil {
		t.Fatal(err)
	}
	if err := s.PutIfAbsent(bg, "v/2", []byte("again")); err != nil {
		t.Errorf("PutIfAbsent after Delete = %v, want nil", err)
	}
	wantGet(t, s, "v/2", []byte("again"))
	list, err := s.List(bg, "v/")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Errorf("List after PutIfAbsent races = %v; losers or staging names must not appear", list)
	}
}

func testGetRange(t *testing.T, s objstore.Store) {
	data := []byte("0123456789")
	mustPut(t, s, "r", data)
	cases := []struct {
		off, n int64
		want   string
		err    error
	}{
		{0, 3, "012", nil},
		{3, 4, "3456", nil},
		{8, 5, "89", nil}, // truncated at the end
		{0, -1, "0123456789", nil},
		{4, -1, "456789", nil},
		{10, 1, "", nil}, // at the end: empty
		{10, -1, "", nil},
		{2, 0, "", nil},
		{11, 1, "", objstore.ErrInvalidRange},
		{-1, 1, "", objstore.ErrInvalidRange},
	}
	for _, c := range cases {
		got, err := s.GetRange(bg, "r", c.off, c.n)
		if c.err != nil {
			if !errors.Is(err, c.err) {
				t.Errorf("GetRange(%d,%d) err = %v, want %v", c.off, c.n, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("GetRange(%d,%d) = %q, %v; want %q", c.off, c.n, got, err, c.want)
		}
	}
}

func testStatDelete(t *testing.T, s objstore.Store) {
	mustPut(t, s, "x/y", []byte("hello"))
	info, err := s.Stat(bg, "x/y")
	if err != nil || info.Key != "x/y" || info.Size != 5 || info.ModTime.IsZero() {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	if err := s.Delete(bg, "x/y"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(bg, "x/y"); !objstore.IsNotFound(err) {
		t.Errorf("Get after Delete = %v", err)
	}
	if err := s.Delete(bg, "x/y"); !objstore.IsNotFound(err) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
	// A key can be re-created after deletion.
	mustPut(t, s, "x/y", []byte("again"))
	wantGet(t, s, "x/y", []byte("again"))
}

func testList(t *testing.T, s objstore.Store) {
	keys := []string{"t/a.lance/_versions/1.manifest", "t/a.lance/_versions/2.manifest",
		"t/a.lance/data/f1.lance", "t/ab", "t/b/c/d", "u/x", "t/a"}
	for i, k := range keys {
		mustPut(t, s, k, bytes.Repeat([]byte{'z'}, i))
	}
	cases := []struct {
		prefix string
		want   []string
	}{
		{"t/a.lance/_versions/", []string{"t/a.lance/_versions/1.manifest", "t/a.lance/_versions/2.manifest"}},
		{"t/a", []string{"t/a", "t/a.lance/_versions/1.manifest", "t/a.lance/_versions/2.manifest", "t/a.lance/data/f1.lance", "t/ab"}},
		{"t/a.lance/_versions/2", []string{"t/a.lance/_versions/2.manifest"}},
		{"t/b/", []string{"t/b/c/d"}},
		{"u", []string{"u/x"}},
		{"", []string{"t/a", "t/a.lance/_versions/1.manifest", "t/a.lance/_versions/2.manifest", "t/a.lance/data/f1.lance", "t/ab", "t/b/c/d", "u/x"}},
		{"zz", nil},
	}
	for _, c := range cases {
		got, err := s.List(bg, c.prefix)
		if err != nil {
			t.Fatalf("List(%q): %v", c.prefix, err)
		}
		var names []string
		for _, o := range got {
			names = append(names, o.Key)
		}
		if fmt.Sprint(names) != fmt.Sprint(c.want) {
			t.Errorf("List(%q) = %v, want %v", c.prefix, names, c.want)
		}
	}
	got, _ := s.List(bg, "t/ab")
	if len(got) != 1 || got[0].Size != 3 {
		t.Errorf("List sizes: %+v", got)
	}
}

func testInvalidKeys(t *testing.T, s objstore.Store, keys keySpace) {
	bad := []string{"", "/abs", "a//b", "a/./b", "../up", "a/..", "a/", "nul\x00x", `back\slash`}
	for _, k := range bad {
		if err := s.Put(bg, k, []byte("x")); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", k, err)
		}
		if err := s.PutIfAbsent(bg, k, []byte("x")); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("PutIfAbsent(%q) = %v, want ErrInvalidKey", k, err)
		}
		if _, err := s.Get(bg, k); !errors.Is(err, objstore.ErrInvalidKey) {
			t.Errorf("Get(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
	if keys != hierarchicalKeys {
		// An object and objects under its name are independent keys (or,
		// on a server, possibly refused without changing anything).
		mustPut(t, s, "file", []byte("x"))
		writes := []struct {
			key  string
			put  func(string, []byte) error
			data string
		}{
			{"file/child", func(k string, b []byte) error { return s.Put(bg, k, b) }, "y"},
			{"file/other", func(k string, b []byte) error { return s.PutIfAbsent(bg, k, b) }, "z"},
		}
		for _, w := range writes {
			err := w.put(w.key, []byte(w.data))
			switch {
			case err == nil:
				wantGet(t, s, w.key, []byte(w.data))
			case keys == flatKeys:
				t.Fatalf("write of %s under an object in a flat store: %v", w.key, err)
			}
			wantGet(t, s, "file", []byte("x"))
		}
		return
	}
	// An object cannot sit where another object's parent "directory" is.
	mustPut(t, s, "file", []byte("x"))
	if err := s.Put(bg, "file/child", []byte("y")); err == nil {
		t.Error("Put under an existing object succeeded")
	}
	mustPut(t, s, "dir/child", []byte("y"))
	if err := s.Put(bg, "dir", []byte("z")); err == nil {
		t.Error("Put over a key prefix holding objects succeeded")
	}
	wantGet(t, s, "dir/child", []byte("y"))
	// Even once its objects are gone, a directory name is not a key.
	if err := s.Delete(bg, "dir/child"); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(bg, "dir", []byte("z")); !errors.Is(err, objstore.ErrInvalidKey) {
		t.Errorf("Put over a former directory = %v, want ErrInvalidKey", err)
	}
	if err := s.PutIfAbsent(bg, "dir", []byte("z")); !errors.Is(err, objstore.ErrInvalidKey) {
		t.Errorf("PutIfAbsent over a former directory = %v, want ErrInvalidKey", err)
	}
}

func testCanceled(t *testing.T, s objstore.Store) {
	ctx, cancel := context.WithCancel(bg)
	cancel()
	if err := s.Put(ctx, "c", []byte("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with canceled ctx = %v", err)
	}
	if _, err := s.Get(bg, "c"); !objstore.IsNotFound(err) {
		t.Errorf("a canceled Put left an object: %v", err)
	}
	if _, err := s.List(ctx, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("List with canceled ctx = %v", err)
	}
}

// testPutIfAbsentRace races goroutines on the same keys: every key must
// have exactly one winner and every loser must get ErrExists.
func testPutIfAbsentRace(t *testing.T, s objstore.Store) {
	const keys, racers = 1000, 6
	wins := make([][]int, keys)
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, racers)
	for r := range racers {
		wg.Go(func() {
			<-start
			order := rand.Perm(keys)
			for _, k := range order {
				key := fmt.Sprintf("race/%04d", k)
				err := s.PutIfAbsent(bg, key, []byte(fmt.Sprint(r)))
				switch {
				case err == nil:
					mu.Lock()
					wins[k] = append(wins[k], r)
					mu.Unlock()
				case objstore.IsExists(err):
				default:
					errs <- fmt.Errorf("racer %d key %s: %w", r, key, err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for k, w := range wins {
		if len(w) != 1 {
			t.Fatalf("key %d: winners %v, want exactly one", k, w)
		}
		wantGet(t, s, fmt.Sprintf("race/%04d", k), []byte(fmt.Sprint(w[0])))
	}
}

// payload builds a self-checking value: every byte equals the version.
func payload(version byte, n int) []byte { return bytes.Repeat([]byte{version}, n) }

func uniform(b []byte) bool {
	for _, c := range b {
		if c != b[0] {
			return false
		}
	}
	return true
}

// testPutAtomicReplace overwrites one key while readers read it: each
// read must be one complete version, never a mix or a truncation.
func testPutAtomicReplace(t *testing.T, s objstore.Store) {
	const size = 64 << 10
	mustPut(t, s, "hot", payload(1, size))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	bad := make(chan string, 4)
	for range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := s.Get(bg, "hot")
				if err != nil {
					bad <- fmt.Sprintf("Get during replace: %v", err)
					return
				}
				if len(b) != size || !uniform(b) {
					bad <- fmt.Sprintf("torn read: %d bytes, uniform=%v", len(b), uniform(b))
					return
				}
			}
		})
	}
	for v := 2; v < 60; v++ {
		mustPut(t, s, "hot", payload(byte(v), size))
	}
	close(stop)
	wg.Wait()
	close(bad)
	for msg := range bad {
		t.Fatal(msg)
	}
	wantGet(t, s, "hot", payload(59, size))
}
