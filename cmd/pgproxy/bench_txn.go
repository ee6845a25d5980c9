package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The txn suite: concurrent explicit transactions at READ COMMITTED
// (PostgreSQL's default, and what ORMs use without retrying), pgproxy
// against a PostgreSQL 15 with durable defaults started in the same run:
//
//   - pgbench's TPC-B (scale 1 and 10, -M prepared) with 1, 4 and 16
//     clients: TPS and failed transactions (no retries: --max-tries 1).
//     At scale 1 every transaction updates the one branch row, so
//     transactions run one at a time; at scale 10 ten branches let them
//     overlap (PGGRAPH_BENCH_TXN_SCALES, default "1,10");
//   - a bank transfer (200 accounts, 8 clients; BEGIN, two UPDATEs,
//     COMMIT, no retry): commits/s, failures, and the balance invariant;
//   - UPDATE of disjoint rows by 16 autocommit clients: updates/s and
//     failures.
//
// Issue targets: TPC-B with 4 clients 0 failures and >= 0.3x PostgreSQL's
// TPS; bank transfer >= 0.3x commits/s with the invariant held; disjoint
// rows never conflict.
const txnBenchSeconds = 5 // PGGRAPH_BENCH_TXN_SECONDS: each timed run

var txnBenchClients = []int{1, 4, 16}

var txnBenchScales = []int{1, 10}

type txnBenchSide struct {
	Server string `json:"server"`
	// keyed "s<scale>c<clients>"
	TPCBTps        map[string]float64 `json:"tpcb_tps_by_scale_clients"`
	TPCBFailed     map[string]int64   `json:"tpcb_failed_by_scale_clients"`
	BankCommits    float64            `json:"bank_commits_per_sec"`
	BankFailed     int64              `json:"bank_failed"`
	BankInvariant  bool               `json:"bank_invariant_held"`
	DisjointPerSec float64            `json:"disjoint_updates_per_sec"`
	DisjointFailed int64              `json:"disjoint_failed"`
}

type txnBenchReport struct {
	Kind      string             `json:"kind"`
	StartedAt time.Time          `json:"started_at"`
	Seconds   int                `json:"seconds_per_run"`
	Results   []txnBenchSide     `json:"results"`
	Ratios    map[string]float64 `json:"ratios_pgproxy_vs_postgres"`
}

func init() {
	benchSuites = append(benchSuites, benchSuite{name: "txn", about: "concurrent transactions at READ COMMITTED (pgbench TPC-B, bank transfer, disjoint-row UPDATE): pgproxy vs PostgreSQL 15", run: runTxnBench})
}

