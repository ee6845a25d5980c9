package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pggraph/pggraph/pgerr"
)

// The sql suite: the write path through SQL, pgproxy against a
// PostgreSQL 15 started in the same run and loaded the same way (same
// DDL except pgproxy's edge-table clause, same COPY stream, same
// statements). PostgreSQL runs with its durable defaults (bench_sql_pg.go)
// so both sides acknowledge only what is on disk.
//
// Measured per server: 1-row INSERT autocommit latency (one client,
// p50/p99), INSERT throughput with 1, 4, 16 and 64 clients, durable
// rounds and fsyncs per commit, INSERT latency after 10 and after many
// prior commits (bench_sql_commit.go), a COPY of N rows
// (rows/s, MB/s, peak resident memory of the serving process), an UPDATE
// of 1% of the table and a DELETE of 1% of the nodes cascading to their
// edges. Issue targets: COPY >= 3x PostgreSQL, 1-row commit p50 <= 3x.
const (
	sqlBenchRows    = 10_000_000 // PGGRAPH_BENCH_SQL_ROWS
	sqlBenchSeconds = 5          // PGGRAPH_BENCH_SQL_SECONDS: each throughput run
)

var sqlBenchClients = []int{1, 4, 16, 64}

// sqlBenchSide is one server's numbers.
type sqlBenchSide struct {
	Server           string             `json:"server"`
	InsertP50us      float64            `json:"insert_autocommit_p50_us"`
	InsertP99us      float64            `json:"insert_autocommit_p99_us"`
	InsertRoundP50us []float64          `json:"insert_autocommit_p50_us_per_round"`
	InsertRowsPerSec map[string]float64 `json:"insert_rows_per_sec_by_clients"`
	// InsertRoundRowsPerSec: each round's rate, for the dispersion
	InsertRoundRowsPerSec map[string][]float64 `json:"insert_rows_per_sec_by_clients_per_round"`
	InsertRetries         int64                `json:"insert_serialization_retries"`
	CopyRows              int64                `json:"copy_rows"`
	CopyBytes             int64                `json:"copy_bytes"`
	CopySeconds           float64              `json:"copy_seconds"`
	CopyRowsPerSec        float64              `json:"copy_rows_per_sec"`
	CopyMBPerSec          float64              `json:"copy_mb_per_sec"`
	CopyPeakRSSMB         float64              `json:"copy_peak_rss_mb"`
	EdgeRows              int64                `json:"edge_rows"`
	UpdateRows            int64                `json:"update_rows"`
	UpdateSeconds         float64              `json:"update_seconds"`
	DeleteNodes           int64                `json:"delete_nodes"`
	DeleteCascaded        int64                `json:"delete_cascaded_edges"`
	DeleteSeconds         float64              `json:"delete_seconds"`
	PeakRSSProcessNote    string               `json:"peak_rss_process"`
	// WALSyncsPerCommit: PostgreSQL only (pg_stat_wal over the latency run).
	WALSyncsPerCommit float64 `json:"wal_syncs_per_commit,omitempty"`
	// CommitCost: pgproxy only, counted in process (bench_sql_commit.go).
	CommitCost *sqlCommitCost `json:"commit_cost,omitempty"`
	// History: 1-row INSERT p50 after 10 and after HistoryCommits prior
	// commits to one table.
	HistoryCommits  int64   `json:"history_commits"`
	InsertAfter10us float64 `json:"insert_p50_after_10_commits_us"`
	InsertAfterNus  float64 `json:"insert_p50_after_history_us"`
}

type sqlBenchReport struct {
	Kind       string         `json:"kind"`
	StartedAt  time.Time      `json:"started_at"`
	Rows       int64          `json:"rows"`
	Rounds     int            `json:"rounds"`
	Iterations int            `json:"latency_samples_per_round"`
	Seconds    int            `json:"throughput_seconds_per_run"`
	Results    []sqlBenchSide `json:"results"`
	// Ratios are pgproxy over PostgreSQL: for latencies and durations
	// lower is better, for rates higher is better.
	Ratios map[string]float64 `json:"ratios_pgproxy_vs_postgres"`
}

func init() {
	benchSuites = append(benchSuites, benchSuite{name: "sql", about: "SQL writes (INSERT latency/throughput, COPY, UPDATE 1%, DELETE cascade): pgproxy vs PostgreSQL 15 loaded the same way", run: runSQLBench})
}

