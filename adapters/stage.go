package adapters

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/protocol"
)

// Source yields the rows of one insert. It may be called again when the
// write is re-prepared, so it must replay the same rows (or, for a
// re-run statement, the recomputed ones). Rows are streamed: a source
// of any size is written in bounded memory. Sources of different tables
// are read concurrently (tables are staged in parallel). ctx is the
// context of the write that reads it: a source that blocks or reads
// storage stops when it is cancelled (merge_delta.go's row scans do).
type Source func(ctx context.Context) (array.RecordReader, error)

// Batches is a Source over in-memory batches.
func Batches(s *arrow.Schema, recs ...arrow.RecordBatch) Source {
	return func(ctx context.Context) (array.RecordReader, error) { return array.NewRecordReader(s, recs) }
}

// TableSpec describes a table to create. Either Columns (+ PrimaryKey)
// or a full Def is given. Extra, the SQL layer's metadata (constraints,
// exact types, defaults: planner/ddl.TableMeta), is stored in Def.Extra.
type TableSpec struct {
	Name       string
	Kind       graph.TableKind
	Columns    []graph.ColumnSpec
	PrimaryKey []string
	Extra      json.RawMessage
	// Def, when set, is the complete definition (Columns and PrimaryKey
	// must then be empty). Column ids of a new table are always
	// allocated, so every column's ID must be 0.
	Def *graph.TableDef
}

type tableOps struct {
	inserts []Source
	// knownRows counts the rows of the knownInserts inserts given as
	// in-memory batches (InsertBatches); when every insert is one of them
	// a commit can predict the table's row count before its files are
	// written (protocol.Predictor). Inserts added any other way leave the
	// count unknown.
	knownRows    int64
	knownInserts int
	// batches are the in-memory rows of InsertBatches, kept for group
	// commit's key claims (group.go)
	batches []schemaBatches
	deletes []uint64
	// loads counts the inserts that came from Stage.Load (COPY FROM)
	loads int
	// compact, when set, makes the table's transaction a Rewrite
	// (Optimize); it is never combined with inserts or deletes
	compact *lance.CompactOptions
}

// pendingTable is a dataset this stage creates: a new table
// (CreateTable: fresh id) or a new incarnation of a base table
// (ReplaceTable, Truncate: same id). Its rows are streamed into the new
// dataset in one staged Overwrite at version 0; column ids still 0 are
// allocated in Prepare.
type pendingTable struct {
	name     string
	kind     graph.TableKind
	def      graph.TableDef
	replaces *graph.TableEntry // base entry tombstoned in its favour (nil: a new table)
	ops      tableOps
	dropped  bool // dropped later in the same stage: nothing is created
}

// binding is the stage's view of one table name: a base table, a
// pending dataset, or nothing (dropped or renamed away in this stage).
type binding struct {
	key     graph.TableKey
	pending *pendingTable
	gone    bool
}

// redef is a catalog-only change of a base table.
type redef struct {
	name string
	kind graph.TableKind
	def  graph.TableDef
}

// Stage collects one attempt's changes against its base snapshot. The
// caller's staging function fills it; every method resolves names
// against the base catalog as changed by the stage's earlier calls, in
// call order (DROP TABLE t; CREATE TABLE t … in one transaction names
// the new t afterwards).
type Stage struct {
	base    *graph.Snapshot
	ops     map[graph.TableKey]*tableOps
	order   []graph.TableKey
	probes  map[graph.TableKey]bool
	pending []*pendingTable
	names   map[string]binding
	drops   []graph.TableKey // base tables tombstoned (dropped or replaced)
	redefs  map[graph.TableKey]*redef
	redefOf []graph.TableKey // redefs in call order (deterministic deltas)
	// members are a group commit's admitted member transactions
	// (group.go); Prepare records them in the commit's lineage
	members []graph.CommitMember
}

func newStage(base *graph.Snapshot) *Stage {
	return &Stage{base: base, ops: map[graph.TableKey]*tableOps{}, probes: map[graph.TableKey]bool{},
		names: map[string]binding{}, redefs: map[graph.TableKey]*redef{}}
}

// Base is the pinned snapshot the attempt runs against.
func (s *Stage) Base() *graph.Snapshot { return s.base }

