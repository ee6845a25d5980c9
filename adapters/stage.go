package adapters

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// Source yields the rows of one insert. It may be called again when the
// write is re-prepared, so it must replay the same rows (or, for a
// re-run statement, the recomputed ones). Rows are streamed: a source
// of any size is written in bounded memory. Sources of different tables
// are read concurrently (tables are staged in parallel).
type Source func() (array.RecordReader, error)

// Batches is a Source over in-memory batches.
func Batches(s *arrow.Schema, recs ...arrow.RecordBatch) Source {
	return func() (array.RecordReader, error) { return array.NewRecordReader(s, recs) }
}

// TableSpec describes a table to create.
type TableSpec struct {
	Name       string
	Kind       graph.TableKind
	Columns    []graph.ColumnSpec
	PrimaryKey []string
}

type tableOps struct {
	inserts []Source
	deletes []uint64
	// compact, when set, makes the table's transaction a Rewrite
	// (Optimize); it is never combined with inserts or deletes
	compact *lance.CompactOptions
}

// Stage collects one attempt's changes against its base snapshot. The
// caller's staging function fills it; every method resolves names
// against the base catalog.
type Stage struct {
	base    *graph.Snapshot
	ops     map[graph.TableKey]*tableOps
	order   []graph.TableKey
	probes  map[graph.TableKey]bool
	creates []TableSpec
	drops   []graph.TableKey
	created map[string]bool
}

func newStage(base *graph.Snapshot) *Stage {
	return &Stage{base: base, ops: map[graph.TableKey]*tableOps{}, probes: map[graph.TableKey]bool{}, created: map[string]bool{}}
}

// Base is the pinned snapshot the attempt runs against.
func (s *Stage) Base() *graph.Snapshot { return s.base }

func (s *Stage) table(name string) (graph.TableKey, error) {
	if s.created[name] {
		return graph.TableKey{}, nil
	}
	e, ok := s.base.State.TableByName(name)
	if !ok {
		return graph.TableKey{}, protocol.Errorf(protocol.KindInvalid, nil, "relation %q does not exist", name)
	}
	return e.Key(), nil
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

// Insert stages rows into a table (existing, or created in this write).
func (s *Stage) Insert(table string, src Source) error {
	if s.created[table] {
		for i := range s.creates {
			if s.creates[i].Name == table {
				s.opsFor(createKey(i)).inserts = append(s.opsFor(createKey(i)).inserts, src)
			}
		}
		return nil
	}
	k, err := s.table(table)
	if err != nil {
		return err
	}
	s.opsFor(k).inserts = append(s.opsFor(k).inserts, src)
	return nil
}

// Delete stages the deletion of rows by address in the base snapshot's
// version of the table (an UPDATE is Delete + Insert of the new rows).
func (s *Stage) Delete(table string, addrs []uint64) error {
	k, err := s.table(table)
	if err != nil {
		return err
	}
	if s.created[table] {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot delete from %q in the write that creates it", table)
	}
	s.opsFor(k).deletes = append(s.opsFor(k).deletes, addrs...)
	return nil
}

// Probe records that the write's validity depends on a table it may not
// write (uniqueness, foreign keys, cardinality, any read of a strict
// transaction): the table's pinned entry joins the read set.
func (s *Stage) Probe(table string) error {
	k, err := s.table(table)
	if err != nil {
		return err
	}
	if !s.created[table] {
		s.probes[k] = true
	}
	return nil
}

// CreateTable stages a new table (registered in the same graph commit).
func (s *Stage) CreateTable(spec TableSpec) error {
	if _, ok := s.base.State.TableByName(spec.Name); ok || s.created[spec.Name] {
		return protocol.Errorf(protocol.KindInvalid, nil, "relation %q already exists", spec.Name)
	}
	if spec.Kind == "" {
		spec.Kind = graph.RelationTable
	}
	s.created[spec.Name] = true
	s.creates = append(s.creates, spec)
	return nil
}

// DropTable stages a tombstone for a table.
func (s *Stage) DropTable(name string) error {
	k, err := s.table(name)
	if err != nil {
		return err
	}
	s.drops = append(s.drops, k)
	return nil
}

// createKey is a placeholder key for the i-th created table until ids
// are allocated (ids start at 1, so 0/i never collides).
func createKey(i int) graph.TableKey { return graph.TableKey{ID: 0, Incarnation: uint64(i)} }

func (s *Stage) String() string {
	return fmt.Sprintf("stage(%d tables, %d creates, %d drops)", len(s.ops), len(s.creates), len(s.drops))
}

// compactTable stages a compaction of a table's small fragments (the
// Optimize adapter's only change: a Rewrite, rows unchanged).
func (s *Stage) compactTable(name string, copts lance.CompactOptions) error {
	k, err := s.table(name)
	if err != nil {
		return err
	}
	if s.created[name] {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot optimize %q in the write that creates it", name)
	}
	o := s.opsFor(k)
	if len(o.inserts) > 0 || len(o.deletes) > 0 {
		return protocol.Errorf(protocol.KindInvalid, nil, "cannot optimize %q in a write that changes its rows", name)
	}
	o.compact = &copts
	return nil
}
