package planner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// bankTransfers runs clients × n transfers between random accounts of
// acct (BEGIN; UPDATE; UPDATE; COMMIT, no retry) and returns the
// failures by SQLSTATE and detail.
func bankTransfers(t testing.TB, conns []*pgx.Conn, accounts, n int, withHistory bool) map[string]int {
	ctx := context.Background()
	var mu sync.Mutex
	fails := map[string]int{}
	var wg sync.WaitGroup
	for ci, c := range conns {
		wg.Add(1)
		go func(ci int, c *pgx.Conn) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(ci), 7))
			for i := 0; i < n; i++ {
				from, to := 1+r.IntN(accounts), 1+r.IntN(accounts)
				amt := 1 + r.IntN(10)
				err := func() error {
					if _, err := c.Exec(ctx, "BEGIN"); err != nil {
						return err
					}
					if _, err := c.Exec(ctx, "UPDATE acct SET bal = bal - $1 WHERE id = $2", amt, from); err != nil {
						return err
					}
					if _, err := c.Exec(ctx, "UPDATE acct SET bal = bal + $1 WHERE id = $2", amt, to); err != nil {
						return err
					}
					if withHistory {
						if _, err := c.Exec(ctx, "INSERT INTO hist (src, dst, amt) VALUES ($1, $2, $3)", from, to, amt); err != nil {
							return err
						}
					}
					_, err := c.Exec(ctx, "COMMIT")
					return err
				}()
				if err != nil {
					_, _ = c.Exec(ctx, "ROLLBACK")
					key := err.Error()
					var pe *pgconn.PgError
					if errors.As(err, &pe) {
						key = pe.Code + " " + pe.Message + " / " + pe.Detail
					}
					mu.Lock()
					fails[key]++
					mu.Unlock()
				}
			}
		}(ci, c)
	}
	wg.Wait()
	return fails
}

// TestBankTransferInvariant: 8 clients move money between 200 accounts
// in explicit READ COMMITTED transactions without retrying; writers of
// one account wait for each other, so no transfer fails and the total
// is unchanged (and equals the history's view of every account).
func TestBankTransferInvariant(t *testing.T) {
	ts := startServer(t, nil)
	setup := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runSteps(t, []*pgx.Conn{setup}, []rcStep{
		{0, "create table acct (id int8 primary key, bal int8 not null)", ""},
		{0, "create table hist (src int8, dst int8, amt int8)", ""},
		{0, "insert into acct select g, 1000 from generate_series(1, 200) g", ""},
	})
	conns := make([]*pgx.Conn, 8)
	for i := range conns {
		conns[i] = ts.connect(t, pgx.QueryExecModeCacheStatement)
	}
	fails := bankTransfers(t, conns, 200, 15, true)
	if len(fails) > 0 {
		t.Fatalf("failed transfers: %v", fails)
	}
	if got := scalar(t, setup, "select sum(bal)::text from acct"); got != "200000" {
		t.Fatalf("total %s, want 200000", got)
	}
	if got := scalar(t, setup, "select count(*)::text from hist"); got != fmt.Sprint(8*15) {
		t.Fatalf("history rows %s", got)
	}
	// every account's balance is its start plus what the history moved
	if got := scalar(t, setup, `select count(*)::text from acct a where a.bal <> 1000
		+ coalesce((select sum(amt) from hist where dst = a.id), 0)
		- coalesce((select sum(amt) from hist where src = a.id), 0)`); got != "0" {
		t.Fatalf("%s accounts disagree with the history", got)
	}
}
