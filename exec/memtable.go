package exec

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// MemTable is an immutable in-memory table version: Arrow records in table
// column order. Row addresses are (record index << 32 | row). It keeps a
// hash index per key column, built on first lookup (the version never
// changes, so the index never goes stale).
type MemTable struct {
	Cols    []ColumnDef
	Records []arrow.RecordBatch
	Keys    []int // columns that get a lookup index (usually the primary key)

	mu    sync.Mutex
	index map[int]map[string][]uint64
	// stats are ANALYZE's statistics (stats.go)
	stats atomic.Pointer[TableStats]
}

// NewMemTable builds a table from rows of Go values in column order
// (int64/float64/bool/string/nil, or text for other types).
func NewMemTable(cols []ColumnDef, rows [][]any) (*MemTable, error) {
	vecs := make([]*Vec, len(cols))
	for c, cd := range cols {
		v := NewVec(cd.Type, len(rows))
		for r, row := range rows {
			switch x := row[c].(type) {
			case nil:
				v.SetNull(r)
			case string:
				// a string is the value's text form, as a literal: bytea,
				// json(b), uuid, char(n) and the rest run their input
				// function (text itself is kept verbatim)
				if err := parseText(v, r, x, nil); err != nil {
					return nil, err
				}
			case int:
				v.SetDatum(r, int64(x))
			default:
				v.SetDatum(r, x)
			}
		}
		vecs[c] = v
	}
	return MemTableFromVecs(cols, vecs), nil
}

// ParseTextVec reads vals (row r NULL where nulls[r]; nulls may be nil)
// as values of type t with the type's input function, zone-less times in
// loc (nil: UTC) and dates in st's field order: COPY FROM's text fields.
func ParseTextVec(t Type, vals []string, nulls []bool, loc *time.Location, st DateStyle) (*Vec, error) {
	if loc == nil {
		loc = time.UTC
	}
	v := NewVec(t, len(vals))
	for r, x := range vals {
		if nulls != nil && nulls[r] {
			v.SetNull(r)
			continue
		}
		if err := parseTextStyle(v, r, x, loc, st); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// MemTableFromVecs builds a single-record table from column vectors.
func MemTableFromVecs(cols []ColumnDef, vecs []*Vec) *MemTable {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	n := 0
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.Name, Type: ArrowType(c.Type), Nullable: true}
		arrs[i] = vecToArrow(memory.DefaultAllocator, vecs[i])
		n = vecs[i].N
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, int64(n))
	return &MemTable{Cols: cols, Records: []arrow.RecordBatch{rec}}
}

// RowCount implements TableSource.
func (m *MemTable) RowCount() int64 {
	var n int64
	for _, r := range m.Records {
		n += r.NumRows()
	}
	return n
}

// Scan implements TableSource.
func (m *MemTable) Scan(ctx context.Context, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	for ri, rec := range m.Records {
		if err := ctx.Err(); err != nil {
			return err
		}
		out := project(rec, req.Columns)
		var addrs []uint64
		if req.NeedAddrs {
			addrs = make([]uint64, rec.NumRows())
			for i := range addrs {
				addrs[i] = uint64(ri)<<32 | uint64(i)
			}
		}
		if err := emit(out, addrs); err != nil {
			return err
		}
	}
	return nil
}

func project(rec arrow.RecordBatch, cols []int) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		fields[i] = rec.Schema().Field(c)
		arrs[i] = rec.Column(c)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, rec.NumRows())
}

// KeyColumns implements KeyLookupSource.
func (m *MemTable) KeyColumns() []int { return m.Keys }

// LookupKeys implements KeyLookupSource through a lazily built hash index.
func (m *MemTable) LookupKeys(ctx context.Context, column int, keys *Vec, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	idx, err := m.keyIndex(column)
	if err != nil {
		return err
	}
	var addrs []uint64
	var kb []byte
	for i := 0; i < keys.N; i++ {
		if keys.IsNull(i) {
			continue
		}
		kb = appendKey(kb[:0], keys, i)
		addrs = append(addrs, idx[string(kb)]...)
	}
	return m.take(ctx, addrs, req, emit)
}