// sqlTarget is one server under measurement.
type sqlTarget struct {
	name   string
	dsn    string
	pid    func(ctx context.Context, conn *pgx.Conn) (int, error) // the process that serves conn
	pidFor string
	// edgeClause turns a table into a graph edge table on pgproxy.
	edgeClause string
}

func envInt(env *runEnv, name string, def int64) (int64, error) {
	v, ok := env.getenv(name)
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < 1 {
		return 0, usagef("%s=%q is not a positive number", name, v)
	}
	return n, nil
}

func runSQLBench(ctx context.Context, env *runEnv, c benchConfig) error {
	rows, err := envInt(env, "PGGRAPH_BENCH_SQL_ROWS", sqlBenchRows)
	if err != nil {
		return err
	}
	secs, err := envInt(env, "PGGRAPH_BENCH_SQL_SECONDS", sqlBenchSeconds)
	if err != nil {
		return err
	}
	history, err := envInt(env, "PGGRAPH_BENCH_SQL_HISTORY", sqlBenchHistory)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.stderr, "bench sql: starting PostgreSQL 15 (durable settings) and pgproxy")
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
	targets := []sqlTarget{
		{name: "pgproxy", dsn: "postgres://bench@" + proxy.addr + "/main?sslmode=disable",
			pid:        func(context.Context, *pgx.Conn) (int, error) { return proxy.pid, nil },
			pidFor:     "the pgproxy process",
			edgeClause: " WITH (graph.kind = edge)"},
		{name: "postgresql-15", dsn: pg.connString(),
			pid: func(ctx context.Context, conn *pgx.Conn) (int, error) {
				var p int
				err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&p)
				return p, err
			},
			pidFor: "the PostgreSQL backend that ran the COPY"},
	}
	rep := sqlBenchReport{Kind: "sql", StartedAt: time.Now().UTC(), Rows: rows, Rounds: c.round,
		Iterations: c.iterations, Seconds: int(secs), Ratios: map[string]float64{}}
	sides := make([]sqlBenchSide, len(targets))
	for i, tg := range targets {
		sides[i] = sqlBenchSide{Server: tg.name, InsertRowsPerSec: map[string]float64{}, InsertRoundRowsPerSec: map[string][]float64{}, PeakRSSProcessNote: tg.pidFor}
		if err := sqlExec(ctx, tg.dsn, sqlBenchSchema(tg.edgeClause)...); err != nil {
			return fmt.Errorf("%s: schema: %w", tg.name, err)
		}
	}
	// Latency and throughput, round by round with the servers
	// interleaved so drift hits both alike.
	next := make([]int64, len(targets)) // next free id per server
	samples := make([][]time.Duration, len(targets))
	tput := make([]map[int][]float64, len(targets))
	for i := range tput {
		tput[i] = map[int][]float64{}
	}
	for r := range c.round {
		for i, tg := range targets {
			fmt.Fprintf(env.stderr, "\rbench sql: round %d/%d, %-14s INSERT latency          ", r+1, c.round, tg.name)
			var syncs0 int64
			if i == 1 {
				if syncs0, err = pgWALSyncs(ctx, tg.dsn); err != nil {
					return fmt.Errorf("%s: pg_stat_wal: %w", tg.name, err)
				}
			}
			lat, retries, err := sqlInsertLatency(ctx, tg.dsn, &next[i], c.iterations)
			if err != nil {
				return fmt.Errorf("%s: insert latency: %w", tg.name, err)
			}
			if i == 1 {
				// a backend reports its WAL statistics at most once a
				// second and when it exits (the latency run's has just
				// closed): wait for the report
				time.Sleep(1500 * time.Millisecond)
				syncs1, err := pgWALSyncs(ctx, tg.dsn)
				if err != nil {
					return fmt.Errorf("%s: pg_stat_wal: %w", tg.name, err)
				}
				// the latency run commits 10 warm-up rows and the samples
				sides[i].WALSyncsPerCommit = round3(float64(syncs1-syncs0) / float64(c.iterations+10))
			}
			samples[i] = append(samples[i], lat...)
			sides[i].InsertRoundP50us = append(sides[i].InsertRoundP50us, us(percentile(lat, 0.5)))
			sides[i].InsertRetries += retries
			for _, n := range sqlBenchClients {
				fmt.Fprintf(env.stderr, "\rbench sql: round %d/%d, %-14s INSERT x %2d clients     ", r+1, c.round, tg.name, n)
				rate, retries, err := sqlInsertThroughput(ctx, tg.dsn, &next[i], n, time.Duration(secs)*time.Second)
				if err != nil {
					return fmt.Errorf("%s: insert throughput (%d clients): %w", tg.name, n, err)
				}
				tput[i][n] = append(tput[i][n], rate)
				sides[i].InsertRetries += retries
			}
		}
	}
	for i := range targets {
		sides[i].InsertP50us = us(percentile(samples[i], 0.5))
		sides[i].InsertP99us = us(percentile(samples[i], 0.99))
		for _, n := range sqlBenchClients {
			sides[i].InsertRowsPerSec[strconv.Itoa(n)] = round3(median(tput[i][n]))
			for _, r := range tput[i][n] {
				sides[i].InsertRoundRowsPerSec[strconv.Itoa(n)] = append(sides[i].InsertRoundRowsPerSec[strconv.Itoa(n)], round3(r))
			}
		}
	}
	fmt.Fprintf(env.stderr, "\rbench sql: pgproxy        durable work per commit (in process)   ")
	cost, err := pgproxyCommitCost(ctx, c.dir, 50)
	if err != nil {
		return fmt.Errorf("pgproxy: commit cost: %w", err)
	}
	sides[0].CommitCost = &cost
	for i, tg := range targets {
		fmt.Fprintf(env.stderr, "\rbench sql: %-14s INSERT after %d prior commits    ", tg.name, history)
		a10, aN, err := sqlHistoryLatency(ctx, tg.dsn, history, 50)
		if err != nil {
			return fmt.Errorf("%s: history: %w", tg.name, err)
		}
		sides[i].HistoryCommits, sides[i].InsertAfter10us, sides[i].InsertAfterNus = history, us(a10), us(aN)
	}
	// The bulk part runs once per server: COPY, UPDATE 1%, DELETE cascade.
	for i, tg := range targets {
		if err := sqlBulk(ctx, env, tg, rows, &sides[i]); err != nil {
			return fmt.Errorf("%s: %w", tg.name, err)
		}
	}
	fmt.Fprintln(env.stderr)
	rep.Results = sides
	px, pgs := sides[0], sides[1]
	ratio := func(key string, a, b float64) {
		if b > 0 {
			rep.Ratios[key] = round3(a / b)
		}
	}
	ratio("insert_p50_latency", px.InsertP50us, pgs.InsertP50us)
	ratio("insert_p99_latency", px.InsertP99us, pgs.InsertP99us)
	for _, n := range sqlBenchClients {
		k := strconv.Itoa(n)
		ratio("insert_rows_per_sec_"+k+"_clients", px.InsertRowsPerSec[k], pgs.InsertRowsPerSec[k])
	}
	ratio("insert_p50_after_10_commits", px.InsertAfter10us, pgs.InsertAfter10us)
	ratio("insert_p50_after_history", px.InsertAfterNus, pgs.InsertAfterNus)
	if px.CommitCost != nil && pgs.WALSyncsPerCommit > 0 {
		ratio("fsyncs_per_commit", px.CommitCost.Fsyncs, pgs.WALSyncsPerCommit)
	}
	ratio("copy_rows_per_sec", px.CopyRowsPerSec, pgs.CopyRowsPerSec)
	ratio("copy_peak_rss", px.CopyPeakRSSMB, pgs.CopyPeakRSSMB)
	ratio("update_seconds", px.UpdateSeconds, pgs.UpdateSeconds)
	ratio("delete_cascade_seconds", px.DeleteSeconds, pgs.DeleteSeconds)
	writeSQLBenchTable(env.stdout, rep)
	return writeBenchFile(env, c.out, rep.Kind, rep.StartedAt, rep)
}

