package lance

import (
	"container/list"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// writtenFiles remembers the rows of the small data files this process
// wrote lately, by object key, so a reader in this process can take a
// column of such a file from memory instead of opening and decoding it
// (WrittenColumn). Every 1-row commit adds a one-row fragment, and the
// next commit's key index reads exactly that fragment's key column back
// (exec/lancesrc keyIndex.derive; docs/architecture.md "CPU per small
// commit"). A data file is immutable under its unique name, so the rows
// kept are the file's content for as long as the name exists.
var writtenFiles = newWrittenMemo(writtenSlots)

const (
	// writtenMaxRows bounds the files remembered: small commits' files.
	writtenMaxRows = 64
	// writtenMaxBytes bounds a file's Arrow data (so the memo holds at
	// most writtenSlots × writtenMaxBytes).
	writtenMaxBytes = 64 << 10
	// writtenSlots bounds the memo (least recently written dropped).
	writtenSlots = 256
)

type writtenKey struct {
	store objstore.Store
	key   string
}

// writtenFile is one file's rows: the top-level field id and a copy
// (on the Go heap, independent of the writer's allocator) of each column.
type writtenFile struct {
	k        writtenKey
	rows     uint64
	fieldIDs []int32
	cols     []arrow.Array
}

type writtenMemo struct {
	mu    sync.Mutex
	slots int
	byKey map[writtenKey]*list.Element
	order *list.List // of *writtenFile, newest first
}

func newWrittenMemo(slots int) *writtenMemo {
	return &writtenMemo{slots: slots, byKey: map[writtenKey]*list.Element{}, order: list.New()}
}

// remember keeps the rows of the data file at key, written by d as the
// single batch rec with the dataset fields fields (rec's columns are
// the top-level fields in order). Larger files, and stores that cannot
// key a map, are not kept.
func (m *writtenMemo) remember(store objstore.Store, key string, fields []schema.Field, rec arrow.RecordBatch) {
	if rec.NumRows() == 0 || rec.NumRows() > writtenMaxRows {
		return
	}
	st, ok := objstore.Backend(store)
	if !ok {
		return
	}
	var ids []int32
	for _, f := range fields {
		if f.ParentID == -1 {
			ids = append(ids, f.ID)
		}
	}
	if len(ids) != int(rec.NumCols()) {
		return
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		c, err := array.Concatenate([]arrow.Array{rec.Column(i)}, memory.DefaultAllocator)
		if err != nil {
			return
		}
		cols[i] = c
	}
	wf := &writtenFile{k: writtenKey{store: st, key: key}, rows: uint64(rec.NumRows()), fieldIDs: ids, cols: cols}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[wf.k]; ok {
		m.order.Remove(el)
	}
	m.byKey[wf.k] = m.order.PushFront(wf)
	for m.order.Len() > m.slots {
		el := m.order.Back()
		m.order.Remove(el)
		delete(m.byKey, el.Value.(*writtenFile).k)
	}
}

func (m *writtenMemo) get(store objstore.Store, key string) *writtenFile {
	st, ok := objstore.Backend(store)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if el, ok := m.byKey[writtenKey{store: st, key: key}]; ok {
		return el.Value.(*writtenFile)
	}
	return nil
}

// WrittenColumn returns the values of the top-level column name of
// fragment fr, in row order, when this process wrote the fragment's one
// data file lately and remembers its rows (small files only): the same
// values a scan of the fragment's column yields. ok is false otherwise —
// the fragment has a deletion file (a scan would skip deleted rows), more
// than one data file, the column is not in the file (added later) or its
// type changed — and the caller reads the file. The array is shared: the
// caller must not release it.
func (d *Dataset) WrittenColumn(fr *format.Fragment, name string) (_ arrow.Array, ok bool) {
	if fr == nil || len(fr.Files) != 1 || fr.DeletionFile != nil {
		return nil, false
	}
	key, err := d.dataFileKey(&fr.Files[0])
	if err != nil {
		return nil, false
	}
	wf := writtenFiles.get(d.store, key)
	if wf == nil || wf.rows != fr.PhysicalRows {
		return nil, false
	}
	idx := d.schema.FieldIndices(name)
	if len(idx) != 1 {
		return nil, false
	}
	var id int32 = -1
	for _, f := range d.fields {
		if f.ParentID == -1 && f.Name == name {
			id = f.ID
			break
		}
	}
	for i, fid := range wf.fieldIDs {
		if fid == id && arrow.TypeEqual(wf.cols[i].DataType(), d.schema.Field(idx[0]).Type) {
			return wf.cols[i], true
		}
	}
	return nil, false
}

// writtenReader reads the rows of the fragments ids selects, in scan
// order (manifest order, then row order), from writtenFiles when every
// column of every one of them is remembered: compaction of small
// fragments this process wrote (every 64 commits, the 64 one-row
// fragments of the 64 commits before it) then opens none of their
// files. ok is false when any is not; the caller scans.
func (d *Dataset) writtenReader(ids map[uint64]bool) (_ array.RecordReader, ok bool) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for i := range d.Fragments() {
		fr := &d.Fragments()[i]
		if !ids[fr.ID] {
			continue
		}
		cols := make([]arrow.Array, d.schema.NumFields())
		for j, f := range d.schema.Fields() {
			c, ok := d.WrittenColumn(fr, f.Name)
			if !ok {
				return nil, false
			}
			cols[j] = c
		}
		recs = append(recs, array.NewRecordBatch(d.schema, cols, int64(fr.PhysicalRows)))
	}
	if len(recs) == 0 {
		return nil, false
	}
	rdr, err := array.NewRecordReader(d.schema, recs)
	if err != nil {
		return nil, false
	}
	return rdr, true
}
