package planner

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// benchNodeText is the COPY text of n rows shaped like pgproxy bench's
// bench_nodes rows (cmd/pgproxy/bench_sql.go nodeRows).
func benchNodeText(n int) []byte {
	var b []byte
	for id := int64(0); id < int64(n); id++ {
		b = strconv.AppendInt(b, id, 10)
		b = append(b, "\tnode-"...)
		b = strconv.AppendInt(b, id, 10)
		b = append(b, '\t')
		b = strconv.AppendFloat(b, float64(id%1000)/8, 'f', -1, 64)
		b = append(b, "\tpayload-"...)
		b = strconv.AppendInt(b, id*2654435761%1000003, 16)
		b = append(b, '\n')
	}
	return b
}

// startLocalServer serves a fresh graph on the local (fsyncing) store in
// a temporary directory.
func startLocalServer(b *testing.B) *testServer {
	ctx := context.Background()
	st, err := objstore.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	g, err := adapters.Open(ctx, st, adapters.Options{Create: true, Actor: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Close)
	backend := NewBackend(g)
	srv, err := wire.NewServer(wire.Config{Backend: backend})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), ln) }()
	b.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	})
	return &testServer{addr: ln.Addr().String(), g: g, backend: backend}
}

// BenchmarkCopyNodes is an autocommit COPY of PGGRAPH_BENCH_ROWS rows
// (default 200k) into a fresh node table (int8 primary key, NOT NULL
// text) per iteration, on the in-memory store (the planner's COPY path:
// parsing, conversion, validation, staging, without disk) or, with
// PGGRAPH_BENCH_STORE=local, on the local store in a temporary directory.
func BenchmarkCopyNodes(b *testing.B) {
	rows := 200000
	if v, err := strconv.Atoi(os.Getenv("PGGRAPH_BENCH_ROWS")); err == nil && v > 0 {
		rows = v
	}
	data := benchNodeText(rows)
	ts := startServer(b, nil)
	if os.Getenv("PGGRAPH_BENCH_STORE") == "local" {
		ts = startLocalServer(b)
	}
	c := ts.connectB(b)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		name := fmt.Sprintf("nodes_%d", i)
		if _, err := c.Exec(ctx, "create table "+name+" (id int8 primary key, name text not null, score float8, payload text)"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tag, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(data), "COPY "+name+" (id, name, score, payload) FROM STDIN")
		if err != nil {
			b.Fatal(err)
		}
		if tag.RowsAffected() != int64(rows) {
			b.Fatalf("COPY reported %d rows, sent %d", tag.RowsAffected(), rows)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkCopyEdges is an autocommit COPY of PGGRAPH_BENCH_ROWS edges
// (default 200k, i -> i+1) whose two endpoints are probed in a node
// table of as many rows (loaded once, before timing).
func BenchmarkCopyEdges(b *testing.B) {
	rows := 200000
	if v, err := strconv.Atoi(os.Getenv("PGGRAPH_BENCH_ROWS")); err == nil && v > 0 {
		rows = v
	}
	ts := startServer(b, nil)
	if os.Getenv("PGGRAPH_BENCH_STORE") == "local" {
		ts = startLocalServer(b)
	}
	c := ts.connectB(b)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table nodes (id int8 primary key, name text not null, score float8, payload text)"); err != nil {
		b.Fatal(err)
	}
	if _, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(benchNodeText(rows+1)), "COPY nodes FROM STDIN"); err != nil {
		b.Fatal(err)
	}
	var edges []byte
	for i := int64(0); i < int64(rows); i++ {
		edges = strconv.AppendInt(edges, i, 10)
		edges = append(edges, '\t')
		edges = strconv.AppendInt(edges, i+1, 10)
		edges = append(edges, "\t0.5\n"...)
	}
	b.SetBytes(int64(len(edges)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		name := fmt.Sprintf("edges_%d", i)
		if _, err := c.Exec(ctx, "create table "+name+" (src int8 not null references nodes (id), dst int8 not null references nodes (id), weight float8) with (graph.kind = edge)"); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tag, err := c.PgConn().CopyFrom(ctx, bytes.NewReader(edges), "COPY "+name+" FROM STDIN")
		if err != nil {
			b.Fatal(err)
		}
		if tag.RowsAffected() != int64(rows) {
			b.Fatalf("COPY reported %d rows, sent %d", tag.RowsAffected(), rows)
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
