package lancesrc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

var idSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var idColumn = keyColumn{name: "id", typ: exec.TInt8}

// idRows is a reader of rows with the given ids (id -1 = NULL key).
func idRows(t testing.TB, ids []int64) array.RecordReader {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, idSchema)
	defer b.Release()
	for _, id := range ids {
		if id < 0 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(id)
		}
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", id))
	}
	rdr, err := array.NewRecordReader(idSchema, []arrow.RecordBatch{b.NewRecordBatch()})
	if err != nil {
		t.Fatal(err)
	}
	return rdr
}

// committer returns a function committing a staged operation exactly.
func committer(t testing.TB) func(*lance.Staged, error) *lance.Dataset {
	return func(st *lance.Staged, err error) *lance.Dataset { return commitStaged(t, st, err) }
}

func commitStaged(t testing.TB, st *lance.Staged, err error) *lance.Dataset {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	ds, err := st.Commit(context.Background(), lance.CommitOptions{Mode: lance.CommitExact})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// liveKeys is the ground truth: key → sorted addresses of the version's
// live rows, read by a plain scan.
func liveKeys(t testing.TB, ds *lance.Dataset) map[string][]uint64 {
	t.Helper()
	am := newAddrMap(0, false) // ground truth in the generic (encoded) form
	if _, _, err := scanKeys(context.Background(), ds, idColumn, nil, am, nil); err != nil {
		t.Fatal(err)
	}
	m := map[string][]uint64{}
	am.all(func(k string, a uint64) { m[k] = append(m[k], a) })
	for _, v := range m {
		slices.Sort(v)
	}
	return m
}

// contents is what an index answers for every key it may hold.
func contents(x *keyIndex) map[string][]uint64 {
	m := map[string][]uint64{}
	keys := map[string]bool{}
	x.base.all(func(k string, _ uint64) { keys[k] = true })
	if x.added.valid() {
		x.added.all(func(k string, _ uint64) { keys[k] = true })
	}
	for k := range keys {
		var got []uint64
		x.lookup(k, func(a uint64) { got = append(got, a) })
		if len(got) > 0 {
			slices.Sort(got)
			m[k] = got
		}
	}
	return m
}

func sameIndex(t testing.TB, label string, got, want map[string][]uint64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d keys, want %d", label, len(got), len(want))
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Fatalf("%s: key %x → %v, want %v", label, k, got[k], w)
		}
	}
}

// TestKeyIndexIncrementalEqualsRebuild runs random commit sequences
// (appends with duplicates and NULLs, deletes, updates, compactions)
// and checks after each commit that the index the cache derives answers
// exactly the live rows, as a full rebuild does.
func TestKeyIndexIncrementalEqualsRebuild(t *testing.T) {
	cases := []struct {
		name  string
		seed  uint64
		steps int
		ops   string // letters drawn from: a(ppend) d(elete) u(pdate) c(ompact)
		small int    // deltaMinRows for the case (0 = default): small values flatten often
	}{
		{"flattening", 6, 40, "aaud", 8},
		{"restores", 7, 40, "aadur", 0},
		{"restores-compactions", 8, 60, "aadurcc", 0},
		{"restores-compactions-2", 9, 60, "aaurrcc", 0},
		{"appends", 1, 30, "a", 0},
		{"appends-deletes", 2, 40, "aad", 0},
		{"updates", 3, 40, "aauud", 0},
		{"with-compaction", 4, 40, "aaudc", 0},
		{"deletes-heavy", 5, 40, "add", 0},
	}
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.small > 0 {
				defer func(old int) { deltaMinRows = old }(deltaMinRows)
				deltaMinRows = tc.small
			}
			rng := rand.New(rand.NewPCG(tc.seed, 99))
			ds := committer(t)(lance.New(objstore.NewMem(), "t.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 200)), lance.StageOptions{MaxRowsPerFile: 64}))
			cache := newIndexCache(1 << 30)
			next := int64(200)
			for step := 0; step < tc.steps; step++ {
				op := tc.ops[rng.IntN(len(tc.ops))]
				live := liveAddrs(liveKeys(t, ds))
				switch {
				case op == 'a' || len(live) < 4:
					n := 1 + rng.IntN(5)
					ids := seqIDs(next, n)
					next += int64(n)
					if rng.IntN(3) == 0 {
						ids = append(ids, int64(rng.IntN(int(next))), -1) // a duplicate and a NULL
					}
					ds = committer(t)(ds.StageAppend(ctx, idRows(t, ids), lance.StageOptions{}))
				case op == 'd':
					ds = committer(t)(ds.StageDelete(ctx, pick(rng, live, 1+rng.IntN(4)), lance.StageOptions{}))
				case op == 'u':
					addrs := pick(rng, live, 1+rng.IntN(3))
					ds = committer(t)(ds.StageUpdate(ctx, addrs, idRows(t, seqIDs(next, len(addrs))), lance.StageOptions{}))
					next += int64(len(addrs))
				case op == 'r':
					old := 1 + uint64(rng.IntN(int(ds.Version())))
					ds = committer(t)(ds.StageRestore(ctx, old, lance.StageOptions{}))
				case op == 'c':
					if ds.CompactionCandidates(lance.CompactOptions{TargetRowsPerFragment: 64}) == 0 {
						continue
					}
					ds = committer(t)(ds.StageCompaction(ctx, lance.CompactOptions{TargetRowsPerFragment: 64}, lance.StageOptions{}))
				}
				x, err := cache.get(ctx, ds, idColumn)
				if err != nil {
					t.Fatal(err)
				}
				want := liveKeys(t, ds)
				sameIndex(t, fmt.Sprintf("step %d (%c) v%d", step, op, ds.Version()), contents(x), want)
				checkOrder(t, fmt.Sprintf("step %d (%c) v%d", step, op, ds.Version()), x, want)
				full, err := buildIndex(ctx, ds, idColumn)
				if err != nil {
					t.Fatal(err)
				}
				sameIndex(t, "full rebuild", contents(full), want)
			}
			if cache.derives == 0 {
				t.Fatalf("no index was derived incrementally (builds %d)", cache.builds)
			}
			t.Logf("builds %d, derives %d", cache.builds, cache.derives)
		})
	}
}

