package exec

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// countingSource wraps a MemTable and counts access paths.
type countingSource struct {
	*MemTable
	scans, lookups atomic.Int64
}

func (c *countingSource) Scan(ctx context.Context, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.scans.Add(1)
	return c.MemTable.Scan(ctx, req, emit)
}

func (c *countingSource) LookupKeys(ctx context.Context, col int, keys *Vec, req ScanRequest, emit func(arrow.RecordBatch, []uint64) error) error {
	c.lookups.Add(1)
	return c.MemTable.LookupKeys(ctx, col, keys, req, emit)
}

func peopleTable(t *testing.T, n int) (*MemCatalog, *countingSource) {
	t.Helper()
	cols := []ColumnDef{{Name: "id", Type: TInt8, NotNull: true}, {Name: "name", Type: TText}, {Name: "grp", Type: TInt4}}
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int64(i), "p" + itoa(int64(i)), int64(i % 10)}
	}
	mt, err := NewMemTable(cols, rows)
	if err != nil {
		t.Fatal(err)
	}
	mt.Keys = []int{0}
	src := &countingSource{MemTable: mt}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "people", Columns: cols, PrimaryKey: []int{0}, Source: src})
	return cat, src
}

func oneText(t *testing.T, r *Result) string {
	t.Helper()
	var parts []string
	for _, row := range r.Rows() {
		for _, v := range row {
			if v == nil {
				parts = append(parts, "NULL")
			} else {
				parts = append(parts, *v)
			}
		}
	}
	return strings.Join(parts, ",")
}

func TestKeyLookupAvoidsScan(t *testing.T) {
	cat, src := peopleTable(t, 5000)
	eng := &Engine{Catalog: cat}
	ctx := context.Background()
	cases := []struct {
		sql            string
		params         []any
		want           string
		scans, lookups int
	}{
		{"SELECT name FROM people WHERE id = 4242", nil, "p4242", 0, 1},
		{"SELECT name FROM people WHERE id = $1", []any{"17"}, "p17", 0, 1},
		{"SELECT name FROM people WHERE id IN (1, 2, 99999) ORDER BY 1", nil, "p1,p2", 0, 1},
		{"SELECT name FROM people WHERE id = 5 AND grp = 6", nil, "", 0, 1},
		{"SELECT count(*) FROM people WHERE grp = 3", nil, "500", 1, 0},
		{"SELECT name FROM people WHERE id = 2.5", nil, "", 1, 0},
	}
	for _, c := range cases {
		src.scans.Store(0)
		src.lookups.Store(0)
		r, err := eng.Query(ctx, nil, c.sql, c.params...)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if got := oneText(t, r); got != c.want {
			t.Errorf("%s: got %q want %q", c.sql, got, c.want)
		}
		if src.scans.Load() != int64(c.scans) || src.lookups.Load() != int64(c.lookups) {
			t.Errorf("%s: scans=%d lookups=%d, want %d/%d", c.sql, src.scans.Load(), src.lookups.Load(), c.scans, c.lookups)
		}
	}
}

