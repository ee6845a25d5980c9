package planner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestBackgroundOptimizeNeverFailsATransaction: an automatic compaction
// does not wait for open transactions (nor do they wait for it): it
// skips a table with rows locked by this process and compacts it once
// a later write finds none locked; the transaction commits.
func TestBackgroundOptimizeNeverFailsATransaction(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test", AutoOptimizeFragments: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	a := ts.connect(t, pgx.QueryExecModeExec)
	b := ts.connect(t, pgx.QueryExecModeExec)
	if _, err := a.Exec(ctx, "CREATE TABLE kv (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := a.Exec(ctx, "INSERT INTO kv VALUES ($1, 'x')", i); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := a.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE kv SET v = 'y' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	// another session's inserts cross the threshold while row 1 is
	// locked: they are acknowledged without waiting for the transaction
	for i := 10; i < 14; i++ {
		if _, err := b.Exec(ctx, "INSERT INTO kv VALUES ($1, 'x')", i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT after a background optimize started: %v", err)
	}
	// the next write finds no row locked: kv is compacted
	deadline := time.Now().Add(10 * time.Second)
	for n := 20; ; n++ {
		if _, err := b.Exec(ctx, "INSERT INTO kv VALUES ($1, 'x')", n); err != nil {
			t.Fatal(err)
		}
		if optimizedAfter(t, g, "") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the background optimize never ran")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var v string
	if err := a.QueryRow(ctx, "SELECT v FROM kv WHERE id = 1").Scan(&v); err != nil || v != "y" {
		t.Fatalf("row 1 = %q (%v)", v, err)
	}
}

// optimizedAfter reports an auto-optimize commit in the history after
// commit id after ("" = any).
func optimizedAfter(t *testing.T, g *adapters.Graph, after string) bool {
	t.Helper()
	cs, err := g.Commits(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	seen := after == ""
	for _, c := range cs { // oldest first
		if c.ID == after {
			seen = true
		}
		if seen && c.Actor == "auto-optimize" {
			return true
		}
	}
	return false
}

// TestCompactionKeepsTransactions: a compaction committed while
// transactions are open (VACUUM FULL of another session, or of another
// process on the same data directory) moves the rows they update or
// delete, and the rows they read: they still commit, with their changes
// applied to the moved rows, and their statements after it see each row
// once. Cases per isolation level; the rows touched are not changed by
// anyone else, so PostgreSQL 15 commits every one.
func TestCompactionKeepsTransactions(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	serve := func(create bool) *testServer {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: create, Actor: "test", Location: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		return startServerOn(t, g)
	}
	one := serve(true)
	a := one.connect(t, pgx.QueryExecModeCacheStatement)
	local := one.connect(t, pgx.QueryExecModeCacheStatement)          // a second session of a's process
	other := serve(false).connect(t, pgx.QueryExecModeCacheStatement) // another process
	exec := func(c *pgx.Conn, sql string, args ...any) {
		t.Helper()
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	count := func(q pgx.Tx) int64 {
		t.Helper()
		var n int64
		if err := q.QueryRow(ctx, "SELECT count(*) FROM kv").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, iso := range []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"} {
		for _, side := range []struct {
			name string
			c    *pgx.Conn
		}{{"same process", local}, {"other process", other}} {
			t.Run(iso+"/"+side.name, func(t *testing.T) {
				exec(a, "DROP TABLE IF EXISTS kv")
				exec(a, "CREATE TABLE kv (id int8 PRIMARY KEY, v text)")
				// small fragments, one with a deletion: all compacted
				for i := range 6 {
					exec(a, "INSERT INTO kv VALUES ($1, 'x'), ($2, 'x')", 2*i, 2*i+1)
				}
				exec(a, "DELETE FROM kv WHERE id = 0")
				tx, err := a.BeginTx(ctx, pgx.TxOptions{IsoLevel: isoOf(iso)})
				if err != nil {
					t.Fatal(err)
				}
				defer tx.Rollback(ctx)
				if n := count(tx); n != 11 {
					t.Fatalf("count %d before, want 11", n)
				}
				if _, err := tx.Exec(ctx, "UPDATE kv SET v = 'y' WHERE id = 3"); err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(ctx, "DELETE FROM kv WHERE id = 5"); err != nil {
					t.Fatal(err)
				}
				exec(side.c, "VACUUM FULL kv")
				// READ COMMITTED: a new snapshot, with the rows moved
				if _, err := tx.Exec(ctx, "UPDATE kv SET v = 'z' WHERE id = 7"); err != nil {
					t.Fatal(err)
				}
				if n := count(tx); n != 10 {
					t.Fatalf("count %d after the compaction, want 10 (each row once)", n)
				}
				if err := tx.Commit(ctx); err != nil {
					var pe *pgconn.PgError
					if errors.As(err, &pe) {
						t.Fatalf("COMMIT after a compaction: %v (%s)", err, pe.Detail)
					}
					t.Fatalf("COMMIT after a compaction: %v", err)
				}
				rows, err := other.Query(ctx, "SELECT id, v FROM kv ORDER BY id")
				if err != nil {
					t.Fatal(err)
				}
				got := map[int64]string{}
				var n int
				for rows.Next() {
					var id int64
					var v string
					if err := rows.Scan(&id, &v); err != nil {
						t.Fatal(err)
					}
					got[id] = v
					n++
				}
				if rows.Err() != nil {
					t.Fatal(rows.Err())
				}
				if n != 10 || got[3] != "y" || got[7] != "z" || got[1] != "x" {
					t.Fatalf("after COMMIT: %d rows %v", n, got)
				}
				if _, gone := got[5]; gone {
					t.Fatal("row 5 was not deleted")
				}
			})
		}
	}
}

func isoOf(s string) pgx.TxIsoLevel {
	switch s {
	case "REPEATABLE READ":
		return pgx.RepeatableRead
	case "SERIALIZABLE":
		return pgx.Serializable
	}
	return pgx.ReadCommitted
}

// TestCompactionKeepsConflicts: a row the transaction updates, moved by
// another process's compaction and then updated there, is still a
// write-write conflict (40001 at COMMIT across processes): the address
// is followed through the compaction, not forgotten.
func TestCompactionKeepsConflicts(t *testing.T) {
	ctx := context.Background()
	// without a key, only the followed address finds the conflict (a
	// key's re-insertion would find it too)
	for _, create := range []string{"CREATE TABLE kv (id int8 PRIMARY KEY, v text)", "CREATE TABLE kv (id int8, v text)"} {
		t.Run(create, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "g")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			var conns []*pgx.Conn
			for i := range 2 {
				st, err := objstore.NewLocal(dir)
				if err != nil {
					t.Fatal(err)
				}
				g, err := adapters.Open(ctx, st, adapters.Options{Create: i == 0, Actor: "test", Location: dir})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(g.Close)
				conns = append(conns, startServerOn(t, g).connect(t, pgx.QueryExecModeCacheStatement))
			}
			a, other := conns[0], conns[1]
			for _, sql := range []string{create, "INSERT INTO kv VALUES (1, 'x'), (2, 'x')", "INSERT INTO kv VALUES (3, 'x'), (4, 'x')"} {
				if _, err := a.Exec(ctx, sql); err != nil {
					t.Fatal(err)
				}
			}
			tx, err := a.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, "UPDATE kv SET v = 'mine' WHERE id = 3"); err != nil {
				t.Fatal(err)
			}
			for _, sql := range []string{"VACUUM FULL kv", "UPDATE kv SET v = 'theirs' WHERE id = 3"} {
				if _, err := other.Exec(ctx, sql); err != nil {
					t.Fatal(err)
				}
			}
			var pe *pgconn.PgError
			if err := tx.Commit(ctx); !errors.As(err, &pe) || pe.Code != "40001" {
				t.Fatalf("COMMIT = %v, want 40001", err)
			}
			var n int
			var v string
			if err := a.QueryRow(ctx, "SELECT count(*), max(v) FROM kv WHERE id = 3").Scan(&n, &v); err != nil || n != 1 || v != "theirs" {
				t.Fatalf("row 3: %d versions, %q (%v)", n, v, err)
			}
		})
	}
}

// TestStaleSnapshotLocksMovedRow: a REPEATABLE READ transaction whose
// snapshot predates a compaction updates a row the compaction moved; a
// DELETE of the same row on a newer snapshot (at its new address; a
// DELETE takes no key lock) waits for it, as in PostgreSQL, then deletes
// the updated row, instead of both going on and the transaction's
// COMMIT failing with 40001.
func TestStaleSnapshotLocksMovedRow(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	a := ts.connect(t, pgx.QueryExecModeExec)
	b := ts.connect(t, pgx.QueryExecModeExec)
	if _, err := a.Exec(ctx, "CREATE TABLE kv (id int8 PRIMARY KEY, v int8)"); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := a.Exec(ctx, "INSERT INTO kv VALUES ($1, 0)", i); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := a.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := tx.QueryRow(ctx, "SELECT v FROM kv WHERE id = 1").Scan(&v); err != nil {
		t.Fatal(err)
	}
	// the four 1-row fragments are merged: every row moves
	if _, err := g.Optimize(ctx, "", "kv"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "UPDATE kv SET v = v + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, "DELETE FROM kv WHERE id = 1")
		done <- err
	}()
	// the writer waits for the transaction (pg_locks shows its
	// ungranted request); before the fix it updated the row at once
	watcher := ts.connect(t, pgx.QueryExecModeExec)
	for {
		var n int
		if err := watcher.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the writer did not wait for the transaction holding the moved row (err %v)", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatalf("COMMIT of the transaction the writer should have waited for: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	var n int
	if err := a.QueryRow(ctx, "SELECT count(*) FROM kv WHERE id = 1").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows with id 1 left (%v), want the updated row deleted", n, err)
	}
}