func undefinedTable(name string) error {
	return protocol.Errorf(protocol.KindUndefinedTable, nil, "relation %q does not exist", name)
}

// lookup resolves a name in the stage's view; ok is false when no table
// has that name.
func (s *Stage) lookup(name string) (binding, bool) {
	if b, ok := s.names[name]; ok {
		return b, !b.gone
	}
	e, ok := s.base.State.TableByName(name)
	if !ok {
		return binding{}, false
	}
	return binding{key: e.Key()}, true
}

func (s *Stage) resolve(name string) (binding, error) {
	b, ok := s.lookup(name)
	if !ok {
		return b, undefinedTable(name)
	}
	return b, nil
}

// baseEntry is the base entry of a base-table binding.
func (s *Stage) baseEntry(k graph.TableKey) graph.TableEntry {
	e, _ := s.base.State.Table(k)
	return e
}

func (s *Stage) opsFor(k graph.TableKey) *tableOps {
	o := s.ops[k]
	if o == nil {
		o = &tableOps{}
		s.ops[k] = o
		s.order = append(s.order, k)
	}
	return o
}

// forget discards the stage's row changes of a base table (it is being
// dropped or replaced: they can no longer apply).
func (s *Stage) forget(k graph.TableKey) {
	delete(s.ops, k)
	for i, o := range s.order {
		if o == k {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
}

// Insert stages rows into a table (existing, or created in this write).
func (s *Stage) Insert(table string, src Source) error {
	return s.insert(table, src, -1)
}

// InsertBatches stages in-memory rows (Insert of Batches(schema,
// recs...)); their count is known, so the commit can publish the table's
// row count without waiting for its files (protocol.Predictor).
func (s *Stage) InsertBatches(table string, schema *arrow.Schema, recs ...arrow.RecordBatch) error {
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	if err := s.insert(table, Batches(schema, recs...), n); err != nil {
		return err
	}
	if b, _ := s.lookup(table); b.pending == nil {
		o := s.opsFor(b.key)
		o.batches = append(o.batches, schemaBatches{schema: schema, recs: recs})
	}
	return nil
}

// schemaBatches is one InsertBatches call's rows.
type schemaBatches struct {
	schema *arrow.Schema
	recs   []arrow.RecordBatch
}

// insert stages src; rows is its row count, -1 when unknown.
func (s *Stage) insert(table string, src Source, rows int64) error {
	b, err := s.resolve(table)
	if err != nil {
		return err
	}
	var o *tableOps
	if b.pending != nil {
		o = &b.pending.ops
	} else {
		o = s.opsFor(b.key)
		if o.compact != nil {
			return protocol.Errorf(protocol.KindInvalid, nil, "cannot change the rows of %q in a write that optimizes it", table)
		}
	}
	o.inserts = append(o.inserts, src)
	if rows >= 0 {
		o.knownRows += rows
		o.knownInserts++
	}
	return nil
}

// predictedRows is the table's row count after these ops applied to a
// version holding base rows, when it is known before any file is
// written: inserts of known size only. Deletes need the base dataset
// (an address deleted twice, or already deleted, would make a count
// from the addresses alone wrong): predictedWithDeletes.
func (o *tableOps) predictedRows(base uint64) (uint64, bool) {
	if o.knownInserts != len(o.inserts) || len(o.deletes) > 0 || o.compact != nil || o.loads > 0 {
		return 0, false
	}
	return base + uint64(o.knownRows), true
}

// predictedWithDeletes is predictedRows for ops that also delete rows,
// given the dataset they are staged on: known when every deleted
// address is within an existing fragment's physical rows. An address
// already deleted in ds (in its fragment's deletion vector) does not
// count, as staging ignores it; addresses deleted twice count once.
// The deletion vectors of at most predictDeletionVectors fragments are
// read (the staging reads the same files to merge them): the typical
// small UPDATE touches a fragment earlier updates left a deletion file
// on, and knowing its count lets the commit write its __manifest files
// in the same round as the table files.
func (o *tableOps) predictedWithDeletes(ctx context.Context, ds *lance.Dataset) (uint64, bool) {
	if len(o.deletes) == 0 || o.knownInserts != len(o.inserts) || o.compact != nil || o.loads > 0 {
		return 0, false
	}
	frags := ds.Fragments()
	byID := make(map[uint64]*format.Fragment, len(frags))
	for i := range frags {
		byID[frags[i].ID] = &frags[i]
	}
	dvs := map[uint64]*roaring.Bitmap{}
	seen := make(map[uint64]bool, len(o.deletes))
	for _, a := range o.deletes {
		f := byID[a>>32]
		off := a & 0xffffffff
		if f == nil || off >= f.PhysicalRows {
			return 0, false
		}
		if f.DeletionFile != nil {
			dv, ok := dvs[f.ID]
			if !ok {
				if len(dvs) == predictDeletionVectors {
					return 0, false
				}
				var err error
				if dv, err = ds.DeletedOffsets(ctx, f); err != nil {
					return 0, false // staging reports it
				}
				dvs[f.ID] = dv
			}
			if dv.Contains(uint32(off)) {
				continue
			}
		}
		seen[a] = true
	}
	live := ds.CountRows()
	if uint64(len(seen)) > live {
		return 0, false
	}
	return live - uint64(len(seen)) + uint64(o.knownRows), true
}

// predictDeletionVectors bounds the deletion files one prediction reads.
const predictDeletionVectors = 4

// Delete stages the deletion of rows by address in the base snapshot's
// version of the table (an UPDATE is Delete + Insert of the new rows).
func (s *Stage) Delete(table string, addrs []uint64) error {
	b, err := s.resolve(table)
	if err != nil {
		return err
	}
	if b.pending != nil {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot delete rows of %q by address in the write that creates or rewrites it", table)
	}
	o := s.opsFor(b.key)
	if o.compact != nil {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot change the rows of %q in a write that optimizes it", table)
	}
	o.deletes = append(o.deletes, addrs...)
	return nil
}

// Probe records that the write's validity depends on a table it may not
// write (uniqueness, foreign keys, cardinality, any read of a strict
// transaction): the table's pinned entry joins the read set. Probing a
// table created in this write is a no-op.
func (s *Stage) Probe(table string) error {
	b, err := s.resolve(table)
	if err != nil {
		return err
	}
	if b.pending == nil {
		s.probes[b.key] = true
	} else if r := b.pending.replaces; r != nil {
		s.probes[r.Key()] = true
	}
	return nil
}

func (s *Stage) String() string {
	return fmt.Sprintf("stage(%d tables, %d new datasets, %d drops, %d redefinitions)", len(s.ops), len(s.pending), len(s.drops), len(s.redefs))
}

// compactTable stages a compaction of a table's small fragments (the
// Optimize adapter's only change: a Rewrite, rows unchanged).
func (s *Stage) compactTable(name string, copts lance.CompactOptions) error {
	b, err := s.resolve(name)
	if err != nil {
		return err
	}
	if b.pending != nil {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot optimize %q in the write that creates it", name)
	}
	o := s.opsFor(b.key)
	if len(o.inserts) > 0 || len(o.deletes) > 0 {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot optimize %q in a write that changes its rows", name)
	}
	o.compact = &copts
	return nil
}

// changesCatalog reports whether the stage creates, replaces, drops or
// redefines a table (the SchemaApply writer kind).
func (s *Stage) changesCatalog() bool {
	return len(s.pending) > 0 || len(s.drops) > 0 || len(s.redefs) > 0
}

// onlyLoads reports whether the table's changes are Load appends only.
func (o *tableOps) onlyLoads() bool {
	return o.loads > 0 && o.loads == len(o.inserts) && len(o.deletes) == 0 && o.compact == nil
}

// onlyLoads reports whether every row change of the stage is a Load
// (COPY FROM): appends and no deletes.
func (s *Stage) onlyLoads() bool {
	if len(s.order) == 0 {
		return false
	}
	for _, k := range s.order {
		if !s.ops[k].onlyLoads() {
			return false
		}
	}
	return true
}

// writerKind is the registry kind the stage's changes make.
func (s *Stage) writerKind() protocol.WriterKind {
	switch {
	case s.changesCatalog():
		return SchemaApply
	case s.onlyCompactions():
		return Optimize
	case s.onlyLoads():
		return Load
	}
	return Mutation
}
