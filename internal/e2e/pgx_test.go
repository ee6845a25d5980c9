package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPgxSocialGraph runs the social-graph flow through pgx: binary COPY,
// parameterized statements (extended protocol), each constraint class,
// transactions and a pipelined batch, and a cascading delete.
func TestPgxSocialGraph(t *testing.T) {
	ctx := context.Background()
	p, conn := socialProxy(t, ctx)

	// two hops from Ada, parameterized
	rows, err := conn.Query(ctx, `SELECT DISTINCT p.name FROM knows a JOIN knows b ON b.src = a.dst
		JOIN people p ON p.id = b.dst WHERE a.src = $1 AND b.dst <> $1 ORDER BY p.name`, int64(1))
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || strings.Join(names, ",") != "Barbara,Ken" {
		t.Fatalf("two hops from Ada = %v, %v; want Barbara,Ken", names, err)
	}

	_, err = conn.Exec(ctx, "INSERT INTO people (id, name, email) VALUES ($1, $2, $3)", int64(1), "Dup", "dup@example.com")
	mustState(t, err, "23505", "duplicate primary key")
	_, err = conn.Exec(ctx, "INSERT INTO people (id, name, email) VALUES ($1, $2, $3)", int64(7), "Dup", "ada@example.com")
	mustState(t, err, "23505", "duplicate UNIQUE email")
	_, err = conn.Exec(ctx, "INSERT INTO people (id, name) VALUES ($1, $2)", int64(7), nil)
	mustState(t, err, "23502", "NULL name")
	_, err = conn.Exec(ctx, "UPDATE people SET age = $1 WHERE id = $2", int32(-3), int64(2))
	mustState(t, err, "23514", "negative age")
	_, err = conn.Exec(ctx, "INSERT INTO knows (src, dst) VALUES ($1, $2)", int64(1), int64(404))
	mustState(t, err, "23503", "edge to a missing node")
	_, err = conn.Exec(ctx, "DELETE FROM companies WHERE id = $1", int32(2))
	mustState(t, err, "23503", "RESTRICT delete")
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people"); n != 6 {
		t.Fatalf("failed statements changed people: %d rows", n)
	}

	// rollback, then a pipelined batch in one committed transaction
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO people (id, name) VALUES ($1, $2)", int64(7), "Alan"); err != nil {
		t.Fatal(err)
	}
	var seen int64
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM people WHERE id = 7").Scan(&seen); err != nil || seen != 1 {
		t.Fatalf("read-your-writes in a transaction: %d, %v", seen, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people WHERE id = 7"); n != 0 {
		t.Fatal("a rolled-back insert is visible")
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		for i := int64(10); i < 20; i++ {
			b.Queue("INSERT INTO people (id, name, age) VALUES ($1, $2, $3)", i, fmt.Sprintf("p%d", i), int32(i))
			b.Queue("INSERT INTO knows (src, dst, since) VALUES ($1, 1, 2026)", i)
		}
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		t.Fatalf("batch transaction: %v", err)
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM knows WHERE dst = 1"); n != 12 {
		t.Fatalf("Ada is known by %d people after the batch, want 12", n)
	}
	// ON DELETE CASCADE removes the edges in the same commit
	tag := mustExec(t, ctx, conn, "DELETE FROM people WHERE id >= $1", int64(10))
	if tag.RowsAffected() != 10 {
		t.Fatalf("DELETE removed %d rows, want 10", tag.RowsAffected())
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM knows WHERE dst = 1"); n != 2 {
		t.Fatalf("cascade left %d edges into Ada, want 2", n)
	}
	p.alive(t)
}
