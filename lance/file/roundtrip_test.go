package file

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

// allTypes is every column type the writer supports.
func allTypes() []arrow.DataType {
	return []arrow.DataType{
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, arrow.FixedWidthTypes.Boolean,
		arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary,
		arrow.FixedWidthTypes.Date32,
		&arrow.TimestampType{Unit: arrow.Second}, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"},
		&arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, &arrow.TimestampType{Unit: arrow.Nanosecond},
		&arrow.Decimal128Type{Precision: 38, Scale: 6}, &arrow.FixedSizeBinaryType{ByteWidth: 16},
		arrow.FixedSizeListOfField(8, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true}),
		arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true}),
		arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true}),
		arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}),
	}
}

func allTypesSchema(nullable bool) *arrow.Schema {
	var fs []arrow.Field
	for i, dt := range allTypes() {
		fs = append(fs, arrow.Field{Name: fmt.Sprintf("c%d_%s", i, dt.ID()), Type: dt, Nullable: nullable})
	}
	return arrow.NewSchema(fs, nil)
}

func randomBatch(rng *rand.Rand, mem memory.Allocator, s *arrow.Schema, n int, nullP float64) arrow.RecordBatch {
	cols := make([]arrow.Array, len(s.Fields()))
	for i, f := range s.Fields() {
		p := nullP
		if !f.Nullable {
			p = 0
		}
		cols[i] = randomArray(rng, mem, f.Type, n, p)
	}
	rec := array.NewRecordBatch(s, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// rowsOf flattens batches into rows of JSON values for comparison.
func rowsOf(recs []arrow.RecordBatch) []map[string]any {
	var out []map[string]any
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			row := map[string]any{}
			for c := 0; c < int(r.NumCols()); c++ {
				row[r.ColumnName(c)] = jsonValue(r.Column(c), i)
			}
			out = append(out, row)
		}
	}
	return out
}

func TestRoundTripAllTypes(t *testing.T) {
	cases := []struct {
		name      string
		nullable  bool
		nullP     float64
		batches   []int
		pageBytes int
		sliced    bool // feed batches that are slices (non-zero array offsets)
	}{
		{"tiny", true, 0.3, []int{3}, 0, false},
		{"no nulls", false, 0, []int{1000, 1}, 0, false},
		{"all null", true, 1, []int{50}, 0, false},
		{"multi-chunk", true, 0.1, []int{5000, 3000}, 0, false},
		{"multi-page", true, 0.2, []int{700, 700, 700, 700, 1}, 4096, false},
		{"sparse nulls many pages", true, 0.01, []int{4096, 4097, 10}, 16 << 10, false},
		{"sliced inputs", true, 0.2, []int{300, 2000, 50}, 8 << 10, true},
		{"sliced no nulls", false, 0, []int{300, 2000}, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rng := rand.New(rand.NewSource(int64(len(tc.name))))
			s := allTypesSchema(tc.nullable)
			store := objstore.NewMem()
			ctx := context.Background()
			w, err := NewWriter(ctx, store, "data/x.lance", s, WriterOptions{PageBytes: tc.pageBytes, Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			var in []arrow.RecordBatch
			total := 0
			for _, n := range tc.batches {
				rec := randomBatch(rng, mem, s, n, tc.nullP)
				if tc.sliced {
					sl := rec.NewSlice(7, int64(n)-3)
					rec.Release()
					rec = sl
					n -= 10
				}
				if err := w.Write(rec); err != nil {
					t.Fatal(err)
				}
				in = append(in, rec)
				total += n
			}
			res, err := w.Close(ctx)
			if err != nil {
				t.Fatal(err)
			}
			info, _ := store.Stat(ctx, "data/x.lance")
			if res.NumRows != uint64(total) || res.Size != uint64(info.Size) || len(res.Columns) != len(s.Fields()) {
				t.Fatalf("result %+v, stored size %d", res, info.Size)
			}
			r, err := Open(ctx, store, "data/x.lance")
			if err != nil {
				t.Fatal(err)
			}
			if !r.Schema().Equal(s) {
				t.Fatalf("schema:\n%s\nwant\n%s", r.Schema(), s)
			}
			if tc.pageBytes > 0 {
				if pages := len(r.cols[3].pages); pages < 2 {
					t.Fatalf("expected several pages, got %d", pages)
				}
			}
			out, err := r.ReadAll(ctx, ScanOptions{BatchRows: 777, Allocator: mem})
			if err != nil {
				t.Fatal(err)
			}
			got, want := rowsOf(out), rowsOf(in)
			if len(got) != len(want) {
				t.Fatalf("%d rows, want %d", len(got), len(want))
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("row %d:\n got %v\nwant %v", i, got[i], want[i])
				}
			}
			for _, rec := range append(in, out...) {
				rec.Release()
			}
		})
	}
}

