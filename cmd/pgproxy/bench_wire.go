package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// The wire suite: a trivial statement's round trip through a pgproxy
// server process and through a PostgreSQL 15 server started in the same
// run, plus throughput and connections per second. Two statements:
// SELECT 1 takes the whole path (planner, executor), SHOW TimeZone only
// the protocol layer, so the two ratios tell where time goes.
var wireBenchQueries = []string{"SELECT 1", "SHOW TimeZone"}

type wireTarget struct {
	name string
	dsn  string
}

type wireSideResult struct {
	Query        string    `json:"query"`
	Server       string    `json:"server"`
	P50us        float64   `json:"roundtrip_p50_us"`
	P99us        float64   `json:"roundtrip_p99_us"`
	RoundP50us   []float64 `json:"roundtrip_p50_us_per_round"`
	QueriesPerS  float64   `json:"queries_per_sec_4_conns"`
	ConnectsPerS float64   `json:"connections_per_sec"`
}

type wireBenchReport struct {
	Kind       string           `json:"kind"`
	StartedAt  time.Time        `json:"started_at"`
	Iterations int              `json:"iterations_per_round"`
	Rounds     int              `json:"rounds"`
	Results    []wireSideResult `json:"results"`
	// LatencyRatios maps each query to pgproxy's p50 over PostgreSQL's
	// (target <= 1.5).
	LatencyRatios map[string]float64 `json:"p50_latency_ratio_pgproxy_vs_postgres"`
}

func init() {
	benchSuites = append(benchSuites, benchSuite{
		name:  "wire",
		about: "trivial-query round trip, throughput and connections/s: pgproxy vs PostgreSQL 15 in the same run",
		run:   runWireBench,
	})
}

func runWireBench(ctx context.Context, env *runEnv, c benchConfig) error {
	fmt.Fprintln(env.stderr, "bench wire: starting PostgreSQL 15 and pgproxy")
	pg, err := pgtest.Start(ctx)
	if err != nil {
		return err
	}
	defer pg.Stop()
	addr, stopProxy, err := startProxyProcess(ctx, c.dir)
	if err != nil {
		return err
	}
	defer stopProxy()
	targets := []wireTarget{
		{"pgproxy", "postgres://bench@" + addr + "/main?sslmode=disable"},
		{"postgresql-15", pg.ConnString("postgres")},
	}
	rep := wireBenchReport{Kind: "wire", StartedAt: time.Now().UTC(), Iterations: c.iterations, Rounds: c.round,
		LatencyRatios: map[string]float64{}}
	for _, query := range wireBenchQueries {
		if err := wireBenchQuery(ctx, env, c, query, targets, &rep); err != nil {
			return err
		}
	}
	fmt.Fprintln(env.stderr)
	fmt.Fprintf(env.stdout, "wire: %d rounds x %d round trips per query (simple protocol, one connection)\n", c.round, c.iterations)
	fmt.Fprintf(env.stdout, "%-15s %-14s %10s %10s %-26s %12s %12s\n", "query", "server", "p50 us", "p99 us", "p50 per round", "queries/s(4)", "connects/s")
	for _, r := range rep.Results {
		var rs []string
		for _, v := range r.RoundP50us {
			rs = append(rs, fmt.Sprintf("%.0f", v))
		}
		fmt.Fprintf(env.stdout, "%-15s %-14s %10.1f %10.1f %-26s %12.0f %12.0f\n", r.Query, r.Server, r.P50us, r.P99us, strings.Join(rs, " "), r.QueriesPerS, r.ConnectsPerS)
	}
	for _, q := range wireBenchQueries {
		fmt.Fprintf(env.stdout, "%-15s pgproxy p50 / PostgreSQL p50 = %.2fx (target <= 1.5x)\n", q, rep.LatencyRatios[q])
	}
	return writeBenchFile(env, c.out, rep.Kind, rep.StartedAt, rep)
}

