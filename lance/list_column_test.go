package lance

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/internal/oracle"
)

// TestListColumnRoundTrip: a dataset with a list column (whose data file
// records the item's field id, as Lance does) scans, takes and appends,
// and the official Lance reads the same lists.
func TestListColumnRoundTrip(t *testing.T) {
	ctx := context.Background()
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "tags", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	mk := func(from, to int64) array.RecordReader {
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		defer b.Release()
		for id := from; id < to; id++ {
			b.Field(0).(*array.Int64Builder).Append(id)
			lb := b.Field(1).(*array.ListBuilder)
			if id%5 == 0 {
				lb.AppendNull()
			} else {
				lb.Append(true)
				for k := int64(0); k < id%3; k++ {
					lb.ValueBuilder().(*array.Int64Builder).Append(id*10 + k)
				}
			}
			b.Field(2).(*array.StringBuilder).Append("x")
		}
		rec := b.NewRecordBatch()
		defer rec.Release()
		rdr, err := array.NewRecordReader(sch, []arrow.RecordBatch{rec})
		if err != nil {
			t.Fatal(err)
		}
		return rdr
	}
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "l.lance", mk(0, 20), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageAppend(ctx, mk(20, 30), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	check := func(rec arrow.RecordBatch, i int, id int64) {
		t.Helper()
		if got := rec.Column(0).(*array.Int64).Value(i); got != id {
			t.Fatalf("row %d id %d, want %d", i, got, id)
		}
		l := rec.Column(1).(*array.List)
		if (id%5 == 0) != l.IsNull(i) {
			t.Fatalf("id %d: list null %v", id, l.IsNull(i))
		}
		if id%5 != 0 {
			lo, hi := l.ValueOffsets(i)
			vals := l.ListValues().(*array.Int64)
			if hi-lo != id%3 {
				t.Fatalf("id %d: %d items", id, hi-lo)
			}
			for k := lo; k < hi; k++ {
				if vals.Value(int(k)) != id*10+(k-lo) {
					t.Fatalf("id %d item %d = %d", id, k-lo, vals.Value(int(k)))
				}
			}
		}
	}
	sc, err := ds.Scan(ctx, ScanOptions{BatchRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for {
		rec, err := sc.Next(ctx)
		if err != nil {
			break
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			check(rec, i, n)
			n++
		}
		rec.Release()
	}
	sc.Close()
	if n != 30 {
		t.Fatalf("scanned %d rows", n)
	}
	rec, err := ds.Take(ctx, []uint64{RowAddress(1, 3), RowAddress(0, 7)}, []string{"id", "tags"}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	check(rec, 0, 23)
	check(rec, 1, 7)

	// the official Lance reads the same lists
	d := oracle.Read(t, dir, "l")
	if len(d.Rows) != 30 {
		t.Fatalf("Lance reads %d rows", len(d.Rows))
	}
	for _, r := range d.Rows {
		id, err := strconv.ParseInt(fmt.Sprint(r["id"]), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		var want any
		if id%5 != 0 {
			items := []string{}
			for k := int64(0); k < id%3; k++ {
				items = append(items, strconv.FormatInt(id*10+k, 10))
			}
			want = items
		}
		var got any
		if l, ok := r["tags"].([]any); ok {
			items := []string{}
			for _, v := range l {
				items = append(items, fmt.Sprint(v))
			}
			got = items
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Lance reads id %d tags %v, want %v", id, r["tags"], want)
		}
	}
}

// TestLanceWrittenListColumn: a dataset the official Lance writes with
// default settings, with a list column, scans exactly through package
// lance (DataFile.fields names the item field).
func TestLanceWrittenListColumn(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	cols := []oracle.Column{{Name: "id", Type: "int64"}, {Name: "tags", Type: "list:int64", Nullable: true}, {Name: "s", Type: "string", Nullable: true}}
	var rows []oracle.Row
	for id := int64(0); id < 300; id++ {
		r := oracle.Row{"id": strconv.FormatInt(id, 10), "s": fmt.Sprintf("s%d", id%7)}
		if id%5 != 0 {
			items := []any{}
			for k := int64(0); k < id%4; k++ {
				items = append(items, strconv.FormatInt(id*10+k, 10))
			}
			r["tags"] = items
		}
		rows = append(rows, r)
	}
	oracle.Create(t, dir, "lw", cols, rows)
	ds, err := Open(ctx, store, "lw.lance", Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Lance records the list's item (2), not the list (1)
	if f := ds.Fragments()[0].Files[0]; fmt.Sprint(f.Fields) != "[0 2 3]" {
		t.Fatalf("Lance's DataFile.fields: %v", f.Fields)
	}
	sc, err := ds.Scan(ctx, ScanOptions{BatchRows: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	n := int64(0)
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids := rec.Column(0).(*array.Int64)
		l := rec.Column(1).(*array.List)
		vals := l.ListValues().(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			id := ids.Value(i)
			if id != n {
				t.Fatalf("row %d has id %d", n, id)
			}
			if (id%5 == 0) != l.IsNull(i) {
				t.Fatalf("id %d: null %v", id, l.IsNull(i))
			}
			lo, hi := l.ValueOffsets(i)
			if id%5 != 0 && hi-lo != id%4 {
				t.Fatalf("id %d: %d items", id, hi-lo)
			}
			for k := lo; k < hi; k++ {
				if vals.Value(int(k)) != id*10+(k-lo) {
					t.Fatalf("id %d: item %d", id, vals.Value(int(k)))
				}
			}
			if got := rec.Column(2).(*array.String).Value(i); got != fmt.Sprintf("s%d", id%7) {
				t.Fatalf("id %d: s %q", id, got)
			}
			n++
		}
		rec.Release()
	}
	if n != 300 {
		t.Fatalf("%d rows", n)
	}
}
