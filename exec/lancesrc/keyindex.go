package lancesrc

import (
	"context"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
)

// keyIndex maps the key values of one column of one dataset version to
// the row addresses holding them. It is immutable once built, so
// Sources of any session share it without locks.
//
// To derive a newer version's index without reading the old fragments
// again, an index is a large base map shared by every index derived from
// it plus the rows added since the base was built (addedLayers: shared
// layers, a derivation pushes one holding only its own new rows), and a
// liveness filter for fragments whose deletion vector changed (or that
// are gone) since then. A derived index copies only the liveness maps.
type keyIndex struct {
	version uint64
	frags   map[uint64]fragIdentity // the version's fragments

	base  addrMap     // shared, never written after it is built
	added addedLayers // rows of fragments added since base
	// nadded counts the addresses in added.
	nadded int
	// live holds, for fragments whose deletions changed after their rows
	// were indexed, the offsets still live (an address of such a fragment
	// outside the bitmap is a deleted row). gone lists fragments removed.
	live map[uint64]*roaring.Bitmap
	gone map[uint64]bool
	// indexed holds, for fragments not all of whose physical rows were
	// live when their keys were read, the offsets that were read. A live
	// row outside it (revived by a restore) is missing from the maps,
	// so such a derivation builds from scratch instead.
	indexed map[uint64]*roaring.Bitmap
	// baseRows counts the addresses in base; bytes estimates the memory
	// of base + added (for the cache's eviction).
	baseRows int
	bytes    int64
	// baseOrder and addedOrder are the distinct keys of base and added
	// in ascending order, sorted on first range or ordered use
	// (keyrange.go); baseOrder is shared with every index sharing base.
	baseOrder  *sortedKeys
	addedOrder sortedKeys
}

// fragIdentity says whether a fragment's rows or deletions changed
// between two manifests: Lance never rewrites a fragment in place (new
// data means new data files, new deletions a new deletion file).
type fragIdentity struct {
	files    string // data file paths
	physical uint64
	deletion deletionIdentity // zero value: no deletion file
}

type deletionIdentity struct {
	fileType        format.DeletionFileType
	readVersion, id uint64
	numDeleted      uint64
	present         bool
}

func identityOf(fr *format.Fragment) fragIdentity {
	var sb strings.Builder
	for i := range fr.Files {
		sb.WriteString(fr.Files[i].Path)
		sb.WriteByte(0)
	}
	return fragIdentity{files: sb.String(), physical: fr.PhysicalRows, deletion: deletionOf(fr)}
}

func deletionOf(fr *format.Fragment) deletionIdentity {
	d := fr.DeletionFile
	if d == nil {
		return deletionIdentity{}
	}
	return deletionIdentity{fileType: d.FileType, readVersion: d.ReadVersion, id: d.ID, numDeleted: d.NumDeletedRows, present: true}
}

// sameFiles reports that files (an identity's) names fr's data files,
// without building the string.
func sameFiles(files string, fr *format.Fragment) bool {
	for i := range fr.Files {
		p := fr.Files[i].Path
		if len(files) < len(p)+1 || files[:len(p)] != p || files[len(p)] != 0 {
			return false
		}
		files = files[len(p)+1:]
	}
	return files == ""
}

func fragmentsOf(ds *lance.Dataset) map[uint64]fragIdentity {
	return fragmentsSince(nil, ds)
}

// fragmentsSince is fragmentsOf reusing prev's identity of a fragment
// whose data files are unchanged (every fragment but the new ones, on a
// commit): one identity string per new fragment, not per fragment.
func fragmentsSince(prev map[uint64]fragIdentity, ds *lance.Dataset) map[uint64]fragIdentity {
	frs := ds.Fragments()
	out := make(map[uint64]fragIdentity, len(frs))
	for i := range frs {
		fr := &frs[i]
		if old, ok := prev[fr.ID]; ok && old.physical == fr.PhysicalRows && sameFiles(old.files, fr) {
			old.deletion = deletionOf(fr)
			out[fr.ID] = old
			continue
		}
		out[fr.ID] = identityOf(fr)
	}
	return out
}

