package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// The sql suite runs end to end on a small table against a pgproxy
// process and a PostgreSQL 15, and reports both sides and their ratios.
func TestBenchSQLSuite(t *testing.T) {
	pgtest.SkipShort(t, "PostgreSQL 15")
	t.Setenv("PGGRAPH_TEST_AS_PGPROXY", "1")
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	env := map[string]string{"PGGRAPH_BENCH_SQL_ROWS": "3000", "PGGRAPH_BENCH_SQL_SECONDS": "1", "PGGRAPH_BENCH_SQL_HISTORY": "40"}
	code, stdout, stderr := runCmd(t, env, "bench", "--suite", "sql", "--dir", dir, "--iterations", "10", "--rounds", "1", "--out", out)
	if code != 0 {
		t.Fatalf("bench exited %d: %s", code, stderr)
	}
	for _, want := range []string{"pgproxy", "postgresql-15", "COPY rows/s     pgproxy / PostgreSQL", "INSERT p50      pgproxy / PostgreSQL", "DELETE cascade"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep sqlBenchReport
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("results file: %v\n%s", err, b)
	}
	if len(rep.Results) != 2 {
		t.Fatalf("results for %d servers, want 2", len(rep.Results))
	}
	for _, s := range rep.Results {
		// 1% of 3000 ids (id % 100 = 0 and = 1), edges i -> i+1 for i < 300.
		if s.CopyRows != 3000 || s.UpdateRows != 30 || s.DeleteNodes != 30 || s.EdgeRows != 300 {
			t.Errorf("%s: copy %d, update %d, delete %d, edges %d; want 3000, 30, 30, 300", s.Server, s.CopyRows, s.UpdateRows, s.DeleteNodes, s.EdgeRows)
		}
		// nodes 1, 101, 201 have edges in and out (5 edges: 0->1, 1->2, 100->101, 101->102, 200->201, 201->202).
		if s.DeleteCascaded != 6 {
			t.Errorf("%s: the cascade removed %d edges, want 6", s.Server, s.DeleteCascaded)
		}
		if s.InsertP50us <= 0 || s.CopyRowsPerSec <= 0 || s.InsertRowsPerSec["16"] <= 0 || s.InsertRowsPerSec["64"] <= 0 ||
			s.InsertAfter10us <= 0 || s.InsertAfterNus <= 0 || s.HistoryCommits != 40 {
			t.Errorf("%s: empty measurements %+v", s.Server, s)
		}
	}
	if c := rep.Results[0].CommitCost; c == nil || c.Fsyncs <= 0 || c.DurableRounds < 1 || c.DurableOps <= 0 || c.FsyncRoundsP50 < 2 {
		t.Errorf("pgproxy: no durable work per commit counted: %+v", c)
	}
	if rep.Results[1].WALSyncsPerCommit <= 0 {
		t.Errorf("postgresql-15: no WAL syncs per commit: %+v", rep.Results[1])
	}
	for _, k := range []string{"copy_rows_per_sec", "insert_p50_latency", "insert_rows_per_sec_16_clients", "insert_rows_per_sec_64_clients",
		"insert_p50_after_10_commits", "insert_p50_after_history", "fsyncs_per_commit", "update_seconds", "delete_cascade_seconds"} {
		if rep.Ratios[k] <= 0 {
			t.Errorf("ratio %s missing: %v", k, rep.Ratios)
		}
	}
}
