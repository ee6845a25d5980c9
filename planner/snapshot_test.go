package planner

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/adapters"
)

// TestStatementsSeeNewHead: a statement prepared before a graph commit
// reads the new head when executed after it (each execution binds to the
// branch head), in both protocols.
func TestStatementsSeeNewHead(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	conns := map[string]*pgx.Conn{}
	for _, m := range modes {
		conns[m.name] = ts.connect(t, m.mode)
	}
	count := func(c *pgx.Conn) int64 {
		var n int64
		if err := c.QueryRow(ctx, "select count(*) from people where id > $1", int64(0)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for name, c := range conns {
		if n := count(c); n != 3 {
			t.Fatalf("%s: count before = %d", name, n)
		}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues([]int64{4, 5}, nil)
	b.Field(1).(*array.StringBuilder).AppendValues([]string{"cy", "di"}, nil)
	b.Field(2).(*array.Float64Builder).AppendValues([]float64{4, 5}, nil)
	rec := b.NewRecordBatch()
	if _, err := ts.g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("people", adapters.Batches(schema, rec))
	}); err != nil {
		t.Fatal(err)
	}
	for name, c := range conns {
		if n := count(c); n != 5 {
			t.Errorf("%s: count after commit = %d, want 5", name, n)
		}
	}
}