// sqlBenchSchema is the DDL both servers run; only the edge table's
// graph clause differs.
func sqlBenchSchema(edgeClause string) []string {
	return []string{
		"CREATE TABLE bench_kv (id int8 PRIMARY KEY, v text NOT NULL)",
		"CREATE TABLE bench_nodes (id int8 PRIMARY KEY, name text NOT NULL, score float8, payload text)",
		"CREATE TABLE bench_edges (src int8 NOT NULL REFERENCES bench_nodes (id) ON DELETE CASCADE, " +
			"dst int8 NOT NULL REFERENCES bench_nodes (id) ON DELETE CASCADE, weight float8)" + edgeClause,
		// PostgreSQL needs these for the cascade not to scan the edge
		// table once per deleted node; pgproxy maps them to its index path.
		"CREATE INDEX bench_edges_src ON bench_edges (src)",
		"CREATE INDEX bench_edges_dst ON bench_edges (dst)",
	}
}

func sqlConnect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	return pgx.ConnectConfig(ctx, cfg)
}

func sqlExec(ctx context.Context, dsn string, stmts ...string) error {
	conn, err := sqlConnect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

// isSerialization reports a 40001: a concurrent commit changed what the
// statement read; the client retries, as applications do.
func isSerialization(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == pgerr.SerializationFailure
}

const sqlInsert = "INSERT INTO bench_kv (id, v) VALUES ($1, $2)"

// insertOne runs one autocommit INSERT, retrying serialization failures
// (bounded), and returns how many retries it took.
func insertOne(ctx context.Context, conn *pgx.Conn, id int64) (int64, error) {
	var retries int64
	for {
		_, err := conn.Exec(ctx, sqlInsert, id, "value")
		if err == nil || !isSerialization(err) || retries >= 20 {
			return retries, err
		}
		retries++
	}
}

func sqlInsertLatency(ctx context.Context, dsn string, next *int64, n int) ([]time.Duration, int64, error) {
	conn, err := sqlConnect(ctx, dsn)
	if err != nil {
		return nil, 0, err
	}
	defer conn.Close(ctx)
	var retries int64
	for range 10 { // warm up: prepare the statement, touch the table
		*next++
		r, err := insertOne(ctx, conn, *next)
		if err != nil {
			return nil, 0, err
		}
		retries += r
	}
	out := make([]time.Duration, 0, n)
	for range n {
		*next++
		t0 := time.Now()
		r, err := insertOne(ctx, conn, *next)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, time.Since(t0))
		retries += r
	}
	return out, retries, nil
}

