package planner

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// Row-level arbitration (docs/architecture.md, "Isolation and row-level
// concurrency"). A transaction's write set is its pending state: per
// table, the snapshot row addresses it deletes (an UPDATE deletes the old
// version) and the rows it inserts. What other transactions committed
// to a table since the transaction first touched it is read back from
// the table's Lance versions (lance.Dataset.ChangesSince: deleted
// addresses and new fragments), one version at a time, cached per
// process — so commits of other processes are seen exactly like this
// process's own, and nothing is added to the commit record.
//
// Row addresses are never reused (fragment ids only grow), so "an
// address we delete was deleted by an intervening commit" is exactly a
// write-write conflict on that row version. A compaction (a Lance
// Rewrite) changes no row, only addresses: its version carries an
// address map (lance.AddressMap) instead of deletions, addresses are
// followed through it (tableChanges.deleted, translate), and a
// transaction's delete set is rebased onto the compacted version
// (rebaseDeletes) — so compaction by this or another process never
// fails a transaction. Everything else that rewrites fragments
// (truncation, a rewritten table) shows up as all of its old rows
// deleted, so it conflicts with every writer of the table: sound,
// coarse.

// maxChangedRows bounds the rows one version's change summary keeps in
// memory; a version that inserted or deleted more is "coarse": it
// conflicts with every row-level writer of the table.
const maxChangedRows = 100_000

// versionChanges is one published table version's row changes against
// the version before it.
type versionChanges struct {
	coarse bool
	// remap is set for a compaction: no row changed, the rows of the
	// rewritten fragments moved (deleted and newFrags are empty)
	remap    *lance.AddressMap
	deleted  map[uint64]bool
	newFrags []uint64
	cur      *lance.Dataset // the version (to read inserted rows)
	prev     *lance.Dataset // the version before (to read deleted rows)

	once     sync.Once
	insAddrs []uint64
	inserted []*exec.Vec // all columns, in table order (nil for an append-only version with no rows read yet)
	insErr   error

	delOnce sync.Once
	delRows []*exec.Vec // the deleted rows' columns, in table order
	delErr  error
}

type versionKey struct {
	location, branch string
	version          uint64
}

// changeCache holds the change summaries of recently published
// versions, shared by a Backend's sessions.
type changeCache struct {
	mu sync.Mutex
	m  map[versionKey]*versionChanges
}

const changeCacheSize = 4096

func (c *changeCache) get(k versionKey) *versionChanges {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *changeCache) put(k versionKey, v *versionChanges) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= changeCacheSize {
		c.m = map[versionKey]*versionChanges{}
	}
	c.m[k] = v
}

// versionAt opens one version of a table's dataset; the head pin goes
// through Root.OpenTable (it may not be materialized yet).
func (s *session) versionAt(ctx context.Context, head graph.TableEntry, v uint64) (*lance.Dataset, error) {
	if v == head.Version {
		return s.root.OpenTable(ctx, head)
	}
	return s.root.OpenDataset(ctx, head.Location, head.Branch, v)
}

// changesAt returns the summary of version v of the table whose head
// entry is head.
func (s *session) changesAt(ctx context.Context, head graph.TableEntry, v uint64) (*versionChanges, error) {
	k := versionKey{head.Location, head.Branch, v}
	cache := &s.backend.changes
	if vc := cache.get(k); vc != nil {
		return vc, nil
	}
	cur, err := s.versionAt(ctx, head, v)
	if err != nil {
		return nil, err
	}
	prev, err := s.root.OpenDataset(ctx, head.Location, head.Branch, v-1)
	if err != nil {
		return nil, err
	}
	if m, err := cur.RewriteAddresses(ctx, prev); err == nil && m != nil {
		vc := &versionChanges{cur: cur, prev: prev, remap: m}
		cache.put(k, vc)
		return vc, nil
	}
	// (a compaction whose fragments do not add up is summarized as
	// below: every row of it deleted and inserted, a coarse change)
	rc, err := cur.ChangesSince(ctx, prev)
	if err != nil {
		return nil, err
	}
	vc := &versionChanges{cur: cur, prev: prev, newFrags: rc.NewFragments}
	var newRows uint64
	ids := map[uint64]bool{}
	for _, id := range rc.NewFragments {
		ids[id] = true
	}
	for _, fr := range cur.Fragments() {
		if ids[fr.ID] {
			newRows += fr.PhysicalRows
		}
	}
	if len(rc.Deleted) > maxChangedRows || newRows > maxChangedRows {
		vc.coarse = true
	} else {
		vc.deleted = make(map[uint64]bool, len(rc.Deleted))
		for _, a := range rc.Deleted {
			vc.deleted[a] = true
		}
	}
	cache.put(k, vc)
	return vc, nil
}