func TestProjection(t *testing.T) {
	ctx := context.Background()
	s := allTypesSchema(true)
	rng := rand.New(rand.NewSource(7))
	rec := randomBatch(rng, memory.DefaultAllocator, s, 100, 0.2)
	defer rec.Release()
	store := objstore.NewMem()
	w, _ := NewWriter(ctx, store, "f.lance", s, WriterOptions{})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	counting := &countingStore{Store: store}
	r, err := Open(ctx, counting, "f.lance")
	if err != nil {
		t.Fatal(err)
	}
	before := counting.ranges()
	cols := []string{s.Field(11).Name, s.Field(3).Name}
	out, err := r.ReadAll(ctx, ScanOptions{Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	defer out[0].Release()
	if out[0].NumCols() != 2 || out[0].ColumnName(0) != cols[0] {
		t.Fatalf("projection: %v", out[0].Schema())
	}
	for i := 0; i < 100; i++ {
		if !reflect.DeepEqual(jsonValue(out[0].Column(0), i), jsonValue(rec.Column(11), i)) {
			t.Fatalf("row %d differs", i)
		}
	}
	// One page per column, the two pages (and each one's adjacent
	// buffers) close together: one range read.
	if got := counting.ranges() - before; got != 1 {
		t.Fatalf("projection read %d ranges, want 1", got)
	}
	if _, err := r.Scan(ScanOptions{Columns: []string{"nope"}}); !IsSchemaMismatch(err) {
		t.Fatalf("unknown column: %v", err)
	}
}

// countingStore counts range reads (scans read ahead from a second
// goroutine, so the count is atomic).
type countingStore struct {
	objstore.Store
	n atomic.Int64
}

func (c *countingStore) ranges() int { return int(c.n.Load()) }

func (c *countingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	c.n.Add(1)
	return c.Store.GetRange(ctx, key, off, n)
}

func TestWriterRejects(t *testing.T) {
	ctx := context.Background()
	s := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	w, _ := NewStreamWriter(&discard{}, s, WriterOptions{})
	b := array.NewInt32Builder(memory.DefaultAllocator)
	b.Append(1)
	arr := b.NewArray()
	bad := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil), []arrow.Array{arr}, 1)
	if err := w.Write(bad); !IsSchemaMismatch(err) {
		t.Fatalf("type mismatch: %v", err)
	}
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	ib.AppendNull()
	nulls := array.NewRecordBatch(s, []arrow.Array{ib.NewArray()}, 1)
	if err := w.Write(nulls); !IsSchemaMismatch(err) {
		t.Fatalf("nulls in non-nullable: %v", err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != ErrClosed {
		t.Fatalf("second close: %v", err)
	}
	if _, err := NewStreamWriter(&discard{}, arrow.NewSchema([]arrow.Field{{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int8)}}, nil), WriterOptions{}); err == nil {
		t.Fatal("map type accepted")
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

type countingWriter struct{ n int }

func (c *countingWriter) Write(b []byte) (int, error) { c.n += len(b); return len(b), nil }

// TestStreamWriterBoundedMemory: the stream writer flushes pages as they
// fill, so what it buffers stays near PageBytes per column however much is
// written, and the output grows while writing (not only at Close).
func TestStreamWriterBoundedMemory(t *testing.T) {
	const pageBytes = 64 << 10
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	out := &countingWriter{}
	w, err := NewStreamWriter(out, s, WriterOptions{PageBytes: pageBytes})
	if err != nil {
		t.Fatal(err)
	}
	rng := newRand(3)
	maxBuffered := 0
	for i := 0; i < 100; i++ {
		rec := randomBatch(rng, memory.DefaultAllocator, s, 2000, 0.1)
		batchBytes := approxBytes(rec.Column(0)) + approxBytes(rec.Column(1))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		buffered := 0
		for _, c := range w.cols {
			buffered += c.pendingBytes
		}
		maxBuffered = max(maxBuffered, buffered)
		if buffered > 2*pageBytes+batchBytes {
			t.Fatalf("after batch %d the writer buffers %d bytes", i, buffered)
		}
	}
	if out.n == 0 {
		t.Fatal("nothing written before Close")
	}
	res, err := w.Close(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.NumRows != 200000 || res.Size != uint64(out.n) {
		t.Fatalf("result %+v, wrote %d", res, out.n)
	}
	t.Logf("max buffered %d bytes for a %d-byte file", maxBuffered, out.n)
}

// bigValuesSchema has values too large for mini-block chunks, which the
// writer puts in full-zip pages.
func bigValuesSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "doc", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "blob", Type: arrow.BinaryTypes.LargeBinary},
		{Name: "vec", Type: arrow.FixedSizeListOfField(3000, arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Float32, Nullable: true}), Nullable: true},
	}, nil)
}

func bigValuesBatch(rng *rand.Rand, n int) arrow.RecordBatch {
	s := bigValuesSchema()
	b := array.NewRecordBuilder(memory.DefaultAllocator, s)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%4 == 1 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(strings.Repeat(string(randText(rng)), 10+rng.Intn(4000)))
		}
		b.Field(2).(*array.BinaryBuilder).Append(randBytes(rng, rng.Intn(70000)))
		vb := b.Field(3).(*array.FixedSizeListBuilder)
		if i%5 == 2 {
			vb.AppendNull()
		} else {
			vb.Append(true)
			fb := vb.ValueBuilder().(*array.Float32Builder)
			for k := 0; k < 3000; k++ {
				if i%7 == 3 && k%100 == 0 {
					fb.AppendNull()
				} else {
					fb.Append(float32(k*i) / 3)
				}
			}
		}
	}
	return b.NewRecordBatch()
}