// entryBytes approximates the memory of one map entry with one address.
func entryBytes(key string) int64 { return int64(len(key)) + 40 }

// lookup calls fn with every live address holding key.
func (x *keyIndex) lookup(key string, fn func(uint64)) {
	live := func(a uint64) {
		if x.isLive(a) {
			fn(a)
		}
	}
	x.base.each(key, live)
	if x.added.valid() {
		x.added.each(key, live)
	}
}

// lookupInt is lookup for an integer key column's index.
func (x *keyIndex) lookupInt(v int64, fn func(uint64)) {
	live := func(a uint64) {
		if x.isLive(a) {
			fn(a)
		}
	}
	x.base.eachInt(v, live)
	if x.added.valid() {
		x.added.eachInt(v, live)
	}
}

func (x *keyIndex) isLive(a uint64) bool {
	frag, off := lance.SplitRowAddress(a)
	if x.gone[frag] {
		return false
	}
	if bm := x.live[frag]; bm != nil {
		return bm.Contains(off)
	}
	return true
}

// keyColumn says which column an index covers and how keys are encoded.
type keyColumn struct {
	name string
	typ  exec.Type
}

// scanKeys reads the key column of the fragments keep selects (nil =
// all) and adds every non-NULL key to m. It returns the addresses added
// and records in indexed (when not nil) the offsets read of fragments
// with deleted rows.
func scanKeys(ctx context.Context, ds *lance.Dataset, col keyColumn, keep func(*format.Fragment) bool, m addrMap, indexed map[uint64]*roaring.Bitmap) (n int, bytes int64, err error) {
	var kb []byte
	read := map[uint64]*roaring.Bitmap{}
	defer func() {
		if err != nil || indexed == nil {
			return
		}
		frags := ds.Fragments()
		for i := range frags {
			if bm := read[frags[i].ID]; bm != nil && bm.GetCardinality() < frags[i].PhysicalRows {
				bm.RunOptimize()
				indexed[frags[i].ID] = bm
			}
		}
	}()
	err = scanPlain(ctx, ds, lance.ScanOptions{Columns: []string{col.name}, WithRowAddress: true, FragmentFilter: keep}, func(rec arrow.RecordBatch, addrs []uint64) error {
		v, err := exec.VecFromArrow(rec.Column(0), col.typ)
		if err != nil {
			return err
		}
		addRuns(read, addrs)
		for i := 0; i < v.N; i++ {
			if v.IsNull(i) {
				continue
			}
			if m.ints {
				bytes += m.addInt(v.I[i], addrs[i])
			} else {
				kb = exec.AppendKey(kb[:0], v, i)
				bytes += m.add(string(kb), addrs[i])
			}
			n++
		}
		return nil
	})
	return n, bytes, err
}

// addWrittenKeys adds the keys of a fragment's column held in memory
// (lance.Dataset.WrittenColumn: every row of the fragment, none deleted,
// so nothing is recorded in indexed) as scanKeys would read them.
func addWrittenKeys(m addrMap, col keyColumn, fragID uint64, arr arrow.Array) (n int, bytes int64, err error) {
	v, err := exec.VecFromArrow(arr, col.typ)
	if err != nil {
		return 0, 0, err
	}
	var kb []byte
	for i := 0; i < v.N; i++ {
		if v.IsNull(i) {
			continue
		}
		a := lance.RowAddress(fragID, uint32(i))
		if m.ints {
			bytes += m.addInt(v.I[i], a)
		} else {
			kb = exec.AppendKey(kb[:0], v, i)
			bytes += m.add(string(kb), a)
		}
		n++
	}
	return n, bytes, nil
}