// sqlInsertThroughput runs clients connections inserting distinct keys
// for d and returns rows per second.
func sqlInsertThroughput(ctx context.Context, dsn string, next *int64, clients int, d time.Duration) (float64, int64, error) {
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		c, err := sqlConnect(ctx, dsn)
		if err != nil {
			return 0, 0, err
		}
		defer c.Close(ctx)
		conns[i] = c
	}
	ids := atomic.Int64{}
	ids.Store(*next)
	var done, retries atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	t0 := time.Now()
	deadline := t0.Add(d)
	for _, c := range conns {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				r, err := insertOne(ctx, c, ids.Add(1))
				if err != nil {
					errs <- err
					return
				}
				retries.Add(r)
				done.Add(1)
			}
		})
	}
	wg.Wait()
	el := time.Since(t0)
	*next = ids.Load()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	return float64(done.Load()) / el.Seconds(), retries.Load(), nil
}

// nodeRows generates the COPY text stream of n bench_nodes rows without
// holding them in memory, counting the bytes it produced.
type nodeRows struct {
	n, i  int64
	buf   []byte
	bytes int64
}

func (g *nodeRows) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		id := g.i
		g.buf = strconv.AppendInt(g.buf, id, 10)
		g.buf = append(g.buf, "\tnode-"...)
		g.buf = strconv.AppendInt(g.buf, id, 10)
		g.buf = append(g.buf, '\t')
		g.buf = strconv.AppendFloat(g.buf, float64(id%1000)/8, 'f', -1, 64)
		g.buf = append(g.buf, "\tpayload-"...)
		g.buf = strconv.AppendInt(g.buf, id*2654435761%1000003, 16)
		g.buf = append(g.buf, '\n')
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	k := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[k:])]
	g.bytes += int64(k)
	return k, nil
}

// edgeRows generates n bench_edges rows: node i -> node i+1.
type edgeRows struct {
	n, i int64
	buf  []byte
}

func (g *edgeRows) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i < g.n {
		g.buf = strconv.AppendInt(g.buf, g.i, 10)
		g.buf = append(g.buf, '\t')
		g.buf = strconv.AppendInt(g.buf, g.i+1, 10)
		g.buf = append(g.buf, "\t0.5\n"...)
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	k := copy(p, g.buf)
	g.buf = g.buf[:copy(g.buf, g.buf[k:])]
	return k, nil
}