func TestRoundTripLargeValues(t *testing.T) {
	ctx := context.Background()
	rng := newRand(11)
	s := bigValuesSchema()
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, s, WriterOptions{PageBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var in []arrow.RecordBatch
	for _, n := range []int{40, 3, 25} {
		rec := bigValuesBatch(rng, n)
		in = append(in, rec)
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fullZip := 0
	for _, c := range r.cols[1:] {
		for _, p := range c.pages {
			if p.layout.kind == layoutFullZip {
				fullZip++
			}
		}
	}
	if fullZip < 3 {
		t.Fatalf("only %d full-zip pages", fullZip)
	}
	out, err := r.ReadAll(ctx, ScanOptions{BatchRows: 17})
	if err != nil {
		t.Fatal(err)
	}
	got, want := rowsOf(out), rowsOf(in)
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("row %d differs", i)
		}
	}
	for _, rec := range append(in, out...) {
		rec.Release()
	}
}

func TestEmptyFile(t *testing.T) {
	ctx := context.Background()
	s := allTypesSchema(true)
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, s, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	empty := randomBatch(newRand(1), memory.DefaultAllocator, s, 0, 0)
	defer empty.Release()
	if err := w.Write(empty); err != nil {
		t.Fatal(err)
	}
	res, err := w.Close(ctx)
	if err != nil || res.NumRows != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	r, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.ReadAll(ctx, ScanOptions{})
	if err != nil || len(out) != 0 || r.NumRows() != 0 || !r.Schema().Equal(s) {
		t.Fatalf("empty file: %d batches, %v", len(out), err)
	}
}

// bigListsSchema has list rows too large for one mini-block chunk.
func bigListsSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "nums", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "docs", Type: arrow.ListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	}, nil)
}

func bigListsBatch(rng *rand.Rand, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, bigListsSchema())
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		nb := b.Field(1).(*array.ListBuilder)
		db := b.Field(2).(*array.ListBuilder)
		switch i % 6 {
		case 0:
			nb.AppendNull()
			db.AppendNull()
			continue
		case 1:
			nb.Append(true) // empty
			db.Append(true)
			continue
		}
		nb.Append(true)
		items := 3
		if i%3 == 2 {
			items = 5000 + rng.Intn(5000) // far past one chunk
		}
		for k := 0; k < items; k++ {
			if k%97 == 5 {
				nb.ValueBuilder().AppendNull()
			} else {
				nb.ValueBuilder().(*array.Int64Builder).Append(int64(k * i))
			}
		}
		db.Append(true)
		for k := 0; k < 1+i%3; k++ {
			if k == 1 {
				db.ValueBuilder().AppendNull()
			} else {
				db.ValueBuilder().(*array.StringBuilder).Append(strings.Repeat(string(randText(rng)), 1+rng.Intn(3000)))
			}
		}
	}
	return b.NewRecordBatch()
}

func TestRoundTripLargeLists(t *testing.T) {
	ctx := context.Background()
	rng := newRand(13)
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, bigListsSchema(), WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec := bigListsBatch(rng, 60)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	fullZip := 0
	for _, c := range r.cols {
		for _, p := range c.pages {
			if p.layout.kind == layoutFullZip {
				fullZip++
			}
		}
	}
	if fullZip == 0 {
		t.Fatal("no full-zip list page written")
	}
	out, err := r.ReadAll(ctx, ScanOptions{BatchRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	got, want := rowsOf(out), rowsOf([]arrow.RecordBatch{rec})
	for _, o := range out {
		o.Release()
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("large lists differ (%d vs %d rows)", len(got), len(want))
	}
}

// TestRoundTripLargeList covers large_list (64-bit list offsets), which the
// oracle's JavaScript Arrow cannot build.
func TestRoundTripLargeList(t *testing.T) {
	s := arrow.NewSchema([]arrow.Field{
		{Name: "li", Type: arrow.LargeListOfField(arrow.Field{Name: "item", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
		{Name: "ls", Type: arrow.LargeListOfField(arrow.Field{Name: "item", Type: arrow.BinaryTypes.LargeString, Nullable: true})},
	}, nil)
	rec := randomBatch(newRand(17), memory.DefaultAllocator, s, 3000, 0.2)
	defer rec.Release()
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, s, WriterOptions{PageBytes: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	r, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Schema().Equal(s) {
		t.Fatalf("schema %s", r.Schema())
	}
	out, err := r.ReadAll(context.Background(), ScanOptions{BatchRows: 999})
	if err != nil {
		t.Fatal(err)
	}
	got := rowsOf(out)
	for _, o := range out {
		o.Release()
	}
	if !reflect.DeepEqual(got, rowsOf([]arrow.RecordBatch{rec})) {
		t.Fatal("large_list rows differ")
	}
}
