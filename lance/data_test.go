package lance

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/lance/format"
	"github.com/pggraph/pggraph/objstore"
)

var rowSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}, nil)

// rowName is the name stored for id (nil every 4th row).
func rowName(id int64) *string {
	if id%4 == 0 {
		return nil
	}
	s := fmt.Sprintf("n%d", id)
	return &s
}

// rowsReader returns a reader over ids [from, to) in batches of batch.
func rowsReader(t *testing.T, from, to int64, batch int64) array.RecordReader {
	t.Helper()
	var recs []arrow.RecordBatch
	for lo := from; lo < to; lo += batch {
		hi := min(lo+batch, to)
		b := array.NewRecordBuilder(memory.DefaultAllocator, rowSchema)
		for id := lo; id < hi; id++ {
			b.Field(0).(*array.Int64Builder).Append(id)
			if n := rowName(id); n != nil {
				b.Field(1).(*array.StringBuilder).Append(*n)
			} else {
				b.Field(1).AppendNull()
			}
			b.Field(2).(*array.Float64Builder).Append(float64(id) / 2)
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	rdr, err := array.NewRecordReader(rowSchema, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rdr
}

type scannedRow struct {
	id    int64
	name  *string
	score float64
	addr  uint64
}

// rowsOf turns a record of (id, name, score, _rowaddr) into rows.
func rowsOf(rec arrow.RecordBatch) []scannedRow {
	ids := rec.Column(0).(*array.Int64)
	names := rec.Column(1).(*array.String)
	scores := rec.Column(2).(*array.Float64)
	addrs := rec.Column(3).(*array.Uint64)
	var out []scannedRow
	for i := 0; i < int(rec.NumRows()); i++ {
		r := scannedRow{id: ids.Value(i), score: scores.Value(i), addr: addrs.Value(i)}
		if names.IsValid(i) {
			s := names.Value(i)
			r.name = &s
		}
		out = append(out, r)
	}
	return out
}

func scanAll(t *testing.T, ds *Dataset, opts ScanOptions) []scannedRow {
	t.Helper()
	ctx := context.Background()
	opts.WithRowAddress = true
	sc, err := ds.Scan(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []scannedRow
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rowsOf(rec)...)
		rec.Release()
	}
	return out
}

// checkRows verifies that the scan returns exactly wantIDs with their values.
func checkRows(t *testing.T, rows []scannedRow, wantIDs []int64) {
	t.Helper()
	got := make([]int64, len(rows))
	for i, r := range rows {
		got[i] = r.id
		want := rowName(r.id)
		if (want == nil) != (r.name == nil) || (want != nil && *want != *r.name) || r.score != float64(r.id)/2 {
			t.Fatalf("row %d has wrong values: %+v", r.id, r)
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	if fmt.Sprint(got) != fmt.Sprint(wantIDs) {
		t.Fatalf("ids %v, want %v", got, wantIDs)
	}
}

func idRange(from, to int64, except ...int64) []int64 {
	skip := map[int64]bool{}
	for _, e := range except {
		skip[e] = true
	}
	var out []int64
	for i := from; i < to; i++ {
		if !skip[i] {
			out = append(out, i)
		}
	}
	return out
}

func TestDataLifecycle(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	ds, err := Create(ctx, store, "d.lance", rowsReader(t, 0, 100, 30), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, ds, ScanOptions{BatchRows: 7}), idRange(0, 100))

	// append in several fragments (MaxRowsPerFile 40 → 3 fragments)
	st, err := ds.StageAppend(ctx, rowsReader(t, 100, 200, 25), StageOptions{MaxRowsPerFile: 40})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = st.Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Fragments()) != 4 {
		t.Fatalf("fragments %d", len(ds.Fragments()))
	}
	rows := scanAll(t, ds, ScanOptions{})
	checkRows(t, rows, idRange(0, 200))
	addrOf := map[int64]uint64{}
	for _, r := range rows {
		addrOf[r.id] = r.addr
	}
	if addrOf[0] != RowAddress(0, 0) || addrOf[99] != RowAddress(0, 99) || addrOf[100] != RowAddress(1, 0) || addrOf[199] != RowAddress(3, 19) {
		t.Fatalf("addresses %x %x %x %x", addrOf[0], addrOf[99], addrOf[100], addrOf[199])
	}

	// a byte cap also cuts fragments (each batch of 25 rows is ~600 bytes)
	small, err := ds.StageAppend(ctx, rowsReader(t, 0, 100, 25), StageOptions{MaxBytesPerFile: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(small.Txn.Op.(*format.Append).Fragments); n < 2 {
		t.Fatalf("byte cap made %d fragments", n)
	}

	// delete by address
	st, err = ds.StageDelete(ctx, []uint64{addrOf[3], addrOf[50], addrOf[150]}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = st.Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, ds, ScanOptions{BatchRows: 16}), idRange(0, 200, 3, 50, 150))

	// update: rewrite rows 10 and 160 (delete + reinsert same values)
	st, err = ds.StageUpdate(ctx, []uint64{addrOf[10], addrOf[160]}, rowsReaderIDs(t, 10, 160), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = st.Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows = scanAll(t, ds, ScanOptions{})
	checkRows(t, rows, idRange(0, 200, 3, 50, 150))
	for _, r := range rows {
		if (r.id == 10 || r.id == 160) && r.addr>>32 != 4 {
			t.Fatalf("updated row %d not in the new fragment: %x", r.id, r.addr)
		}
	}

	// projection, row-address pushdown and take
	sub := scanAll(t, ds, ScanOptions{RowAddresses: []uint64{addrOf[0], addrOf[3], addrOf[120]}})
	checkRows(t, sub, []int64{0, 120})
	sc, err := ds.Scan(ctx, ScanOptions{Columns: []string{"score"}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sc.Next(ctx)
	if err != nil || rec.NumCols() != 1 || rec.Schema().Field(0).Name != "score" {
		t.Fatalf("projection %v %v", rec, err)
	}
	rec.Release()
	sc.Close()

	// addresses only: no data file is opened
	sc, err = ds.Scan(ctx, ScanOptions{Columns: []string{}, WithRowAddress: true, BatchRows: 33})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for {
		rec, err := sc.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.NumCols() != 1 {
			t.Fatalf("columns %d", rec.NumCols())
		}
		n += rec.NumRows()
		rec.Release()
	}
	sc.Close()
	if uint64(n) != ds.CountRows() {
		t.Fatalf("address-only scan saw %d rows, count is %d", n, ds.CountRows())
	}

	tk, err := ds.Take(ctx, []uint64{addrOf[120], addrOf[0], addrOf[120]}, []string{"id", "name"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if tk.NumRows() != 3 || tk.NumCols() != 2 || tk.Column(0).(*array.Int64).Value(0) != 120 || tk.Column(0).(*array.Int64).Value(1) != 0 || tk.Column(1).IsValid(1) {
		t.Fatalf("take %v", tk)
	}
	tk.Release()
	// every live row, in reverse order and once more sorted, across fragments
	live := scanAll(t, ds, ScanOptions{})
	var req []uint64
	for i := len(live) - 1; i >= 0; i-- {
		req = append(req, live[i].addr)
	}
	for _, r := range live {
		req = append(req, r.addr)
	}
	big, err := ds.Take(ctx, req, []string{"id"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if int(big.NumRows()) != len(req) {
		t.Fatalf("take rows %d", big.NumRows())
	}
	for i := range req {
		j := len(live) - 1 - i
		if i >= len(live) {
			j = i - len(live)
		}
		if big.Column(0).(*array.Int64).Value(i) != live[j].id || big.Column(1).(*array.Uint64).Value(i) != req[i] {
			t.Fatalf("take row %d out of order", i)
		}
	}
	big.Release()
	if empty, err := ds.Take(ctx, nil, nil, false); err != nil || empty.NumRows() != 0 || empty.NumCols() != 3 {
		t.Fatalf("empty take: %v %v", empty, err)
	} else {
		empty.Release()
	}
	if _, err := ds.Take(ctx, []uint64{addrOf[3]}, nil, false); !errors.Is(err, ErrRowNotFound) {
		t.Fatalf("take deleted: %v", err)
	}

	// older versions still read their own content
	v2, _ := ds.Checkout(ctx, 2)
	checkRows(t, scanAll(t, v2, ScanOptions{}), idRange(0, 200))

	// overwrite
	st, err = ds.StageOverwrite(ctx, rowsReader(t, 1000, 1010, 10), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds, err = st.Commit(ctx, CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, scanAll(t, ds, ScanOptions{}), idRange(1000, 1010))
	if ds.Fragments()[0].ID != 0 {
		t.Fatal("overwrite fragment ids start at 0")
	}
	// schema mismatch
	bad := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	brdr, _ := array.NewRecordReader(bad, nil)
	if _, err := ds.StageAppend(ctx, brdr, StageOptions{}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("schema mismatch: %v", err)
	}
}

// rowsReaderIDs returns one batch holding exactly the given ids.
func rowsReaderIDs(t *testing.T, ids ...int64) array.RecordReader {
	t.Helper()
	b := array.NewRecordBuilder(memory.DefaultAllocator, rowSchema)
	defer b.Release()
	for _, id := range ids {
		b.Field(0).(*array.Int64Builder).Append(id)
		if n := rowName(id); n != nil {
			b.Field(1).(*array.StringBuilder).Append(*n)
		} else {
			b.Field(1).AppendNull()
		}
		b.Field(2).(*array.Float64Builder).Append(float64(id) / 2)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rdr, err := array.NewRecordReader(rowSchema, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rdr
}