// addRuns adds row addresses to per-fragment offset bitmaps; rows come
// in runs, added as ranges.
func addRuns(bms map[uint64]*roaring.Bitmap, addrs []uint64) {
	for i := 0; i < len(addrs); {
		j := i + 1
		for j < len(addrs) && addrs[j] == addrs[j-1]+1 && addrs[j]>>32 == addrs[i]>>32 {
			j++
		}
		frag, off := lance.SplitRowAddress(addrs[i])
		bm := bms[frag]
		if bm == nil {
			bm = roaring.New()
			bms[frag] = bm
		}
		bm.AddRange(uint64(off), uint64(off)+uint64(j-i))
		i = j
	}
}

// buildIndex reads the whole key column of a version.
func buildIndex(ctx context.Context, ds *lance.Dataset, col keyColumn) (*keyIndex, error) {
	m := newAddrMap(int(ds.CountRows()), col.typ.Kind() == exec.KInt)
	indexed := map[uint64]*roaring.Bitmap{}
	n, bytes, err := scanKeys(ctx, ds, col, nil, m, indexed)
	if err != nil {
		return nil, err
	}
	return &keyIndex{version: ds.Version(), frags: fragmentsOf(ds), base: m, baseRows: n, bytes: bytes, indexed: indexed, baseOrder: &sortedKeys{}}, nil
}

// deltaLimit is the largest share of a table's rows (1/deltaLimit) a
// derivation may read or carry in its added layers; beyond it a full
// build (or a merge into a new base) is cheaper than probing and
// merging the layers.
const deltaLimit = 16

// deltaMinRows lets small tables derive freely (a variable for tests).
var deltaMinRows = 4096

