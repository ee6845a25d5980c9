package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// conflictCase is a pair of explicit transactions that touch the same
// data; committing both must fail exactly one with 40001.
type conflictCase struct {
	name string
	// work runs inside transaction i (0 or 1) before the commits race.
	work func(ctx context.Context, tx pgx.Tx, i int) error
	// check inspects the committed state (winner is 0 or 1; -1 when both
	// committed).
	check func(t *testing.T, ctx context.Context, conn *pgx.Conn, winner int)
	// disjoint: the transactions touch different tables, so both commit.
	disjoint bool
}

// conflictCases are the pairs both conflict tests run.
func conflictCases() []conflictCase {
	return []conflictCase{
		{name: "same row updated",
			work: func(ctx context.Context, tx pgx.Tx, i int) error {
				_, err := tx.Exec(ctx, "UPDATE people SET age = age + $1 WHERE id = 1", int32(10*(i+1)))
				return err
			},
			check: func(t *testing.T, ctx context.Context, conn *pgx.Conn, winner int) {
				if age := queryInt(t, ctx, conn, "SELECT age FROM people WHERE id = 1"); age != int64(36+10*(winner+1)) {
					t.Fatalf("age %d, want the winner's %d", age, 36+10*(winner+1))
				}
			}},
		{name: "read then insert (write skew)",
			work: func(ctx context.Context, tx pgx.Tx, i int) error {
				var n int64
				if err := tx.QueryRow(ctx, "SELECT count(*) FROM people WHERE age > 40").Scan(&n); err != nil {
					return err
				}
				// the new row is one the other transaction's count would
				// have counted: each insert changes what the other read, so
				// no serial order explains both (with an age outside the
				// predicate both may commit: read sets are per predicate)
				_, err := tx.Exec(ctx, "INSERT INTO people (id, name, age) VALUES ($1, $2, $3)", int64(100+i), fmt.Sprintf("c%d", i), int32(41+n))
				return err
			},
			check: func(t *testing.T, ctx context.Context, conn *pgx.Conn, winner int) {
				if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people WHERE id >= 100"); n != 1 {
					t.Fatalf("%d of the two inserts committed, want 1", n)
				}
				if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people WHERE id = $1", int64(100+winner)); n != 1 {
					t.Fatal("the committed row is not the winner's")
				}
			}},
		{name: "read then insert outside the predicate read", disjoint: true,
			work: func(ctx context.Context, tx pgx.Tx, i int) error {
				var n int64
				if err := tx.QueryRow(ctx, "SELECT count(*) FROM people WHERE age > 40").Scan(&n); err != nil {
					return err
				}
				// age 0: a row neither count includes, so both orders
				// explain the outcome and both commit (PostgreSQL's
				// relation-level lock of a sequential scan would fail one)
				_, err := tx.Exec(ctx, "INSERT INTO people (id, name, age) VALUES ($1, $2, 0)", int64(100+i), fmt.Sprintf("c%d", i))
				return err
			},
			check: func(t *testing.T, ctx context.Context, conn *pgx.Conn, winner int) {
				if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people WHERE id >= 100"); n != 2 {
					t.Fatalf("%d of the two inserts committed, want 2", n)
				}
			}},
		{name: "select for update",
			work: func(ctx context.Context, tx pgx.Tx, i int) error {
				var name string
				if err := tx.QueryRow(ctx, "SELECT name FROM companies WHERE id = 3 FOR UPDATE").Scan(&name); err != nil {
					return err
				}
				_, err := tx.Exec(ctx, "UPDATE companies SET name = $1 WHERE id = 3", fmt.Sprintf("%s %d", name, i))
				return err
			},
			check: func(t *testing.T, ctx context.Context, conn *pgx.Conn, winner int) {
				var name string
				if err := conn.QueryRow(ctx, "SELECT name FROM companies WHERE id = 3").Scan(&name); err != nil || name != fmt.Sprintf("Kernel Co %d", winner) {
					t.Fatalf("company name %q (%v), want the winner's", name, err)
				}
			}},
		{name: "disjoint tables both commit", disjoint: true,
			work: func(ctx context.Context, tx pgx.Tx, i int) error {
				table := []string{"people", "companies"}[i]
				_, err := tx.Exec(ctx, "UPDATE "+table+" SET name = name || '!' WHERE id = 1")
				return err
			},
			check: func(t *testing.T, ctx context.Context, conn *pgx.Conn, winner int) {
				if n := queryInt(t, ctx, conn, "SELECT (SELECT count(*) FROM people WHERE name = 'Ada!') + (SELECT count(*) FROM companies WHERE name LIKE '%!')"); n != 2 {
					t.Fatalf("%d of the two disjoint updates are visible, want 2", n)
				}
			}},
	}
}