// wireBenchQuery measures one statement on every target, round by round.
func wireBenchQuery(ctx context.Context, env *runEnv, c benchConfig, query string, targets []wireTarget, rep *wireBenchReport) error {
	samples := make([][]time.Duration, len(targets))
	roundP50 := make([][]float64, len(targets))
	qps := make([][]float64, len(targets))
	cps := make([][]float64, len(targets))
	for r := range c.round {
		for i, tg := range targets {
			fmt.Fprintf(env.stderr, "\rbench wire: %s, round %d/%d, %-14s", query, r+1, c.round, tg.name)
			lat, err := wireLatency(ctx, tg.dsn, query, c.iterations)
			if err != nil {
				return fmt.Errorf("%s: %w", tg.name, err)
			}
			samples[i] = append(samples[i], lat...)
			roundP50[i] = append(roundP50[i], us(percentile(lat, 0.5)))
			q, err := wireThroughput(ctx, tg.dsn, query, 4, c.iterations*5)
			if err != nil {
				return fmt.Errorf("%s throughput: %w", tg.name, err)
			}
			qps[i] = append(qps[i], q)
			cp, err := wireConnects(ctx, tg.dsn, c.iterations/4+1)
			if err != nil {
				return fmt.Errorf("%s connections: %w", tg.name, err)
			}
			cps[i] = append(cps[i], cp)
		}
	}
	var p50s []float64
	for i, tg := range targets {
		res := wireSideResult{Query: query, Server: tg.name,
			P50us: us(percentile(samples[i], 0.5)), P99us: us(percentile(samples[i], 0.99)), RoundP50us: roundP50[i],
			QueriesPerS: round3(median(qps[i])), ConnectsPerS: round3(median(cps[i]))}
		rep.Results = append(rep.Results, res)
		p50s = append(p50s, res.P50us)
	}
	if p50s[1] > 0 {
		rep.LatencyRatios[query] = round3(p50s[0] / p50s[1])
	}
	return nil
}

// startProxyProcess runs this binary's `serve` on a scratch root and a
// free loopback port, and returns the address it printed.
func startProxyProcess(ctx context.Context, dir string) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	root, err := os.MkdirTemp(dir, ".pgproxy-bench-wire-")
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "serve", "--data", filepath.Join(root, "g"), "--listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		os.RemoveAll(root)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		stop()
		return "", nil, fmt.Errorf("pgproxy serve did not start (%q): %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	addr := strings.TrimSuffix(strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0], ";")
	return addr, stop, nil
}

func wireConnect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	return pgx.ConnectConfig(ctx, cfg)
}

// wireLatency measures n sequential round trips on one connection.
func wireLatency(ctx context.Context, dsn, query string, n int) ([]time.Duration, error) {
	conn, err := wireConnect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	var v any
	for range 20 { // warm up
		if err := conn.QueryRow(ctx, query).Scan(&v); err != nil {
			return nil, err
		}
	}
	out := make([]time.Duration, 0, n)
	for range n {
		t0 := time.Now()
		if err := conn.QueryRow(ctx, query).Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, time.Since(t0))
	}
	return out, nil
}

// wireThroughput runs total queries spread over conns connections and
// returns queries per second.
func wireThroughput(ctx context.Context, dsn, query string, conns, total int) (float64, error) {
	cs := make([]*pgx.Conn, conns)
	for i := range cs {
		c, err := wireConnect(ctx, dsn)
		if err != nil {
			return 0, err
		}
		defer c.Close(ctx)
		cs[i] = c
	}
	var wg sync.WaitGroup
	errs := make(chan error, conns)
	t0 := time.Now()
	for _, c := range cs {
		wg.Go(func() {
			var v any
			for range total / conns {
				if err := c.QueryRow(ctx, query).Scan(&v); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	el := time.Since(t0)
	close(errs)
	if err := <-errs; err != nil {
		return 0, err
	}
	return float64(total/conns*conns) / el.Seconds(), nil
}

// wireConnects opens and closes n connections in sequence and returns
// connections per second (startup, authentication, first ReadyForQuery).
func wireConnects(ctx context.Context, dsn string, n int) (float64, error) {
	t0 := time.Now()
	for range n {
		c, err := wireConnect(ctx, dsn)
		if err != nil {
			return 0, err
		}
		if err := c.Close(ctx); err != nil {
			return 0, err
		}
	}
	return float64(n) / time.Since(t0).Seconds(), nil
}

func us(d time.Duration) float64 { return round3(float64(d) / float64(time.Microsecond)) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s[len(s)/2]
}