func (m *MemTable) take(_ context.Context, addrs []uint64, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	if len(addrs) == 0 {
		return nil
	}
	// group by record, preserving order
	byRec := map[int][]int32{}
	var order []int
	for _, a := range addrs {
		r := int(a >> 32)
		if _, ok := byRec[r]; !ok {
			order = append(order, r)
		}
		byRec[r] = append(byRec[r], int32(a&0xffffffff))
	}
	for _, r := range order {
		rows := byRec[r]
		rec := project(m.Records[r], req.Columns)
		cols := make([]arrow.Array, rec.NumCols())
		for c := range cols {
			v, err := vecFromArrow(rec.Column(c), m.Cols[req.Columns[c]].Type)
			if err != nil {
				return err
			}
			cols[c] = vecToArrow(memory.DefaultAllocator, v.Gather(rows))
		}
		out := array.NewRecordBatch(rec.Schema(), cols, int64(len(rows)))
		ad := make([]uint64, len(rows))
		for i, row := range rows {
			ad[i] = uint64(r)<<32 | uint64(row)
		}
		if err := emit(out, ad); err != nil {
			return err
		}
	}
	return nil
}

func (m *MemTable) keyIndex(column int) (map[string][]uint64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if idx, ok := m.index[column]; ok {
		return idx, nil
	}
	idx := map[string][]uint64{}
	var kb []byte
	for ri, rec := range m.Records {
		v, err := vecFromArrow(rec.Column(column), m.Cols[column].Type)
		if err != nil {
			return nil, err
		}
		for i := 0; i < v.N; i++ {
			if v.IsNull(i) {
				continue
			}
			kb = appendKey(kb[:0], v, i)
			idx[string(kb)] = append(idx[string(kb)], uint64(ri)<<32|uint64(i))
		}
	}
	if m.index == nil {
		m.index = map[int]map[string][]uint64{}
	}
	m.index[column] = idx
	return idx, nil
}

// overlaySource applies a transaction's pending writes to a snapshot source.
type overlaySource struct {
	base TableSource
	ov   *Overlay
	cols []ColumnDef
}

// WithOverlay returns a source that skips rows deleted by ov and appends
// its pending inserts (addresses of inserts have the top bit set).
func WithOverlay(base TableSource, cols []ColumnDef, ov *Overlay) TableSource {
	if ov == nil {
		return base
	}
	return &overlaySource{base: base, ov: ov, cols: cols}
}

func (o *overlaySource) RowCount() int64 {
	n := o.base.RowCount()
	for _, r := range o.ov.Inserts {
		n += r.NumRows()
	}
	return n
}

const pendingAddrBit = uint64(1) << 63

func (o *overlaySource) Scan(ctx context.Context, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	base := req
	base.NeedAddrs = req.NeedAddrs || o.ov.Deleted != nil
	err := o.base.Scan(ctx, base, o.skipDeleted(req, emit))
	if err != nil {
		return err
	}
	var seq uint64
	for _, rec := range o.ov.Inserts {
		out := project(rec, req.Columns)
		var ad []uint64
		if req.NeedAddrs {
			ad = make([]uint64, rec.NumRows())
			for i := range ad {
				ad[i] = pendingAddrBit | seq
				seq++
			}
		}
		if err := emit(out, ad); err != nil {
			return err
		}
	}
	return nil
}

// skipDeleted wraps emit for the base source's records: rows whose
// address the transaction deleted are left out.
func (o *overlaySource) skipDeleted(req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) func(arrow.RecordBatch, []uint64) error {
	return func(rec arrow.RecordBatch, addrs []uint64) error {
		if o.ov.Deleted == nil {
			return emit(rec, addrs)
		}
		var keep []int32
		for i, a := range addrs {
			if !o.ov.Deleted(a) {
				keep = append(keep, int32(i))
			}
		}
		if len(keep) == len(addrs) {
			return emit(rec, addrs)
		}
		if len(keep) == 0 {
			return nil
		}
		cols := make([]arrow.Array, rec.NumCols())
		for c := range cols {
			v, err := vecFromArrow(rec.Column(c), o.cols[req.Columns[c]].Type)
			if err != nil {
				return err
			}
			cols[c] = vecToArrow(memory.DefaultAllocator, v.Gather(keep))
		}
		ad := make([]uint64, len(keep))
		for i, k := range keep {
			ad[i] = addrs[k]
		}
		return emit(array.NewRecordBatch(rec.Schema(), cols, int64(len(keep))), ad)
	}
}

var _ KeyCountSource = (*MemTable)(nil)

// CountKeys implements KeyCountSource through the lazily built index.
func (m *MemTable) CountKeys(_ context.Context, column int, keys *Vec) ([]int, error) {
	idx, err := m.keyIndex(column)
	if err != nil {
		return nil, err
	}
	out := make([]int, keys.N)
	var kb []byte
	for i := 0; i < keys.N; i++ {
		if keys.IsNull(i) {
			continue
		}
		kb = appendKey(kb[:0], keys, i)
		out[i] = len(idx[string(kb)])
	}
	return out, nil
}
