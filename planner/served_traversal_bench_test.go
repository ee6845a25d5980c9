package planner

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkServedTraversal is a prepared 1-hop and 2-hop traversal from
// one node, and a point lookup by primary key, as pgproxy serve runs them (the graph benchmark's point
// traversals, internal/graphbench): a local data directory with data
// files kept open, an edge table with src/dst indexes, and a lean client
// (pgconn, prepared once) so that allocs/op and the profile are the
// server's per-statement cost.
func BenchmarkServedTraversal(b *testing.B) {
	const persons = 20000
	dir := b.TempDir()
	st, err := objstore.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	st.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultReadHandles)
	ctx := context.Background()
	g, err := adapters.Open(ctx, st, adapters.Options{Create: true, Actor: "bench", Location: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Close)
	ts := startServerOn(b, g)
	c := ts.connectB(b)
	for _, s := range []string{
		"CREATE TABLE person (id bigint PRIMARY KEY, name text, age int)",
		"CREATE TABLE knows (src bigint NOT NULL, dst bigint NOT NULL, since int, w int) WITH (graph.kind = edge)",
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	var ps, ks strings.Builder
	x := uint64(1)
	for i := 1; i <= persons; i++ {
		fmt.Fprintf(&ps, "%d\tp%d\t%d\n", i, i, 18+i%60)
		for d := 0; d < 1+i%9; d++ { // out-degrees 1..9, about 5 on average
			x = x*6364136223846793005 + 1442695040888963407
			fmt.Fprintf(&ks, "%d\t%d\t%d\t%d\n", i, 1+(x>>33)%persons, 2000+d, (x>>20)%1000)
		}
	}
	pc := c.PgConn()
	if _, err := pc.CopyFrom(ctx, strings.NewReader(ps.String()), "COPY person FROM STDIN"); err != nil {
		b.Fatal(err)
	}
	if _, err := pc.CopyFrom(ctx, strings.NewReader(ks.String()), "COPY knows FROM STDIN"); err != nil {
		b.Fatal(err)
	}
	for _, s := range []string{"CREATE INDEX knows_src ON knows (src)", "CREATE INDEX knows_dst ON knows (dst)"} {
		if _, err := c.Exec(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []struct{ name, sql string }{
		{"1-hop names", "SELECT p.name FROM knows e JOIN person p ON p.id = e.dst WHERE e.src = $1 ORDER BY p.name, e.since"},
		{"2-hop count", "SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = $1"},
		{"point", "SELECT name, age FROM person WHERE id = $1"},
	} {
		b.Run(q.name, func(b *testing.B) {
			name := strings.ReplaceAll(q.name, " ", "_")
			if _, err := pc.Prepare(ctx, name, q.sql, nil); err != nil {
				b.Fatal(err)
			}
			params := [][]byte{nil}
			formats := []int16{0}
			var buf []byte
			run := func(id int64) int {
				buf = strconv.AppendInt(buf[:0], id, 10)
				params[0] = buf
				rr := pc.ExecPrepared(ctx, name, params, formats, nil)
				n := 0
				for rr.NextRow() {
					n++
				}
				if _, err := rr.Close(); err != nil {
					b.Fatal(err)
				}
				return n
			}
			if run(7) == 0 {
				b.Fatal("warm-up: no rows")
			}
			b.ReportAllocs()
			cpu0 := processCPU()
			n := 0
			for i := 0; b.Loop(); i++ {
				run(int64(i*7919)%persons + 1)
				n++
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(n), "cpu-ns/op")
		})
	}
}