func TestOverlayAppliesPendingWrites(t *testing.T) {
	cat, src := peopleTable(t, 10)
	deleted := map[uint64]bool{3: true, 4: true} // record 0, rows 3 and 4
	ins, err := NewMemTable(src.Cols, [][]any{{int64(100), "new", int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	td := cat.Table("", "people")
	td.Source = WithOverlay(src.MemTable, src.Cols, &Overlay{Deleted: func(a uint64) bool { return deleted[a] }, Inserts: ins.Records})
	eng := &Engine{Catalog: cat}
	r, err := eng.Query(context.Background(), nil, "SELECT count(*), string_agg(name, ' ' ORDER BY id) FILTER (WHERE id > 2 AND id < 6 OR id = 100) FROM people")
	if err != nil {
		t.Fatal(err)
	}
	if got := oneText(t, r); got != "9,p5 new" {
		t.Fatalf("got %q", got)
	}
}

func TestPreparedDescribeAndParams(t *testing.T) {
	cat, _ := peopleTable(t, 20)
	eng := &Engine{Catalog: cat}
	p, err := eng.Prepare("SELECT id, name, $2::text AS tag FROM people WHERE grp = $1 ORDER BY id LIMIT 2", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.ParamTypes) != 2 || p.ParamTypes[0] != TInt4 || p.ParamTypes[1] != TText {
		t.Fatalf("param types %v", p.ParamTypes)
	}
	wantCols := []Column{{Name: "id", TypeOID: OIDInt8, TypeLen: 8, TypeMod: -1, AttNum: 1}, {Name: "name", TypeOID: OIDText, TypeLen: -1, TypeMod: -1, AttNum: 2}, {Name: "tag", TypeOID: OIDText, TypeLen: -1, TypeMod: -1}}
	for i, c := range wantCols {
		g := p.Columns[i]
		g.TableOID = 0
		if g != c {
			t.Errorf("column %d: %+v want %+v", i, g, c)
		}
	}
	for _, params := range [][]any{{int64(3), "x"}, {"3", "x"}} {
		r, err := p.Execute(context.Background(), nil, params)
		if err != nil {
			t.Fatal(err)
		}
		if got := oneText(t, r); got != "3,p3,x,13,p13,x" {
			t.Fatalf("got %q", got)
		}
		if r.Tag != "SELECT 2" {
			t.Fatalf("tag %q", r.Tag)
		}
	}
	if _, err := p.Execute(context.Background(), nil, []any{int64(1)}); Code(err) != CodeProtocolViolation {
		t.Fatalf("missing parameter: %v", err)
	}
	if _, err := p.Execute(context.Background(), nil, []any{"abc", "x"}); Code(err) != CodeInvalidTextRepr {
		t.Fatalf("bad parameter: %v", err)
	}
}

// TestMemoryBudget: what cannot spill (a value built in memory) fails
// with 53200 past the statement's budget; what can (a sort) spills below
// it whatever work_mem says (workMem caps it at an eighth of the budget).
func TestMemoryBudget(t *testing.T) {
	eng := &Engine{MemoryLimit: 1 << 20}
	before := SpillBytesWritten()
	r, err := eng.Query(context.Background(), nil, "SELECT (array_agg(x))[1] FROM (SELECT x FROM generate_series(1, 1000000) x ORDER BY x DESC) s WHERE x < 2")
	if err != nil || oneText(t, r) != "1" || SpillBytesWritten() == before {
		t.Fatalf("1M-row sort under a 1 MB budget: %v (spilled %d bytes)", err, SpillBytesWritten()-before)
	}
	_, err = eng.Query(context.Background(), nil, "SELECT array_length(array_agg(x), 1) FROM generate_series(1, 1000000) x")
	if !IsOutOfMemory(err) {
		t.Fatalf("want 53200, got %v", err)
	}
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Detail, "memory budget") {
		t.Fatalf("error lacks a clear detail: %#v", err)
	}
	// the engine keeps working after a failed query
	r, err = eng.Query(context.Background(), nil, "SELECT count(*) FROM generate_series(1, 1000) x")
	if err != nil || oneText(t, r) != "1000" {
		t.Fatalf("after budget failure: %v", err)
	}
}

func TestCancellation(t *testing.T) {
	eng := &Engine{}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(20 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := eng.Query(ctx, nil, "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b")
	if !IsCanceled(err) {
		t.Fatalf("want 57014, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
}

func TestRecursionCap(t *testing.T) {
	eng := &Engine{RecursionLimit: 50}
	_, err := eng.Query(context.Background(), nil, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r")
	if Code(err) != CodeProgramLimitExceeded {
		t.Fatalf("want 54000, got %v", err)
	}
	r, err := eng.Query(context.Background(), nil, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 40) SELECT count(*) FROM r")
	if err != nil || oneText(t, r) != "40" {
		t.Fatalf("bounded recursion: %v", err)
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	eng := &Engine{}
	r, err := eng.Query(context.Background(), nil, "SELECT 1::int4 AS a, 'x' AS b, 2.5::numeric AS c, NULL::int8 AS d, '2024-01-02'::date AS e")
	if err != nil {
		t.Fatal(err)
	}
	recs := r.Records()
	if len(recs) != 1 || recs[0].NumRows() != 1 || recs[0].NumCols() != 5 {
		t.Fatalf("records %v", recs)
	}
	want := []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32}
	for i, w := range want {
		if !arrow.TypeEqual(recs[0].Schema().Field(i).Type, w) {
			t.Errorf("column %d: %s want %s", i, recs[0].Schema().Field(i).Type, w)
		}
	}
	if !recs[0].Column(3).IsNull(0) {
		t.Error("NULL lost")
	}
}

func TestErrorsCarrySQLSTATE(t *testing.T) {
	eng := &Engine{}
	cases := map[string]string{
		"SELECT 1/0":                      CodeDivisionByZero,
		"SELECT 2147483647 + 1":           CodeNumericOutOfRange,
		"SELEC 1":                         CodeSyntaxError,
		"SELECT * FROM nope":              CodeUndefinedTable,
		"SELECT x FROM (SELECT 1 AS y) s": CodeUndefinedColumn,
		"SELECT xmlelement(name a)":       CodeFeatureNotSupported,
		"SELECT 1; SELECT 2":              CodeSyntaxError,
	}
	for sql, code := range cases {
		_, err := eng.Query(context.Background(), nil, sql)
		if Code(err) != code {
			t.Errorf("%s: got %v (%s), want %s", sql, err, Code(err), code)
		}
	}
	_, err := eng.Query(context.Background(), nil, "SELECT 1/0")
	if !IsDivisionByZero(err) || IsFeatureNotSupported(err) {
		t.Error("predicates disagree with the code")
	}
}

func TestInSubqueryIsHashed(t *testing.T) {
	eng := &Engine{}
	start := time.Now()
	r, err := eng.Query(context.Background(), nil, `SELECT count(*) FILTER (WHERE x IN (SELECT y * 2 FROM generate_series(1, 50000) y)),
		count(*) FILTER (WHERE x NOT IN (SELECT y * 2 FROM generate_series(1, 50000) y)),
		count(*) FILTER (WHERE x NOT IN (SELECT NULL::int UNION ALL SELECT 1)) FROM generate_series(1, 50000) x`)
	if err != nil {
		t.Fatal(err)
	}
	if got := oneText(t, r); got != "25000,25000,0" {
		t.Fatalf("got %s", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("IN over 50k x 50k took %v (not hashed?)", d)
	}
}

func TestCommaJoinUsesHashKeys(t *testing.T) {
	eng := &Engine{}
	start := time.Now()
	r, err := eng.Query(context.Background(), nil, `SELECT count(*), sum(c.z) FROM generate_series(1, 30000) a, generate_series(1, 30000) b, (SELECT z FROM generate_series(1, 30000) z) c
		WHERE a = b AND c.z = b AND a % 2 = 0`)
	if err != nil {
		t.Fatal(err)
	}
	if got := oneText(t, r); got != "15000,225015000" {
		t.Fatalf("got %s", got)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("comma join took %v (nested loop?)", d)
	}
}

func TestConcurrentExecutions(t *testing.T) {
	cat, _ := peopleTable(t, 3000)
	eng := &Engine{Catalog: cat}
	p, err := eng.Prepare(`WITH g AS (SELECT grp, count(*) AS c FROM people WHERE id >= $1 GROUP BY grp)
		SELECT g.grp, g.c, (SELECT max(name) FROM people p WHERE p.grp = g.grp), row_number() OVER (ORDER BY g.grp DESC)
		FROM g WHERE g.grp IN (SELECT grp FROM people WHERE id < 5) ORDER BY 1 LIMIT 3`, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "0,300,p990,5,1,300,p991,4,2,300,p992,3"
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 5; i++ {
				r, err := p.Execute(context.Background(), nil, []any{int64(0)})
				if err != nil {
					errs <- err
					return
				}
				if got := oneText(t, r); got != want {
					errs <- errors.New("got " + got)
					return
				}
			}
			errs <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func TestErrorPositions(t *testing.T) {
	cat, _ := peopleTable(t, 1)
	eng := &Engine{Catalog: cat}
	cases := map[string]int32{
		"SELECT nosuch FROM people":         8,
		"SELECT id FROM people, missing":    24,
		"SELECT id, nofunc(id) FROM people": 12,
		"SELECT 'é', bad FROM people":       13,
		"SELECT FROM WHERE":                 13,
	}
	for sql, pos := range cases {
		_, err := eng.Query(context.Background(), nil, sql)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v is not an *Error", sql, err)
			continue
		}
		if e.Position != pos {
			t.Errorf("%s: error %v at %d, want position %d", sql, err, e.Position, pos)
		}
	}
}

func TestStreamDeliversBatchesAndStops(t *testing.T) {
	eng := &Engine{}
	p, err := eng.Prepare("SELECT x FROM generate_series(1, 5000) x", nil)
	if err != nil {
		t.Fatal(err)
	}
	var batches, rows int
	tag, err := p.Stream(context.Background(), nil, nil, func(b *Batch, _ *time.Location) error {
		batches++
		rows += b.N
		return nil
	})
	if err != nil || tag != "SELECT 5000" || rows != 5000 || batches < 2 {
		t.Fatalf("tag %q rows %d batches %d err %v", tag, rows, batches, err)
	}
	stop := errors.New("client went away")
	_, err = p.Stream(context.Background(), nil, nil, func(*Batch, *time.Location) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("want the callback's error, got %v", err)
	}
}
