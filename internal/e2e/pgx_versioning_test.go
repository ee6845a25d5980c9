package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPgxVersioning: time travel to the commit id SHOW graph.last_commit
// reported, read-only as-of snapshots, and a branch reached as a
// database whose writes main never sees.
func TestPgxVersioning(t *testing.T) {
	ctx := context.Background()
	p, conn := socialProxy(t, ctx)
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
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
	var last string
	if err := conn.QueryRow(ctx, "SHOW graph.last_commit").Scan(&last); err != nil || last == "" {
		t.Fatalf("SHOW graph.last_commit = %q, %v", last, err)
	}
	mustExec(t, ctx, conn, "DELETE FROM people WHERE id >= $1", int64(10))
	mustExec(t, ctx, conn, "SET graph.as_of = '"+last+"'")
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM knows WHERE dst = 1"); n != 12 {
		t.Fatalf("as of the batch commit Ada is known by %d, want 12", n)
	}
	_, err = conn.Exec(ctx, "INSERT INTO people (id, name) VALUES ($1, $2)", int64(30), "Late")
	mustState(t, err, "25006", "write to an as-of snapshot")
	mustExec(t, ctx, conn, "RESET graph.as_of")

	// a branch is a database
	mustExec(t, ctx, conn, "CALL graph.create_branch('pgx')")
	bconn, err := p.Connect(ctx, "pgx")
	if err != nil {
		t.Fatalf("connecting to branch pgx: %v", err)
	}
	defer bconn.Close(ctx)
	mustExec(t, ctx, bconn, "INSERT INTO people (id, name) VALUES ($1, $2)", int64(40), "Branch Only")
	mustExec(t, ctx, bconn, "UPDATE works_at SET role = $1 WHERE src = $2", "inventor", int64(1))
	if n := queryInt(t, ctx, bconn, "SELECT count(*) FROM people"); n != 7 {
		t.Fatalf("branch pgx has %d people, want 7", n)
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people"); n != 6 {
		t.Fatalf("main has %d people after a branch write, want 6", n)
	}
	var role string
	if err := conn.QueryRow(ctx, "SELECT role FROM works_at WHERE src = 1").Scan(&role); err != nil || role != "founder" {
		t.Fatalf("main's role = %q, %v; want founder", role, err)
	}
	_, err = p.Connect(ctx, "nope")
	mustState(t, err, "3D000", "connecting to a missing branch")
	p.alive(t)
}