// insertedRows reads the rows version v inserted (every column, typed
// as td's columns).
func (vc *versionChanges) insertedRows(ctx context.Context, td *exec.TableDef, schema *arrow.Schema) ([]uint64, []*exec.Vec, error) {
	vc.once.Do(func() {
		if len(vc.newFrags) == 0 {
			return
		}
		ids := map[uint64]bool{}
		for _, id := range vc.newFrags {
			ids[id] = true
		}
		vc.insAddrs, vc.inserted, vc.insErr = readColumns(ctx, vc.cur, td, schema,
			lance.ScanOptions{FragmentFilter: func(fr *format.Fragment) bool { return ids[fr.ID] }})
	})
	return vc.insAddrs, vc.inserted, vc.insErr
}

// readColumns scans every column of td (typed as td's columns) from ds,
// restricted as opts says, with the rows' addresses.
func readColumns(ctx context.Context, ds *lance.Dataset, td *exec.TableDef, schema *arrow.Schema, opts lance.ScanOptions) ([]uint64, []*exec.Vec, error) {
	names := make([]string, len(td.Columns))
	for i := range td.Columns {
		names[i] = schema.Field(i).Name
	}
	opts.Columns, opts.WithRowAddress = names, true
	sc, err := ds.Scan(ctx, opts)
	if err != nil {
		return nil, nil, err
	}
	defer sc.Close()
	var addrs []uint64
	parts := make([][]*exec.Vec, len(td.Columns))
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		xr := execRecord(rec)
		for c := range td.Columns {
			v, err := exec.VecFromArrow(xr.Column(c), td.Columns[c].Type)
			if err != nil {
				return nil, nil, err
			}
			detachStrings(v, v.N)
			parts[c] = append(parts[c], v)
		}
		av, ok := rec.Column(len(td.Columns)).(*array.Uint64)
		if !ok {
			return nil, nil, fmt.Errorf("row addresses of %s are %s", td.Name, rec.Column(len(td.Columns)).DataType())
		}
		addrs = append(addrs, av.Uint64Values()...)
	}
	out := make([]*exec.Vec, len(td.Columns))
	for c := range td.Columns {
		out[c] = catVecs(td.Columns[c].Type, parts[c])
	}
	return addrs, out, nil
}

// deletedRows reads the rows version v deleted, from the version before
// it (every column, typed as td's columns): SERIALIZABLE read sets
// match them against the keys and filters a transaction read
// (readset.go).
func (vc *versionChanges) deletedRows(ctx context.Context, td *exec.TableDef, schema *arrow.Schema) ([]*exec.Vec, error) {
	vc.delOnce.Do(func() {
		if len(vc.deleted) == 0 {
			return
		}
		addrs := make([]uint64, 0, len(vc.deleted))
		for a := range vc.deleted {
			addrs = append(addrs, a)
		}
		slices.Sort(addrs)
		_, vc.delRows, vc.delErr = readColumns(ctx, vc.prev, td, schema, lance.ScanOptions{RowAddresses: addrs})
	})
	return vc.delRows, vc.delErr
}

// tableChanges is what committed to one table between two of its pins.
type tableChanges struct {
	coarse   bool
	versions []*versionChanges
}

func (tc *tableChanges) empty() bool { return !tc.coarse && len(tc.versions) == 0 }

// deleted reports whether a commit in the range deleted the row at
// address a (of any version up to the range's start, or inserted within
// it), following the row through the compactions in the range.
func (tc *tableChanges) deleted(a uint64) bool {
	for _, v := range tc.versions {
		if v.remap != nil {
			a, _ = v.remap.Map(a)
			continue
		}
		if v.deleted[a] {
			return true
		}
	}
	return false
}

// translate returns where the row at address a lives at the range's
// end (a itself when no compaction in the range moved it).
func (tc *tableChanges) translate(a uint64) uint64 {
	for _, v := range tc.versions {
		if v.remap != nil {
			a, _ = v.remap.Map(a)
		}
	}
	return a
}

// moved reports a compaction in the range (addresses must be rebased).
func (tc *tableChanges) moved() bool {
	for _, v := range tc.versions {
		if v.remap != nil {
			return true
		}
	}
	return false
}

