package exec

import (
	"context"
	"math"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"
)

// prefetchTable: 100k rows over many records (id, grp = id % 7, v with
// NaN every 1000th row, flag = id % 3 = 0).
func prefetchTable(t *testing.T) *Engine {
	t.Helper()
	cols := []ColumnDef{{Name: "id", Type: TInt8}, {Name: "grp", Type: TInt8}, {Name: "v", Type: TFloat8}, {Name: "flag", Type: TBool}}
	mt := &MemTable{Cols: cols, Keys: []int{0}}
	for lo := 0; lo < 100_000; lo += 4096 {
		n := min(4096, 100_000-lo)
		vecs := []*Vec{NewVec(TInt8, n), NewVec(TInt8, n), NewVec(TFloat8, n), NewVec(TBool, n)}
		for i := 0; i < n; i++ {
			id := int64(lo + i)
			vecs[0].I[i], vecs[1].I[i], vecs[3].B[i] = id, id%7, id%3 == 0
			vecs[2].F[i] = float64((id*7919)%100_003) / 10
			if id%1000 == 999 {
				vecs[2].F[i] = math.NaN()
			}
		}
		mt.Records = append(mt.Records, MemTableFromVecs(cols, vecs).Records...)
	}
	cat := NewMemCatalog()
	cat.Add(&TableDef{Name: "big", Columns: cols, Source: mt})
	return &Engine{Catalog: cat}
}

func TestPrefetchedAggregateAndTopN(t *testing.T) {
	eng := prefetchTable(t)
	ctx := context.Background()
	before := runtime.NumGoroutine()

	res, err := eng.Query(ctx, nil, "SELECT grp, count(*), sum(id) FROM big WHERE flag AND id >= 10 GROUP BY grp ORDER BY grp")
	if err != nil {
		t.Fatal(err)
	}
	cnt, sum := make([]int64, 7), make([]int64, 7)
	for id := int64(10); id < 100_000; id++ {
		if id%3 == 0 {
			cnt[id%7]++
			sum[id%7] += id
		}
	}
	for g, row := range res.Rows() {
		if *row[1] != strconv.FormatInt(cnt[g], 10) || *row[2] != strconv.FormatInt(sum[g], 10) {
			t.Fatalf("group %d: got %s %s want %d %d", g, *row[1], *row[2], cnt[g], sum[g])
		}
	}

	// top-N: NaN sorts above every number (first in DESC), ties by id
	type r struct {
		id int64
		v  float64
	}
	var all []r
	for id := int64(0); id < 100_000; id++ {
		v := float64((id*7919)%100_003) / 10
		if id%1000 == 999 {
			v = math.NaN()
		}
		all = append(all, r{id, v})
	}
	for _, desc := range []bool{true, false} {
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i], all[j]
			if c := cmpFloat(a.v, b.v); c != 0 {
				return (c > 0) == desc
			}
			return a.id < b.id
		})
		q := "SELECT id FROM big ORDER BY v DESC, id LIMIT 150"
		if !desc {
			q = "SELECT id FROM big ORDER BY v, id LIMIT 150"
		}
		res, err := eng.Query(ctx, nil, q)
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range res.Rows() {
			if *row[0] != strconv.FormatInt(all[i].id, 10) {
				t.Fatalf("%s: row %d is id %s, want %d", q, i, *row[0], all[i].id)
			}
		}
	}

	// errors on either side of the pipeline end the query cleanly
	for _, q := range []string{
		"SELECT sum(1 / (id - 50001)) FROM big WHERE flag",    // consumer (aggregate argument)
		"SELECT count(*) FROM big WHERE 1 / (id - 70000) > 0", // producer (filter)
	} {
		if _, err := eng.Query(ctx, nil, q); !IsDivisionByZero(err) {
			t.Fatalf("%s: want 22012, got %v", q, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := eng.Query(cctx, nil, "SELECT grp, count(*) FROM big WHERE flag GROUP BY grp"); Code(err) != CodeQueryCanceled {
		t.Fatalf("cancelled: want 57014, got %v", err)
	}
	// no producer goroutine outlives its query
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the queries, %d before", n, before)
	}
}

func TestPrefetchOnlyPlainInputs(t *testing.T) {
	eng := prefetchTable(t)
	cases := []struct {
		sql  string
		want bool
	}{
		{"SELECT grp, count(*) FROM big WHERE flag AND v > 3 GROUP BY grp", true},
		{"SELECT grp, count(*) FROM big GROUP BY grp", true},
		{"SELECT grp, count(*) FROM big WHERE id IN (SELECT 1) GROUP BY grp", false},
		{"SELECT grp, count(*) FROM big WHERE length(id::text) > 2 GROUP BY grp", false},
		// key lookups read a few rows: no second goroutine
		{"SELECT grp, count(*) FROM big WHERE id = 5 GROUP BY grp", false},
		{"SELECT grp, count(*) FROM big WHERE id IN (5, 6, 7) AND flag GROUP BY grp", false},
	}
	for _, c := range cases {
		p, err := eng.Prepare(c.sql, nil)
		if err != nil {
			t.Fatal(err)
		}
		var agg *aggNode
		var find func(pl plan)
		find = func(pl plan) {
			switch x := pl.(type) {
			case *aggNode:
				agg = x
			case *projectNode:
				find(x.input)
			case *sortNode:
				find(x.input)
			case *filterNode:
				find(x.input)
			}
		}
		find(p.plan)
		if agg == nil {
			t.Fatalf("%s: no aggregate in plan", c.sql)
		}
		if got := prefetchable(agg.input); got != c.want {
			t.Errorf("%s: prefetchable %v, want %v", c.sql, got, c.want)
		}
	}
}

// TestPrefetchConsumerPanic: a panic downstream of the pipeline still
// stops the producer goroutine.
func TestPrefetchConsumerPanic(t *testing.T) {
	eng := prefetchTable(t)
	p, err := eng.Prepare("SELECT id FROM big WHERE flag", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	pf := &prefetchNode{input: p.plan.(*projectNode).input}
	ec := &evalCtx{ctx: context.Background(), run: &runCtx{ctx: context.Background()}}
	func() {
		defer func() { _ = recover() }()
		_ = pf.run(ec, func(*Batch) error { panic("consumer bug") })
	}()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("producer goroutine leaked: %d goroutines, %d before", n, before)
	}
}
