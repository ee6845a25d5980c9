package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// BenchmarkSelect1 is the trivial query through the planner and exec.
func BenchmarkSelect1(b *testing.B) {
	ts := startServer(b, nil)
	c := ts.connectB(b)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var one int
		if err := c.QueryRow(ctx, "select 1").Scan(&one); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInsertAutocommit is a 1-row INSERT, each its own graph commit.
func BenchmarkInsertAutocommit(b *testing.B) {
	ts := startServer(b, nil)
	c := ts.connectB(b)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Exec(ctx, "insert into t values ($1, 'x')", int64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

func (ts *testServer) connectB(b *testing.B) *pgx.Conn {
	c, err := pgx.Connect(context.Background(), ts.url("main"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// BenchmarkInsertLargeTable is a 1-row INSERT into a 300k-row table (the
// primary-key probe reads the key column of the table version).
func BenchmarkInsertLargeTable(b *testing.B) {
	ts := startServer(b, nil)
	c := ts.connectB(b)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; i < 300000; i++ {
		fmt.Fprintf(&sb, "%d\tv\n", i)
	}
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(sb.String()), "COPY t FROM STDIN"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Exec(ctx, "insert into t values ($1, 'x')", int64(1000000+i)); err != nil {
			b.Fatal(err)
		}
	}
}