// sqlBulk loads rows nodes (and rows/10 edges) with COPY, then updates 1%
// of the nodes and deletes 1% of them with their edges.
func sqlBulk(ctx context.Context, env *runEnv, tg sqlTarget, rows int64, side *sqlBenchSide) error {
	conn, err := sqlConnect(ctx, tg.dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	pid, err := tg.pid(ctx, conn)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "\rbench sql: %-14s COPY %d rows                 ", tg.name, rows)
	resetPeakRSS(pid)
	gen := &nodeRows{n: rows}
	t0 := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, gen, "COPY bench_nodes (id, name, score, payload) FROM STDIN")
	if err != nil {
		return fmt.Errorf("COPY bench_nodes: %w", err)
	}
	el := time.Since(t0)
	if tag.RowsAffected() != rows {
		return fmt.Errorf("COPY bench_nodes reported %d rows, sent %d", tag.RowsAffected(), rows)
	}
	side.CopyRows, side.CopyBytes, side.CopySeconds = rows, gen.bytes, round3(el.Seconds())
	side.CopyRowsPerSec = round3(float64(rows) / el.Seconds())
	side.CopyMBPerSec = round3(float64(gen.bytes) / 1e6 / el.Seconds())
	side.CopyPeakRSSMB = round3(float64(peakRSS(pid)) / (1 << 20))

	edges := max(rows/10, 1)
	fmt.Fprintf(env.stderr, "\rbench sql: %-14s COPY %d edges               ", tg.name, edges)
	if _, err := conn.PgConn().CopyFrom(ctx, &edgeRows{n: min(edges, rows-1)}, "COPY bench_edges (src, dst, weight) FROM STDIN"); err != nil {
		return fmt.Errorf("COPY bench_edges: %w", err)
	}
	side.EdgeRows = min(edges, rows-1)

	fmt.Fprintf(env.stderr, "\rbench sql: %-14s UPDATE 1%%                   ", tg.name)
	t0 = time.Now()
	tag, err = conn.Exec(ctx, "UPDATE bench_nodes SET score = score + 1 WHERE id % 100 = 0")
	if err != nil {
		return fmt.Errorf("UPDATE: %w", err)
	}
	side.UpdateSeconds = round3(time.Since(t0).Seconds())
	side.UpdateRows = tag.RowsAffected()

	var before, after int64
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM bench_edges").Scan(&before); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "\rbench sql: %-14s DELETE 1%% with cascade      ", tg.name)
	t0 = time.Now()
	tag, err = conn.Exec(ctx, "DELETE FROM bench_nodes WHERE id % 100 = 1")
	if err != nil {
		return fmt.Errorf("DELETE: %w", err)
	}
	side.DeleteSeconds = round3(time.Since(t0).Seconds())
	side.DeleteNodes = tag.RowsAffected()
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM bench_edges").Scan(&after); err != nil {
		return err
	}
	side.DeleteCascaded = before - after
	return nil
}

// resetPeakRSS clears pid's peak resident set (Linux clear_refs 5), so the
// next peakRSS reading covers only what follows. Best effort.
func resetPeakRSS(pid int) {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// peakRSS reads pid's VmHWM in bytes (0 when unavailable).
func peakRSS(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb << 10
		}
	}
	return 0
}