func runTxnBench(ctx context.Context, env *runEnv, c benchConfig) error {
	secs, err := envInt(env, "PGGRAPH_BENCH_TXN_SECONDS", txnBenchSeconds)
	if err != nil {
		return err
	}
	scales := txnBenchScales
	if v, ok := env.getenv("PGGRAPH_BENCH_TXN_SCALES"); ok && v != "" {
		scales = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return fmt.Errorf("PGGRAPH_BENCH_TXN_SCALES=%q: want scales like 1,10", v)
			}
			scales = append(scales, n)
		}
	}
	pgbench := "/usr/lib/postgresql/15/bin/pgbench"
	if _, err := os.Stat(pgbench); err != nil {
		return fmt.Errorf("bench txn: %s not found (apt-get install -y postgresql-15)", pgbench)
	}
	fmt.Fprintln(env.stderr, "bench txn: starting PostgreSQL 15 (durable settings) and pgproxy")
	pg, err := startDurablePostgres(ctx, c.dir)
	if err != nil {
		return err
	}
	defer pg.stop()
	proxy, err := startSQLBenchProxy(ctx, c.dir)
	if err != nil {
		return err
	}
	defer proxy.stop()
	targets := []struct{ name, dsn string }{
		{"pgproxy", "postgres://bench@" + proxy.addr + "/main?sslmode=disable"},
		{"postgresql-15", pg.connString()},
	}
	d := time.Duration(secs) * time.Second
	rep := txnBenchReport{Kind: "txn", StartedAt: time.Now().UTC(), Seconds: int(secs), Ratios: map[string]float64{}}
	for _, tg := range targets {
		side := txnBenchSide{Server: tg.name, TPCBTps: map[string]float64{}, TPCBFailed: map[string]int64{}}
		for _, sc := range scales {
			fmt.Fprintf(env.stderr, "\rbench txn: %-14s pgbench -i -s %-3d           ", tg.name, sc)
			if out, err := runPgbenchCmd(ctx, pgbench, "-i", "-q", "-s", strconv.Itoa(sc), tg.dsn); err != nil {
				return fmt.Errorf("%s: pgbench -i -s %d: %v\n%s", tg.name, sc, err, out)
			}
			for _, n := range txnBenchClients {
				fmt.Fprintf(env.stderr, "\rbench txn: %-14s pgbench TPC-B s %-3d x %2d clients ", tg.name, sc, n)
				out, err := runPgbenchCmd(ctx, pgbench, "-c", strconv.Itoa(n), "-j", strconv.Itoa(min(n, 4)), "-T", strconv.Itoa(int(secs)),
					"-M", "prepared", "--max-tries=1", tg.dsn)
				if err != nil {
					return fmt.Errorf("%s: pgbench -s %d -c %d: %v\n%s", tg.name, sc, n, err, out)
				}
				tps, failed, err := parsePgbench(out)
				if err != nil {
					return fmt.Errorf("%s: pgbench -s %d -c %d: %v\n%s", tg.name, sc, n, err, out)
				}
				k := tpcbKey(sc, n)
				side.TPCBTps[k], side.TPCBFailed[k] = round3(tps), failed
			}
		}
		fmt.Fprintf(env.stderr, "\rbench txn: %-14s bank transfer x 8 clients   ", tg.name)
		if side.BankCommits, side.BankFailed, side.BankInvariant, err = benchBank(ctx, tg.dsn, 200, 8, d); err != nil {
			return fmt.Errorf("%s: bank: %w", tg.name, err)
		}
		fmt.Fprintf(env.stderr, "\rbench txn: %-14s disjoint UPDATE x 16        ", tg.name)
		if side.DisjointPerSec, side.DisjointFailed, err = benchDisjoint(ctx, tg.dsn, 16, d); err != nil {
			return fmt.Errorf("%s: disjoint: %w", tg.name, err)
		}
		rep.Results = append(rep.Results, side)
	}
	fmt.Fprintln(env.stderr)
	px, pgs := rep.Results[0], rep.Results[1]
	ratio := func(key string, a, b float64) {
		if b > 0 {
			rep.Ratios[key] = round3(a / b)
		}
	}
	for _, sc := range scales {
		for _, n := range txnBenchClients {
			k := tpcbKey(sc, n)
			ratio("tpcb_tps_"+k, px.TPCBTps[k], pgs.TPCBTps[k])
		}
	}
	ratio("bank_commits_per_sec", px.BankCommits, pgs.BankCommits)
	ratio("disjoint_updates_per_sec", px.DisjointPerSec, pgs.DisjointPerSec)
	writeTxnBenchTable(env.stdout, rep, scales)
	return writeBenchFile(env, c.out, rep.Kind, rep.StartedAt, rep)
}

func runPgbenchCmd(ctx context.Context, bin string, args ...string) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(cctx, bin, args...).CombinedOutput()
	return string(out), err
}

var (
	pgbenchTPS    = regexp.MustCompile(`tps = ([0-9.]+)`)
	pgbenchFailed = regexp.MustCompile(`number of failed transactions: (\d+)`)
)

// parsePgbench reads TPS and failed transactions from pgbench's summary.
func parsePgbench(out string) (float64, int64, error) {
	m := pgbenchTPS.FindStringSubmatch(out)
	if m == nil {
		return 0, 0, errors.New("no tps in pgbench output")
	}
	tps, _ := strconv.ParseFloat(m[1], 64)
	var failed int64
	if f := pgbenchFailed.FindStringSubmatch(out); f != nil {
		failed, _ = strconv.ParseInt(f[1], 10, 64)
	}
	return tps, failed, nil
}

func txnConns(ctx context.Context, dsn string, n int) ([]*pgx.Conn, func(), error) {
	conns := make([]*pgx.Conn, 0, n)
	closeAll := func() {
		for _, c := range conns {
			c.Close(ctx)
		}
	}
	for range n {
		c, err := sqlConnect(ctx, dsn)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		conns = append(conns, c)
	}
	return conns, closeAll, nil
}

// benchBank runs transfers between random accounts for d and returns
// commits/s, failed transfers and whether the total is unchanged.
func benchBank(ctx context.Context, dsn string, accounts, clients int, d time.Duration) (float64, int64, bool, error) {
	if err := sqlExec(ctx, dsn, "DROP TABLE IF EXISTS bench_bank",
		"CREATE TABLE bench_bank (id int8 PRIMARY KEY, bal int8 NOT NULL)",
		fmt.Sprintf("INSERT INTO bench_bank SELECT g, 1000 FROM generate_series(1, %d) g", accounts)); err != nil {
		return 0, 0, false, err
	}
	conns, closeAll, err := txnConns(ctx, dsn, clients)
	if err != nil {
		return 0, 0, false, err
	}
	defer closeAll()
	commits, failed, el, err := runClients(ctx, conns, d, func(ci int, c *pgx.Conn) func() error {
		r := rand.New(rand.NewPCG(uint64(ci), 11))
		return func() error {
			from, to, amt := 1+r.IntN(accounts), 1+r.IntN(accounts), 1+r.IntN(10)
			tx, err := c.Begin(ctx)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, "UPDATE bench_bank SET bal = bal - $1 WHERE id = $2", amt, from); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "UPDATE bench_bank SET bal = bal + $1 WHERE id = $2", amt, to); err != nil {
				return err
			}
			return tx.Commit(ctx)
		}
	})
	if err != nil {
		return 0, 0, false, err
	}
	var total int64
	if err := conns[0].QueryRow(ctx, "SELECT sum(bal) FROM bench_bank").Scan(&total); err != nil {
		return 0, 0, false, err
	}
	return round3(float64(commits) / el.Seconds()), failed, total == int64(accounts)*1000, nil
}

