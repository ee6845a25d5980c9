package file

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

func benchSchema() *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
}

func benchFile(b *testing.B) ([]arrow.RecordBatch, []byte) {
	rng := newRand(1)
	s := benchSchema()
	var recs []arrow.RecordBatch
	for i := 0; i < 16; i++ {
		recs = append(recs, randomBatch(rng, memory.DefaultAllocator, s, 65536, 0.05))
	}
	var buf bytes.Buffer
	w, _ := NewStreamWriter(&buf, s, WriterOptions{})
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	return recs, buf.Bytes()
}

func BenchmarkWrite(b *testing.B) {
	recs, file := benchFile(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w, _ := NewStreamWriter(discard{}, benchSchema(), WriterOptions{})
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := w.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	_, file := benchFile(b)
	b.SetBytes(int64(len(file)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := OpenBytes(file)
		if err != nil {
			b.Fatal(err)
		}
		recs, err := r.ReadAll(context.Background(), ScanOptions{BatchRows: 65536})
		if err != nil {
			b.Fatal(err)
		}
		for _, rec := range recs {
			rec.Release()
		}
	}
}

// BenchmarkTakeOneRow reads one row (id and a text value) of a
// 1M-row file by row range through a store, as a point lookup does:
// sparse reads only the row's chunks; whole-page decodes its pages.
func BenchmarkTakeOneRow(b *testing.B) {
	ctx := context.Background()
	s := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	const rows = 1 << 20
	ib := array.NewInt64Builder(memory.DefaultAllocator)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	for i := 0; i < rows; i++ {
		ib.Append(int64(i))
		sb.Append(fmt.Sprintf("v%d", i))
	}
	ia, sa := ib.NewArray(), sb.NewArray()
	file := writeOurs(b, s, WriterOptions{}, array.NewRecordBatch(s, []arrow.Array{ia, sa}, rows))
	ia.Release()
	sa.Release()
	store := objstore.NewMem()
	if err := store.Put(ctx, "f.lance", file); err != nil {
		b.Fatal(err)
	}
	r, err := Open(ctx, store, "f.lance")
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		ratio uint64
	}{{"sparse", 16}, {"whole-page", 1 << 62}} {
		b.Run(tc.name, func(b *testing.B) {
			defer func(old uint64) { sparseRatio = old }(sparseRatio)
			sparseRatio = tc.ratio
			for i := 0; b.Loop(); i++ {
				row := uint64(i*7919) % rows
				sc, err := r.Scan(ScanOptions{Ranges: []RowRange{{row, row + 1}}})
				if err != nil {
					b.Fatal(err)
				}
				rec, err := sc.Next(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if rec.Column(0).(*array.Int64).Value(0) != int64(row) {
					b.Fatal("wrong row")
				}
				rec.Release()
				sc.Close()
			}
		})
	}
}