func writeSQLBenchTable(w io.Writer, rep sqlBenchReport) {
	fmt.Fprintf(w, "sql: %d rows COPY, %d rounds x %d INSERT samples, %ds per throughput run, PostgreSQL with durable defaults (fsync, synchronous_commit on)\n",
		rep.Rows, rep.Rounds, rep.Iterations, rep.Seconds)
	fmt.Fprintf(w, "%-14s %10s %10s %10s %10s %10s %10s %9s\n", "server", "ins p50 us", "ins p99 us", "ins/s x1", "ins/s x4", "ins/s x16", "ins/s x64", "retries")
	for _, s := range rep.Results {
		fmt.Fprintf(w, "%-14s %10.1f %10.1f %10.0f %10.0f %10.0f %10.0f %9d\n", s.Server, s.InsertP50us, s.InsertP99us,
			s.InsertRowsPerSec["1"], s.InsertRowsPerSec["4"], s.InsertRowsPerSec["16"], s.InsertRowsPerSec["64"], s.InsertRetries)
	}
	for _, s := range rep.Results {
		fmt.Fprintf(w, "%-14s per round: ins p50 us %v", s.Server, s.InsertRoundP50us)
		for _, n := range sqlBenchClients {
			fmt.Fprintf(w, "; x%d %v", n, s.InsertRoundRowsPerSec[strconv.Itoa(n)])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-14s %16s %18s\n", "server", "p50 after 10 us", "p50 after hist us")
	for _, s := range rep.Results {
		fmt.Fprintf(w, "%-14s %16.1f %18.1f  (history %d commits)\n", s.Server, s.InsertAfter10us, s.InsertAfterNus, s.HistoryCommits)
	}
	for _, s := range rep.Results {
		if s.CommitCost != nil {
			fmt.Fprintf(w, "%-14s per 1-row commit: %s\n", s.Server, fmtCommitCost(*s.CommitCost))
		}
		if s.WALSyncsPerCommit > 0 {
			fmt.Fprintf(w, "%-14s per 1-row commit: %.2f WAL syncs (pg_stat_wal; floor 1 round, 1 fsync)\n", s.Server, s.WALSyncsPerCommit)
		}
	}
	fmt.Fprintf(w, "%-14s %12s %10s %10s %12s %10s %12s %12s\n", "server", "COPY rows/s", "COPY MB/s", "COPY s", "peak RSS MB", "UPDATE s", "DELETE s", "cascaded")
	for _, s := range rep.Results {
		fmt.Fprintf(w, "%-14s %12.0f %10.1f %10.2f %12.1f %10.2f %12.2f %12d\n", s.Server, s.CopyRowsPerSec, s.CopyMBPerSec, s.CopySeconds,
			s.CopyPeakRSSMB, s.UpdateSeconds, s.DeleteSeconds, s.DeleteCascaded)
	}
	fmt.Fprintf(w, "COPY rows/s     pgproxy / PostgreSQL = %.2fx (target >= 3x)\n", rep.Ratios["copy_rows_per_sec"])
	fmt.Fprintf(w, "INSERT p50      pgproxy / PostgreSQL = %.2fx (target <= 3x)\n", rep.Ratios["insert_p50_latency"])
	fmt.Fprintf(w, "INSERT p99      pgproxy / PostgreSQL = %.2fx\n", rep.Ratios["insert_p99_latency"])
	for _, n := range sqlBenchClients {
		fmt.Fprintf(w, "INSERT/s x%-2d   pgproxy / PostgreSQL = %.2fx\n", n, rep.Ratios["insert_rows_per_sec_"+strconv.Itoa(n)+"_clients"])
	}
	fmt.Fprintf(w, "after 10        pgproxy / PostgreSQL = %.2fx (INSERT p50)\n", rep.Ratios["insert_p50_after_10_commits"])
	fmt.Fprintf(w, "after history   pgproxy / PostgreSQL = %.2fx (INSERT p50)\n", rep.Ratios["insert_p50_after_history"])
	fmt.Fprintf(w, "fsyncs/commit   pgproxy / PostgreSQL = %.2fx\n", rep.Ratios["fsyncs_per_commit"])
	fmt.Fprintf(w, "UPDATE 1%%       pgproxy / PostgreSQL = %.2fx (time)\n", rep.Ratios["update_seconds"])
	fmt.Fprintf(w, "DELETE cascade  pgproxy / PostgreSQL = %.2fx (time)\n", rep.Ratios["delete_cascade_seconds"])
}

// sqlBenchProxy is a pgproxy serve child process of this binary.
type sqlBenchProxy struct {
	addr string
	pid  int
	stop func()
}

// startSQLBenchProxy runs this binary's serve on a scratch root under dir
// and keeps its pid (for the peak-memory reading).
func startSQLBenchProxy(ctx context.Context, dir string) (*sqlBenchProxy, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp(dir, ".pgproxy-bench-sql-")
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, self, "serve", "--data", filepath.Join(root, "g"), "--listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(root)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		stop()
		return nil, fmt.Errorf("pgproxy serve did not start (%q): %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	addr := strings.TrimSuffix(strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0], ";")
	return &sqlBenchProxy{addr: addr, pid: cmd.Process.Pid, stop: stop}, nil
}
