package file

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
