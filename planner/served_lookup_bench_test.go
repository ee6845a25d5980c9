package planner

import (
	"context"
	"strconv"
	"testing"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkServedLookup is a prepared point lookup as pgproxy serve runs
// it: a local data directory with data files kept open, and a lean
// client (pgconn, prepared once) so the profile is the server's.
func BenchmarkServedLookup(b *testing.B) {
	const rows = 300000
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
	createLookupTable(b, c, rows)
	pc := c.PgConn()
	if _, err := pc.Prepare(ctx, "look", "select v from t where id = $1", nil); err != nil {
		b.Fatal(err)
	}
	params := [][]byte{nil}
	formats := []int16{0}
	var buf []byte
	lookup := func(id int64) string {
		buf = strconv.AppendInt(buf[:0], id, 10)
		params[0] = buf
		rr := pc.ExecPrepared(ctx, "look", params, formats, nil)
		var v string
		for rr.NextRow() {
			v = string(rr.Values()[0])
		}
		if _, err := rr.Close(); err != nil {
			b.Fatal(err)
		}
		return v
	}
	if v := lookup(7); v != "v7" {
		b.Fatalf("warm-up: %q", v)
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	n := 0
	for i := 0; b.Loop(); i++ {
		id := int64(i*7919) % rows
		if v := lookup(id); v != "v"+strconv.FormatInt(id, 10) {
			b.Fatalf("id %d: %q", id, v)
		}
		n++
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(n), "cpu-ns/op")
}