// derive computes the index of ds (a later version of the same dataset)
// from x: only fragments added since x are read, and fragments whose
// deletion file changed have their live offsets read (addresses only,
// no data pages). ok is false when the delta is too large to pay off
// (compaction, overwrite): the caller builds from scratch.
func (x *keyIndex) derive(ctx context.Context, ds *lance.Dataset, col keyColumn) (nx *keyIndex, ok bool, err error) {
	now := fragmentsSince(x.frags, ds)
	total := ds.CountRows()
	limit := max(uint64(deltaMinRows), total/deltaLimit)
	var newFrags, delFrags []uint64
	var newRows, goneRows uint64
	gone := map[uint64]bool{}
	for id, old := range x.frags {
		cur, ok := now[id]
		switch {
		case !ok:
			gone[id] = true
			goneRows += old.physical
		case cur.files != old.files || cur.physical != old.physical:
			// rewritten under the same id (not something Lance does): its
			// old and new rows share addresses, so build from scratch.
			return nil, false, nil
		}
	}
	for id, cur := range now {
		old, had := x.frags[id]
		switch {
		case !had && x.gone[id]:
			// a removed fragment is back (a restore): its old rows are
			// hidden by gone, so build from scratch
			return nil, false, nil
		case !had:
			newFrags = append(newFrags, id)
			newRows += cur.physical
		case cur.deletion != old.deletion:
			if old.deletion.present && (!cur.deletion.present || cur.deletion.numDeleted == 0 || cur.deletion.numDeleted < old.deletion.numDeleted) {
				// fewer deletions (a restore) revive rows the index
				// dropped when it was built: build from scratch
				return nil, false, nil
			}
			delFrags = append(delFrags, id)
		}
	}
	// removed fragments cost only their stale entries (filtered by gone
	// until the next flatten): a compaction of small fragments (a
	// Rewrite: they go, their rows come back in new fragments) derives
	// like an append of those rows
	if newRows > limit || goneRows > limit {
		return nil, false, nil
	}
	nx = &keyIndex{version: ds.Version(), frags: now, base: x.base, added: x.added, baseRows: x.baseRows, nadded: x.nadded, bytes: x.bytes, baseOrder: x.baseOrder}
	nx.gone = make(map[uint64]bool, len(x.gone)+len(gone))
	for id := range x.gone {
		nx.gone[id] = true // ids coming back are caught above
	}
	for id := range gone {
		nx.gone[id] = true
	}
	nx.live = make(map[uint64]*roaring.Bitmap, len(x.live)+len(delFrags))
	for id, bm := range x.live {
		if !gone[id] {
			nx.live[id] = bm
		}
	}
	nx.indexed = make(map[uint64]*roaring.Bitmap, len(x.indexed))
	for id, bm := range x.indexed {
		if !gone[id] {
			nx.indexed[id] = bm
		}
	}
	if len(newFrags) > 0 {
		layer := newAddrMap(int(newRows), x.base.ints)
		// a small fragment this process wrote (the previous commit's
		// rows) is taken from memory; the others are read
		want := make(map[uint64]bool, len(newFrags))
		for _, id := range newFrags {
			want[id] = true
		}
		var n int
		var b int64
		for i := range ds.Manifest().Fragments {
			fr := &ds.Manifest().Fragments[i]
			if !want[fr.ID] {
				continue
			}
			if arr, ok := ds.WrittenColumn(fr, col.name); ok {
				fn, fb, err := addWrittenKeys(layer, col, fr.ID, arr)
				if err != nil {
					return nil, false, err
				}
				n, b = n+fn, b+fb
				delete(want, fr.ID)
			}
		}
		if len(want) > 0 {
			sn, sb, err := scanKeys(ctx, ds, col, func(fr *format.Fragment) bool { return want[fr.ID] }, layer, nx.indexed)
			if err != nil {
				return nil, false, err
			}
			n, b = n+sn, b+sb
		}
		nx.added = nx.added.push(layer, n)
		nx.nadded += n
		nx.bytes += b
	}
	if len(delFrags) > 0 {
		// a fragment's live offsets are all of its rows but the ones its
		// deletion file lists: read that file alone (an address scan of
		// a large fragment cost O(rows) per commit that deleted one row)
		byID := map[uint64]*format.Fragment{}
		for i, fr := range ds.Manifest().Fragments {
			byID[fr.ID] = &ds.Manifest().Fragments[i]
		}
		for _, id := range delFrags {
			fr := byID[id]
			if fr == nil {
				return nil, false, nil
			}
			del, err := ds.DeletedOffsets(ctx, fr)
			if err != nil {
				return nil, false, err
			}
			live := roaring.New()
			live.AddRange(0, fr.PhysicalRows)
			live.AndNot(del)
			live.RunOptimize()
			nx.live[id] = live
			if read := nx.indexed[id]; read != nil && live.AndCardinality(read) != live.GetCardinality() {
				return nil, false, nil // rows revived that were never read
			}
		}
	}
	if uint64(nx.nadded) > limit {
		nx.flatten()
	}
	return nx, true, nil
}

// flatten merges the small maps and the liveness filter into a new base
// (O(rows), amortized over the commits that filled the small maps).
func (x *keyIndex) flatten() {
	m := newAddrMap(x.baseRows+x.nadded, x.base.ints)
	var n int
	var bytes int64
	add := func(k string, a uint64) {
		if x.isLive(a) {
			bytes += m.add(k, a)
			n++
		}
	}
	if m.ints {
		addInt := func(v int64, a uint64) {
			if x.isLive(a) {
				bytes += m.addInt(v, a)
				n++
			}
		}
		x.base.allInt(addInt)
		if x.added.valid() {
			x.added.allInt(addInt)
		}
	} else {
		x.base.all(add)
		if x.added.valid() {
			x.added.all(add)
		}
	}
	// rows dropped here are no longer indexed, should they come back
	indexed := make(map[uint64]*roaring.Bitmap, len(x.indexed)+len(x.live))
	for id := range x.frags {
		read, live := x.indexed[id], x.live[id]
		switch {
		case live != nil && read != nil:
			indexed[id] = roaring.And(read, live)
		case live != nil:
			indexed[id] = live
		case read != nil:
			indexed[id] = read
		}
	}
	x.base, x.added, x.baseRows, x.nadded, x.bytes = m, addedLayers{}, n, 0, bytes
	x.baseOrder = &sortedKeys{}
	x.live, x.gone, x.indexed = nil, nil, indexed
}