// onlyMoved reports a range of compactions only: no row changed.
func (tc *tableChanges) onlyMoved() bool {
	if tc.coarse {
		return false
	}
	for _, v := range tc.versions {
		if v.remap == nil {
			return false
		}
	}
	return true
}

// committedSince summarizes the commits to a table between pin from and
// pin to (to = the table in a newer snapshot). A different incarnation,
// ref or dataset is coarse.
func (s *session) committedSince(ctx context.Context, from, to graph.TableEntry) (*tableChanges, error) {
	tc := &tableChanges{}
	if from.Key() != to.Key() || from.Location != to.Location || from.Branch != to.Branch || from.Version > to.Version {
		tc.coarse = true
		return tc, nil
	}
	if to.Version-from.Version > 256 {
		tc.coarse = true
		return tc, nil
	}
	for v := from.Version + 1; v <= to.Version; v++ {
		vc, err := s.changesAt(ctx, to, v)
		if err != nil {
			if lance.IsNotFound(err) {
				tc.coarse = true
				return tc, nil
			}
			return nil, err
		}
		if vc.coarse {
			tc.coarse = true
			return tc, nil
		}
		tc.versions = append(tc.versions, vc)
	}
	return tc, nil
}

// serializationFailure is PostgreSQL's 40001 for a write-write conflict,
// with a detail naming the table (and key) by SQL names.
func serializationFailure(detail string) *wire.Error {
	return wire.Errorf(pgerr.SerializationFailure, "could not serialize access due to concurrent update").WithDetail(detail)
}

// arbitrateRows checks a transaction's pending row changes against what
// committed since it touched each table, up to the snapshot head: nil
// when they commute (the COMMIT is then staged on head: recompute, never
// patch), else 40001. since gives each table's entry when the
// transaction first read or wrote it. serializable adds the read set:
// any change of a table read is a conflict (table granularity).
func (s *session) arbitrateRows(ctx context.Context, pend *pendingState, since func(string) (graph.TableEntry, bool), head *catalog, serializable bool) error {
	for name, p := range pend.tables {
		if p.empty() {
			continue
		}
		ti, ok := head.tables[name]
		e0, ok0 := since(name)
		if !ok || !ok0 {
			return serializationFailure(fmt.Sprintf("table %q was dropped or replaced since the transaction's snapshot", name))
		}
		if samePin(e0, ti.entry) {
			continue
		}
		tc, err := s.committedSince(ctx, e0, ti.entry)
		if err != nil {
			return err
		}
		if tc.empty() {
			continue
		}
		if tc.coarse {
			return serializationFailure(fmt.Sprintf("table %q was rewritten (compacted, truncated or altered) by a concurrent transaction", name))
		}
		for a := range p.deleted.all() {
			if tc.deleted(a) {
				return serializationFailure(fmt.Sprintf("a row of table %q that this transaction updates or deletes was changed by a concurrent transaction", name))
			}
		}
		if err := s.arbitrateKeys(ctx, ti, p, tc); err != nil {
			return err
		}
	}
	for name := range pend.reads {
		if p := pend.tables[name]; p != nil && !p.empty() && !serializable {
			continue
		}
		if !serializable && !s.keyRelated(pend, head, name) {
			continue
		}
		ti, ok := head.tables[name]
		e0, ok0 := since(name)
		if !ok || !ok0 {
			if ok != ok0 {
				return serializationFailure(fmt.Sprintf("table %q read by the transaction was created, dropped or replaced", name))
			}
			continue
		}
		if !samePin(e0, ti.entry) {
			if !serializable && s.onlyReferenced(pend, head, name) {
				// a parent only probed for the transaction's new rows
				// (held FOR KEY SHARE: fklocks.go): its keys must still
				// be there, whatever else changed
				if err := s.parentKeysHold(ctx, pend, head, name); err != nil {
					return err
				}
				continue
			}
			if serializable {
				// row-granular where the reads were logged (readset.go)
				if err := s.arbitrateReads(ctx, pend, name, e0, ti); err != nil {
					return err
				}
				continue
			}
			return serializationFailure(fmt.Sprintf("table %q read by the transaction was changed by a concurrent transaction", name))
		}
	}
	return nil
}