// benchDisjoint runs clients autocommit UPDATEs, each of its own row,
// for d and returns updates/s and failures.
func benchDisjoint(ctx context.Context, dsn string, clients int, d time.Duration) (float64, int64, error) {
	if err := sqlExec(ctx, dsn, "DROP TABLE IF EXISTS bench_disjoint",
		"CREATE TABLE bench_disjoint (id int8 PRIMARY KEY, n int8 NOT NULL)",
		fmt.Sprintf("INSERT INTO bench_disjoint SELECT g, 0 FROM generate_series(1, %d) g", clients)); err != nil {
		return 0, 0, err
	}
	conns, closeAll, err := txnConns(ctx, dsn, clients)
	if err != nil {
		return 0, 0, err
	}
	defer closeAll()
	done, failed, el, err := runClients(ctx, conns, d, func(ci int, c *pgx.Conn) func() error {
		return func() error {
			_, err := c.Exec(ctx, "UPDATE bench_disjoint SET n = n + 1 WHERE id = $1", ci+1)
			return err
		}
	})
	if err != nil {
		return 0, 0, err
	}
	return round3(float64(done) / el.Seconds()), failed, nil
}

// runClients runs, on each connection concurrently until d has passed,
// the operation that newOp makes for it, counting the operations that
// succeeded and those that failed with a server error; any other error
// (a lost connection) ends the run.
func runClients(ctx context.Context, conns []*pgx.Conn, d time.Duration, newOp func(ci int, c *pgx.Conn) func() error) (ok, failed int64, elapsed time.Duration, err error) {
	var okN, failedN atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(conns))
	t0 := time.Now()
	deadline := t0.Add(d)
	for ci, c := range conns {
		op := newOp(ci, c)
		wg.Go(func() {
			for time.Now().Before(deadline) {
				err := op()
				var pe *pgconn.PgError
				switch {
				case err == nil:
					okN.Add(1)
				case errors.As(err, &pe):
					failedN.Add(1)
				default:
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed = time.Since(t0)
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, 0, err
	}
	return okN.Load(), failedN.Load(), elapsed, nil
}

// tpcbKey names a TPC-B run by scale and clients.
func tpcbKey(scale, clients int) string { return fmt.Sprintf("s%dc%d", scale, clients) }

func writeTxnBenchTable(w io.Writer, rep txnBenchReport, scales []int) {
	fmt.Fprintf(w, "txn: READ COMMITTED, no retries, %ds per run, PostgreSQL with durable defaults\n", rep.Seconds)
	for _, sc := range scales {
		fmt.Fprintf(w, "TPC-B scale %d      %9s %9s %9s %8s %8s %8s\n", sc, "tps x1", "tps x4", "tps x16", "fail x1", "fail x4", "fail x16")
		for _, s := range rep.Results {
			t, f := func(n int) float64 { return s.TPCBTps[tpcbKey(sc, n)] }, func(n int) int64 { return s.TPCBFailed[tpcbKey(sc, n)] }
			fmt.Fprintf(w, "  %-16s %9.1f %9.1f %9.1f %8d %8d %8d\n", s.Server, t(1), t(4), t(16), f(1), f(4), f(16))
		}
	}
	fmt.Fprintf(w, "%-18s %10s %7s %5s %11s %7s\n", "", "bank c/s", "bank f", "inv", "disj u/s", "disj f")
	for _, s := range rep.Results {
		fmt.Fprintf(w, "  %-16s %10.1f %7d %5v %11.1f %7d\n", s.Server, s.BankCommits, s.BankFailed, s.BankInvariant, s.DisjointPerSec, s.DisjointFailed)
	}
	for _, sc := range scales {
		for _, n := range txnBenchClients {
			fmt.Fprintf(w, "TPC-B TPS s%-2d x%-2d pgproxy / PostgreSQL = %.3fx (target scale 1 x4 >= 0.3x, 0 failures)\n", sc, n, rep.Ratios["tpcb_tps_"+tpcbKey(sc, n)])
		}
	}
	fmt.Fprintf(w, "bank commits/s    pgproxy / PostgreSQL = %.3fx (target >= 0.3x)\n", rep.Ratios["bank_commits_per_sec"])
	fmt.Fprintf(w, "disjoint UPDATE/s pgproxy / PostgreSQL = %.3fx\n", rep.Ratios["disjoint_updates_per_sec"])
}
