package main

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// freeAddr returns a loopback address no listener holds right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// scrape fetches and parses the exposition at url.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse exposition: %v", err)
	}
	return fams
}

// sample sums the family's samples whose labels include want (counter
// and gauge values, histogram sample counts).
func sample(fams map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	f, ok := fams[name]
	if !ok {
		return 0, false
	}
	var sum float64
	found := false
next:
	for _, m := range f.GetMetric() {
		for k, v := range want {
			match := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					match = true
				}
			}
			if !match {
				continue next
			}
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum, found
}

// metricsWorkload runs statements of every kind the metrics count: DDL,
// inserts, a COPY, a failing statement, a serialization failure,
// a connection refused for an unknown branch, an optimize and a cleanup.
// While its second session holds a transaction open it scrapes once and
// returns that scrape (open transactions are a gauge).
func metricsWorkload(t *testing.T, addr, metricsURL string) (during map[string]*dto.MetricFamily) {
	t.Helper()
	ctx := context.Background()
	url := "postgres://alice@" + addr + "/main?sslmode=disable"
	a, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx)
	b, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(ctx)
	for _, sql := range []string{
		"CREATE TABLE t (id int8 PRIMARY KEY, v text)",
		"INSERT INTO t VALUES (1, 'a'), (2, 'b')",
		"INSERT INTO t VALUES (3, 'c')",
		"SELECT count(*) FROM t",
	} {
		if _, err := a.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if _, err := a.PgConn().CopyFrom(ctx, strings.NewReader("4\td\n5\te\n"), "COPY t FROM STDIN"); err != nil {
		t.Fatalf("COPY: %v", err)
	}
	if _, err := a.Exec(ctx, "SELECT * FROM missing"); !isCode(err, "42P01") {
		t.Fatalf("missing table: %v", err)
	}
	// a repeatable-read transaction updating a row another session
	// changed since its snapshot fails with 40001 (at the UPDATE or at
	// COMMIT)
	for _, sql := range []string{"BEGIN ISOLATION LEVEL REPEATABLE READ", "SELECT count(*) FROM t"} {
		if _, err := a.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	time.Sleep(20 * time.Millisecond) // the oldest transaction's age is > 0
	during = scrape(t, metricsURL)
	if _, err := b.Exec(ctx, "UPDATE t SET v = 'y' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = a.Exec(ctx, "UPDATE t SET v = 'z' WHERE id = 1")
	if err == nil {
		_, err = a.Exec(ctx, "COMMIT")
	} else {
		_, _ = a.Exec(ctx, "ROLLBACK")
	}
	if !isCode(err, "40001") {
		t.Fatalf("conflicting update: %v, want 40001", err)
	}
	// a write on a fork branch is not kept by the committed-table cache
	// (fork versions are opened from storage): a cache miss
	for _, sql := range []string{"SELECT graph.optimize('t')", "SELECT graph.cleanup()",
		"CALL graph.create_branch('metrics')", "SET graph.branch = 'metrics'", "INSERT INTO t VALUES (100, 'f')",
		"SELECT count(*) FROM t", "SET graph.branch = 'main'"} {
		if _, err := b.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	_, err = pgx.Connect(ctx, "postgres://alice@"+addr+"/nosuchbranch?sslmode=disable")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "3D000" {
		t.Fatalf("unknown branch: %v", err)
	}
	return during
}

// The metrics endpoint serves every documented metric with its type, and
// a workload moves each instrument it exercises: a metric that is
// declared but not wired to its event stays at zero and fails here.
func TestMetricsEndpoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "root")
	maddr := freeAddr(t)
	addr, stop, stderr := startServe(t, "--data", dir, "--metrics-listen", maddr)
	defer func() {
		if code := stop(); code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	}()
	murl := "http://" + maddr + "/metrics"
	before := scrape(t, murl)
	during := metricsWorkload(t, addr, murl)
	after := scrape(t, murl)

	// every metric docs/operations.md lists is served with its type
	for name, typ := range documentedMetrics(t) {
		f, ok := after[name]
		if !ok {
			t.Errorf("metric %s is not served", name)
			continue
		}
		if got := strings.ToLower(f.GetType().String()); got != typ {
			t.Errorf("metric %s has type %s, documented %s", name, got, typ)
		}
	}
	// every metric the sample Grafana dashboard queries is served (the
	// S3 read cache's only on an S3 root: those are documented)
	for _, name := range dashboardMetrics(t) {
		if _, ok := after[name]; ok {
			continue
		}
		if !strings.HasPrefix(name, "pggraph_cache_") || !strings.Contains(readDoc(t, "operations.md"), "`"+name+"`") {
			t.Errorf("docs/grafana-dashboard.json queries %s, which is not served", name)
		}
	}
	moved := []struct {
		name   string
		labels map[string]string
	}{
		{"pggraph_connections_total", map[string]string{"outcome": "established"}},
		{"pggraph_connections_total", map[string]string{"outcome": "refused"}},
		{"pggraph_statements_total", map[string]string{"kind": "insert", "sqlstate_class": "00"}},
		{"pggraph_statements_total", map[string]string{"kind": "ddl", "sqlstate_class": "00"}},
		{"pggraph_statements_total", map[string]string{"kind": "copy", "sqlstate_class": "00"}},
		{"pggraph_statements_total", map[string]string{"kind": "select", "sqlstate_class": "42"}},
		{"pggraph_statement_duration_seconds", map[string]string{"kind": "select"}},
		{"pggraph_conflicts_total", map[string]string{"sqlstate": "40001"}},
		{"pggraph_commits_total", map[string]string{"writer": "mutation", "sqlstate_class": "00"}},
		{"pggraph_commits_total", map[string]string{"writer": "load", "sqlstate_class": "00"}},
		{"pggraph_commits_total", map[string]string{"writer": "optimize", "sqlstate_class": "00"}},
		{"pggraph_commit_duration_seconds", nil},
		{"pggraph_commit_attempts", nil},
		{"pggraph_cleanup_runs_total", map[string]string{"mode": "reclaim", "outcome": "ok"}},
		{"pggraph_cleanup_duration_seconds", nil},
		{"pggraph_storage_requests_total", map[string]string{"op": "putifabsent", "outcome": "ok"}},
		{"pggraph_storage_requests_total", map[string]string{"op": "get"}},
		{"pggraph_storage_written_bytes_total", nil},
		{"pggraph_storage_read_bytes_total", nil},
		{"pggraph_storage_request_duration_seconds", nil},
		{"pggraph_cache_hits_total", map[string]string{"cache": "tables"}},
		{"pggraph_cache_misses_total", map[string]string{"cache": "tables"}},
	}
	for _, m := range moved {
		was, _ := sample(before, m.name, m.labels)
		now, ok := sample(after, m.name, m.labels)
		if !ok || now <= was {
			t.Errorf("%s%v did not move: %v -> %v (present %v)", m.name, m.labels, was, now, ok)
		}
	}
	if n, _ := sample(during, "pggraph_transactions_open", nil); n < 1 {
		t.Errorf("pggraph_transactions_open = %v while a transaction is open", n)
	}
	if age, _ := sample(during, "pggraph_transaction_oldest_age_seconds", nil); age <= 0 {
		t.Errorf("pggraph_transaction_oldest_age_seconds = %v while a transaction is open", age)
	}
	if n, _ := sample(during, "pggraph_connections", nil); n != 2 {
		t.Errorf("pggraph_connections = %v with two sessions open", n)
	}
	if b, _ := sample(after, "pggraph_query_memory_budget_bytes", nil); b != 2<<30 {
		t.Errorf("pggraph_query_memory_budget_bytes = %v, want the --server-query-memory default", b)
	}
}

// documentedMetrics reads the metric table of docs/operations.md: rows
// "| `pggraph_name` | type | ... |".
func documentedMetrics(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(readDoc(t, "operations.md"), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if !strings.HasPrefix(name, "pggraph_") || strings.ContainsAny(name, " {") {
			continue
		}
		out[name] = strings.TrimSpace(cells[2])
	}
	if len(out) < 20 {
		t.Fatalf("docs/operations.md lists %d metrics; the metric table is missing or malformed", len(out))
	}
	return out
}

// readDoc reads docs/name of this repository.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// dashboardMetrics lists the metrics docs/grafana-dashboard.json's
// queries name (histogram series by their family name).
func dashboardMetrics(t *testing.T) []string {
	t.Helper()
	var d struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal([]byte(readDoc(t, "grafana-dashboard.json")), &d); err != nil {
		t.Fatalf("docs/grafana-dashboard.json: %v", err)
	}
	seen := map[string]bool{}
	var out []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			for _, m := range metricName.FindAllString(tg.Expr, -1) {
				for _, suf := range []string{"_bucket", "_sum", "_count"} {
					if strings.HasSuffix(m, suf) && strings.Contains(m, "_seconds") {
						m = strings.TrimSuffix(m, suf)
					}
				}
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("docs/grafana-dashboard.json queries %d metrics; want its panels", len(out))
	}
	return out
}

// metricName matches the metric names of a PromQL expression.
var metricName = regexp.MustCompile(`\b(?:pggraph|go|process)_[a-z_]+\b`)
