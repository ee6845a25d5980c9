package planner

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// testServer is a wire server with the planner backend on loopback.
type testServer struct {
	addr    string
	g       *adapters.Graph
	backend *Backend
}

// startServer opens a fresh in-memory graph, lets setup write to it, and
// serves it.
func startServer(t testing.TB, setup func(ctx context.Context, g *adapters.Graph)) *testServer {
	t.Helper()
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	if setup != nil {
		setup(ctx, g)
	}
	return startServerOn(t, g)
}

// startServerOn serves an open graph on loopback until the test ends.
func startServerOn(t testing.TB, g *adapters.Graph) *testServer {
	t.Helper()
	backend := NewBackend(g)
	return serveBackend(t, g, backend, wire.Config{Backend: backend})
}

// serveBackend runs a protocol server configured by cfg (whose Backend is
// backend) on loopback until the test ends.
func serveBackend(t testing.TB, g *adapters.Graph, backend *Backend, cfg wire.Config) *testServer {
	t.Helper()
	srv, err := wire.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), ln) }()
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		<-done
	})
	return &testServer{addr: ln.Addr().String(), g: g, backend: backend}
}

func (ts *testServer) url(db string) string {
	return fmt.Sprintf("postgres://app@%s/%s?sslmode=disable", ts.addr, db)
}

func (ts *testServer) connect(t *testing.T, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(ts.url("main"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	c, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// createPeople writes table people(id int8 primary key, name text, score
// float8) with three rows in one graph commit.
func createPeople(t *testing.T) func(ctx context.Context, g *adapters.Graph) {
	return func(ctx context.Context, g *adapters.Graph) {
		cols := []graph.ColumnSpec{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		}
		schema := arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
			{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		}, nil)
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
		b.Field(1).(*array.StringBuilder).AppendValues([]string{"ada", "", "bob"}, []bool{true, false, true})
		b.Field(2).(*array.Float64Builder).AppendValues([]float64{1.5, 2.25, 0.1}, nil)
		rec := b.NewRecordBatch()
		_, err := g.Write(ctx, adapters.WriteOptions{Message: "people"}, func(ctx context.Context, s *adapters.Stage) error {
			if err := s.CreateTable(adapters.TableSpec{Name: "people", Kind: graph.NodeTable, Columns: cols, PrimaryKey: []string{"id"}}); err != nil {
				return err
			}
			return s.Insert("people", adapters.Batches(schema, rec))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// sqlState is the SQLSTATE of a server error, "" otherwise.
func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