func seqIDs(from int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)
	}
	return out
}

func liveAddrs(m map[string][]uint64) []uint64 {
	var out []uint64
	for _, v := range m {
		out = append(out, v...)
	}
	slices.Sort(out)
	return out
}

func pick(rng *rand.Rand, from []uint64, n int) []uint64 {
	p := rng.Perm(len(from))
	out := make([]uint64, 0, n)
	for i := 0; i < n && i < len(p); i++ {
		out = append(out, from[p[i]])
	}
	return out
}

// recordingStore remembers the keys read from data files.
type recordingStore struct {
	objstore.Store
	mu    sync.Mutex
	reads map[string]int
}

func (r *recordingStore) note(key string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if strings.Contains(key, "/data/") {
		r.reads[key]++
	}
}

func (r *recordingStore) Get(ctx context.Context, key string) ([]byte, error) {
	r.note(key)
	return r.Store.Get(ctx, key)
}

func (r *recordingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	r.note(key)
	return r.Store.GetRange(ctx, key, off, n)
}

// TestKeyIndexAppendReadsOnlyNewFragments: after a 1-row append (and
// after a 1-row delete) the next version's index reads no data file of
// the old fragments, and lookups through the Source see the new row.
func TestKeyIndexAppendReadsOnlyNewFragments(t *testing.T) {
	ctx := context.Background()
	rec := &recordingStore{Store: objstore.NewMem(), reads: map[string]int{}}
	ds := committer(t)(lance.New(rec, "t.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 5000)), lance.StageOptions{MaxRowsPerFile: 1000}))
	cache := newIndexCache(1 << 30)
	if _, err := cache.get(ctx, ds, idColumn); err != nil {
		t.Fatal(err)
	}
	oldFiles := map[string]bool{}
	for _, fr := range ds.Fragments() {
		for _, f := range fr.Files {
			oldFiles[f.Path] = true
		}
	}
	readOld := func() []string {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var out []string
		for k := range rec.reads {
			if oldFiles[k[strings.LastIndex(k, "/")+1:]] {
				out = append(out, k)
			}
		}
		clear(rec.reads)
		return out
	}
	readOld()

	ds = committer(t)(ds.StageAppend(ctx, idRows(t, []int64{9000}), lance.StageOptions{}))
	x, err := cache.get(ctx, ds, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if old := readOld(); len(old) > 0 {
		t.Fatalf("append: the index re-read old data files %v", old)
	}
	if cache.builds != 1 || cache.derives != 1 {
		t.Fatalf("builds %d derives %d, want 1 and 1", cache.builds, cache.derives)
	}
	sameIndex(t, "after append", contents(x), liveKeys(t, ds))
	readOld()

	var addr42 []uint64
	k42 := exec.NewVec(exec.TInt8, 1)
	k42.I[0] = 42
	x.lookup(string(exec.AppendKey(nil, k42, 0)), func(a uint64) { addr42 = append(addr42, a) })
	if len(addr42) != 1 {
		t.Fatalf("key 42 → %v", addr42)
	}
	ds = committer(t)(ds.StageDelete(ctx, addr42, lance.StageOptions{}))
	x, err = cache.get(ctx, ds, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if old := readOld(); len(old) > 0 {
		t.Fatalf("delete: the index re-read old data files %v", old)
	}
	sameIndex(t, "after delete", contents(x), liveKeys(t, ds))

	// the Source answers through the shared index
	cols := []exec.ColumnDef{{Name: "id", Type: exec.TInt8}, {Name: "v", Type: exec.TText}}
	cat := exec.NewMemCatalog()
	cat.Add(&exec.TableDef{Name: "t", Columns: cols, PrimaryKey: []int{0}, Source: New(ds, cols, []int{0})})
	res, err := (&exec.Engine{Catalog: cat}).Query(ctx, nil, "SELECT count(*) FROM t WHERE id IN (42, 43, 9000)")
	if err != nil {
		t.Fatal(err)
	}
	if got := *res.Rows()[0][0]; got != "2" {
		t.Fatalf("lookup of 42, 43, 9000 found %s rows, want 2", got)
	}
}

// TestKeyIndexCacheConcurrentAndBounded: sessions asking for the same
// and different versions at once get correct indexes (-race), and the
// cache evicts datasets beyond its byte bound.
func TestKeyIndexCacheConcurrentAndBounded(t *testing.T) {
	ctx := context.Background()
	versions := []*lance.Dataset{committer(t)(lance.New(objstore.NewMem(), "a.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 3000)), lance.StageOptions{}))}
	for i := 0; i < 5; i++ {
		last := versions[len(versions)-1]
		versions = append(versions, committer(t)(last.StageAppend(ctx, idRows(t, []int64{int64(5000 + i)}), lance.StageOptions{})))
	}
	cache := newIndexCache(1 << 30)
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for g := 0; g < 8; g++ {
		for _, ds := range versions {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x, err := cache.get(ctx, ds, idColumn)
				if err != nil {
					errs <- err
					return
				}
				if n := len(contents(x)); n != int(ds.CountRows()) {
					errs <- fmt.Errorf("v%d: %d keys, want %d", ds.Version(), n, ds.CountRows())
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	small := newIndexCache(0)
	other := committer(t)(lance.New(objstore.NewMem(), "b.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 3000)), lance.StageOptions{}))
	for _, ds := range []*lance.Dataset{versions[0], other} {
		if _, err := small.get(ctx, ds, idColumn); err != nil {
			t.Fatal(err)
		}
	}
	one := versions[0]
	x, err := cache.get(ctx, one, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	small.limit = x.bytes + x.bytes/2 // room for one dataset
	for _, ds := range []*lance.Dataset{versions[0], other, versions[0]} {
		if _, err := small.get(ctx, ds, idColumn); err != nil {
			t.Fatal(err)
		}
		if small.bytes > small.limit || len(small.entries) != 1 {
			t.Fatalf("cache holds %d bytes in %d entries, limit %d", small.bytes, len(small.entries), small.limit)
		}
	}
}

// TestKeyIndexAcrossHandles: another process's commits (a second handle
// on the same store) are just newer versions; the index is derived from
// the manifests, not from anything the first handle saw being written.
func TestKeyIndexAcrossHandles(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	a := committer(t)(lance.New(store, "t.lance", lance.Options{}).StageOverwrite(ctx, idRows(t, seqIDs(0, 500)), lance.StageOptions{MaxRowsPerFile: 100}))
	cache := newIndexCache(1 << 30)
	if _, err := cache.get(ctx, a, idColumn); err != nil {
		t.Fatal(err)
	}
	b, err := lance.Open(ctx, store, "t.lance", lance.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b = committer(t)(b.StageAppend(ctx, idRows(t, []int64{1000, 7}), lance.StageOptions{}))
	live := liveAddrs(liveKeys(t, b))
	b = committer(t)(b.StageDelete(ctx, live[:3], lance.StageOptions{}))
	latest, err := a.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Version() != b.Version() {
		t.Fatalf("latest v%d, want v%d", latest.Version(), b.Version())
	}
	x, err := cache.get(ctx, latest, idColumn)
	if err != nil {
		t.Fatal(err)
	}
	if cache.derives != 1 || cache.builds != 1 {
		t.Fatalf("builds %d derives %d, want 1 and 1", cache.builds, cache.derives)
	}
	sameIndex(t, "other handle's commits", contents(x), liveKeys(t, latest))
}