// keyRelated reports whether a table only read by the transaction is
// tied by a foreign key to a table it writes (a probed parent, or a
// child whose references a delete checked): those reads are validator
// probes, arbitrated at table granularity whatever the isolation level.
func (s *session) keyRelated(pend *pendingState, head *catalog, name string) bool {
	ti, ok := head.tables[name]
	if !ok {
		return false
	}
	for wn, p := range pend.tables {
		if p.empty() {
			continue
		}
		wt, ok := head.tables[wn]
		if !ok {
			continue
		}
		for _, fk := range wt.def.ForeignKeys {
			if fk.RefTable == name && len(p.inserts) > 0 {
				return true
			}
		}
		for _, fk := range ti.def.ForeignKeys {
			if fk.RefTable == wn && p.deleted.len() > 0 {
				return true
			}
		}
	}
	return false
}

// arbitrateKeys fails when a unique key the transaction inserts was
// inserted by an intervening commit and is still live (not deleted by
// that range nor by the transaction).
func (s *session) arbitrateKeys(ctx context.Context, ti *tableInfo, p *pendingTable, tc *tableChanges) error {
	keys := uniqueKeys(ti.def)
	if len(keys) == 0 || len(p.inserts) == 0 {
		return nil
	}
	kcols := make([][]int, len(keys))
	for k, uk := range keys {
		kcols[k] = uk.cols
	}
	mine := pendingColumns(p, ti.def, keyColumns(kcols))
	if mine == nil {
		return nil
	}
	// the rows the transaction deletes, where they live at the range's
	// end (it may have read a row inserted in the range at an address a
	// later compaction moved)
	var mineDel map[uint64]bool
	if tc.moved() {
		mineDel = make(map[uint64]bool, p.deleted.len())
		for a := range p.deleted.all() {
			mineDel[tc.translate(a)] = true
		}
	}
	for _, vc := range tc.versions {
		addrs, rows, err := vc.insertedRows(ctx, ti.def, ti.schema)
		if err != nil {
			return err
		}
		if len(addrs) == 0 {
			continue
		}
		var live []int32
		for i, a := range addrs {
			if !tc.deleted(a) && !p.deleted.has(a) && !mineDel[tc.translate(a)] {
				live = append(live, int32(i))
			}
		}
		if len(live) == 0 {
			continue
		}
		for _, uk := range keys {
			theirs := keySetOf(pick(gatherVecs(rows, live), uk.cols))
			ours := pick(mine, uk.cols)
			for i := 0; i < ours[0].N; i++ {
				if _, hit := theirs.find(ours, i); hit {
					kt := (&writer{s: s}).keyText(ti.def, uk.cols, ours, i)
					return keyConflict{dup: dupKey(ti.def, uk, kt)}.with(serializationFailure(fmt.Sprintf("Key %s of table %q (constraint %q) was inserted by a concurrent transaction.",
						kt, ti.def.Name, uk.name)))
				}
			}
		}
	}
	return nil
}

// pendingColumns converts the columns cols of a table's pending inserts
// to column vectors (the others nil): the commit's checks probe keys,
// and a staged record is read back column by column, so a transaction
// of millions of staged rows costs them its key columns, not its rows
// (docs/operations.md, memory).
func pendingColumns(p *pendingTable, td *exec.TableDef, cols []int) []*exec.Vec {
	parts := make([][]*exec.Vec, len(td.Columns))
	for _, rec := range p.inserts {
		xr := execRecord(rec)
		for _, c := range cols {
			v, err := exec.VecFromArrow(xr.Column(c), td.Columns[c].Type)
			if err != nil {
				return nil
			}
			parts[c] = append(parts[c], v)
		}
	}
	out := make([]*exec.Vec, len(td.Columns))
	for _, c := range cols {
		out[c] = catVecs(td.Columns[c].Type, parts[c])
	}
	return out
}

// keyColumns lists the columns of the given keys, each once.
func keyColumns(keys [][]int) []int {
	var out []int
	for _, k := range keys {
		for _, c := range k {
			if !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// samePin reports two entries naming the same table version.
func samePin(a, b graph.TableEntry) bool {
	return a.Key() == b.Key() && a.Location == b.Location && a.Branch == b.Branch && a.Version == b.Version && a.Epoch == b.Epoch
}

// keyConflict is the 40001 of a unique key inserted concurrently; dup is
// the 23505 a statement reports instead once it waited for the inserter
// (PostgreSQL checks uniqueness against committed rows at any level).
type keyConflict struct {
	err, dup *wire.Error
}

func (k keyConflict) with(e *wire.Error) error { k.err = e; return k }

func (k keyConflict) Error() string { return k.err.Error() }

func (k keyConflict) Unwrap() error { return k.err }

// pendingRows counts a table's pending inserted rows.
func pendingRows(p *pendingTable) int64 {
	var n int64
	for _, rec := range p.inserts {
		n += rec.NumRows()
	}
	return n
}