// TestConflictingTransactions runs two clients in conflicting explicit
// transactions, their COMMITs racing: exactly one gets 40001
// serialization_failure and the other's effects are the committed state.
// A pair on disjoint tables is the control: both commit.
func TestConflictingTransactions(t *testing.T) {
	for _, c := range conflictCases() {
		t.Run(c.name, func(t *testing.T) {
			p := startProxy(t)
			runConflict(t, c, [2]*proxy{p, p})
		})
	}
}

// TestConflictAcrossProcesses runs the same pairs with each transaction
// on its own pgproxy process serving one root: the commit protocol, not
// process memory, decides the loser.
func TestConflictAcrossProcesses(t *testing.T) {
	for _, c := range conflictCases() {
		t.Run(c.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "graph")
			a := startProxyOn(t, data)
			b := startProxyOn(t, data)
			runConflict(t, c, [2]*proxy{a, b})
		})
	}
}

// runConflict loads the social graph through procs[0], runs c's two
// transactions (transaction i on procs[i]) and races their COMMITs.
func runConflict(t *testing.T, c conflictCase, procs [2]*proxy) {
	t.Helper()
	ctx := context.Background()
	setup, err := procs[0].Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)
	loadSocial(t, ctx, setup)
	var txs [2]pgx.Tx
	for i := range txs {
		conn, err := procs[i].Connect(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		// SERIALIZABLE: the write-skew pair conflicts only there (at
		// READ COMMITTED, PostgreSQL's default, both commit)
		if txs[i], err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable}); err != nil {
			t.Fatal(err)
		}
	}
	// each transaction works and commits on its own goroutine: in one
	// process a second writer of a locked row waits for the first
	// transaction's end (and then fails with 40001 at SERIALIZABLE), so
	// the loser may fail at its statement instead of its COMMIT
	var errs [2]error
	var wg sync.WaitGroup
	start := make(chan struct{})
	worked := [2]chan struct{}{make(chan struct{}), make(chan struct{})}
	for i, tx := range txs {
		wg.Go(func() {
			<-start
			err := c.work(ctx, tx, i)
			close(worked[i])
			if err != nil {
				errs[i] = err
				_ = tx.Rollback(ctx)
				return
			}
			// both transactions' work precedes both COMMITs, unless the
			// other one waits for a lock this one holds
			select {
			case <-worked[1-i]:
			case <-time.After(time.Second):
			}
			errs[i] = tx.Commit(ctx)
		})
	}
	close(start)
	wg.Wait()
	winner, losers := -1, 0
	for i, err := range errs {
		switch {
		case err == nil:
			winner = i
		case sqlState(err) == "40001":
			losers++
		default:
			t.Fatalf("COMMIT %d: %v (want success or 40001)", i, err)
		}
	}
	if c.disjoint {
		if losers != 0 {
			t.Fatalf("COMMIT results %v: transactions on different tables must both commit", errs)
		}
		winner = -1
	} else if winner < 0 || losers != 1 {
		t.Fatalf("COMMIT results %v: want exactly one 40001 and one success", errs)
	}
	c.check(t, ctx, setup, winner)
}
