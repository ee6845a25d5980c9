package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkTPCB is pgbench's TPC-B transaction (BEGIN; UPDATE accounts;
// SELECT; UPDATE tellers; UPDATE branches; INSERT history; COMMIT) at
// READ COMMITTED over real files (objstore.Local, fsynced as `pgproxy
// serve` writes them), prepared statements, 1 and 4 clients, scale 1
// with 10,000 accounts: the per-transaction cost in process, for
// profiling (go test -bench TPCB -cpuprofile). One op is one committed
// transaction; a failed one fails the benchmark.
func BenchmarkTPCB(b *testing.B) {
	for _, clients := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			dir := b.TempDir()
			st, err := objstore.NewLocal(dir)
			if err != nil {
				b.Fatal(err)
			}
			g, err := adapters.Open(context.Background(), st, adapters.Options{Create: true, Actor: "bench", Location: dir})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(g.Close)
			benchTPCB(b, startServerOn(b, g), clients, 10000)
		})
	}
}

func benchTPCB(b *testing.B, ts *testServer, clients, accounts int) {
	ctx := context.Background()
	setup := ts.connectB(b)
	for _, q := range []string{
		"create table pgbench_branches (bid int4 primary key, bbalance int4, filler char(88))",
		"create table pgbench_tellers (tid int4 primary key, bid int4, tbalance int4, filler char(84))",
		"create table pgbench_accounts (aid int4 primary key, bid int4, abalance int4, filler char(84))",
		"create table pgbench_history (tid int4, bid int4, aid int4, delta int4, mtime timestamp, filler char(22))",
		"insert into pgbench_branches values (1, 0, '')",
		"insert into pgbench_tellers select g, 1, 0, '' from generate_series(1, 10) g",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	var sb strings.Builder
	for i := 1; i <= accounts; i++ {
		fmt.Fprintf(&sb, "%d\t1\t0\t\n", i)
	}
	if _, err := setup.PgConn().CopyFrom(ctx, strings.NewReader(sb.String()), "COPY pgbench_accounts FROM STDIN"); err != nil {
		b.Fatal(err)
	}
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = ts.connectB(b)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	b.ResetTimer()
	cpu0 := processCPU()
	for ci, c := range conns {
		wg.Add(1)
		go func(ci int, c *pgx.Conn) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(ci), 3))
			for next.Add(1) <= int64(b.N) {
				aid, tid, delta := 1+r.IntN(accounts), 1+r.IntN(10), r.IntN(10001)-5000
				if err := tpcbTxn(ctx, c, aid, tid, 1, delta); err != nil {
					errs <- err
					return
				}
			}
		}(ci, c)
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
}

func tpcbTxn(ctx context.Context, c *pgx.Conn, aid, tid, bid, delta int) error {
	tx, err := c.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	if _, err := tx.Exec(ctx, "UPDATE pgbench_accounts SET abalance = abalance + $1 WHERE aid = $2", delta, aid); err != nil {
		return err
	}
	var bal int
	if err := tx.QueryRow(ctx, "SELECT abalance FROM pgbench_accounts WHERE aid = $1", aid).Scan(&bal); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE pgbench_tellers SET tbalance = tbalance + $1 WHERE tid = $2", delta, tid); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "UPDATE pgbench_branches SET bbalance = bbalance + $1 WHERE bid = $2", delta, bid); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ($1, $2, $3, $4, CURRENT_TIMESTAMP)", tid, bid, aid, delta); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// BenchmarkBankTransfer is the txn bench suite's bank transfer (200
// accounts, 8 clients; BEGIN; UPDATE; UPDATE; COMMIT at READ COMMITTED,
// no retry) over real files, in process, for profiling. One op is one
// committed transfer; a failed one fails the benchmark.
func BenchmarkBankTransfer(b *testing.B) {
	const accounts, clients = 200, 8
	dir := b.TempDir()
	st, err := objstore.NewLocal(dir)
	if err != nil {
		b.Fatal(err)
	}
	g, err := adapters.Open(context.Background(), st, adapters.Options{Create: true, Actor: "bench", Location: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(g.Close)
	ts := startServerOn(b, g)
	ctx := context.Background()
	setup := ts.connectB(b)
	for _, q := range []string{
		"CREATE TABLE acct (id int8 PRIMARY KEY, bal int8 NOT NULL)",
		fmt.Sprintf("INSERT INTO acct SELECT g, 1000 FROM generate_series(1, %d) g", accounts),
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = ts.connectB(b)
	}
	per := (b.N + clients - 1) / clients
	b.ResetTimer()
	cpu0 := processCPU()
	fails := bankTransfers(b, conns, accounts, per, false)
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(per*clients), "cpu-ns/op")
	commits, members := g.GroupStats()
	b.ReportMetric(float64(members)/float64(max(commits, 1)), "members/group")
	if len(fails) > 0 {
		b.Fatalf("failed transfers: %v", fails)
	}
}
