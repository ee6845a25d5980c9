package observe

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

func TestStatementKind(t *testing.T) {
	for _, c := range []struct{ sql, want string }{
		{"SELECT 1", KindSelect},
		{"  -- note\n/* c */ (select 1)", KindSelect},
		{"with x as (select 1) select * from x", KindSelect},
		{"insert into t values (1)", KindInsert},
		{"UPDATE t SET a = 1", KindUpdate},
		{"DELETE FROM t", KindDelete},
		{"COPY t FROM STDIN", KindCopy},
		{"CREATE TABLE t (a int)", KindDDL},
		{"drop table t", KindDDL},
		{"BEGIN", KindBegin},
		{"START TRANSACTION", KindBegin},
		{"COMMIT", KindCommit},
		{"END", KindCommit},
		{"ROLLBACK", KindRollback},
		{"SET work_mem = '1MB'", KindUtility},
		{"frobnicate", KindOther},
		{"", KindOther},
		{"/* unterminated", KindOther},
	} {
		if got := StatementKind(c.sql); got != c.want {
			t.Errorf("StatementKind(%q) = %q, want %q", c.sql, got, c.want)
		}
	}
}

// captureLog makes the event logger write JSON to a buffer for the test.
func captureLog(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	SetLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { SetLogger(nil) })
	return &buf
}

// logLines decodes the buffer's JSON lines.
func logLines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		m := map[string]any{}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// A commit is one info line with the stable fields; a conflict a warn
// line with its SQLSTATE; an empty write none. Each moves the metrics.
func TestCommitLogAndMetrics(t *testing.T) {
	buf := captureLog(t)
	ok0 := testutil.ToFloat64(commits.WithLabelValues("mutation", "00"))
	conflict0 := testutil.ToFloat64(commits.WithLabelValues("mutation", "40"))
	rounds0 := roundsHistogram(t, "mutation")
	Commit(CommitEvent{Writer: "mutation", Branch: "main", CommitID: "c1", Actor: "alice", Tables: []string{"a", "b"},
		TableRows: 7, Attempts: 2, DurableRounds: 2, Duration: 1500 * time.Microsecond})
	Commit(CommitEvent{Writer: "mutation", Branch: "dev", Actor: "bob", Attempts: 0, Duration: time.Millisecond, SQLState: "40001"})
	Commit(CommitEvent{Writer: "mutation", Branch: "main", Attempts: 1}) // nothing published
	lines := logLines(t, buf)
	if len(lines) != 2 {
		t.Fatalf("%d log lines, want 2: %s", len(lines), buf)
	}
	c := lines[0]
	for k, want := range map[string]any{"level": "INFO", "msg": "commit", FieldWriter: "mutation", FieldBranch: "main", FieldCommitID: "c1",
		FieldActor: "alice", FieldTableRows: 7.0, FieldAttempts: 2.0, FieldRounds: 2.0, FieldDuration: 1.5} {
		if c[k] != want {
			t.Errorf("commit line %s = %v, want %v", k, c[k], want)
		}
	}
	if tb, _ := c[FieldTables].([]any); len(tb) != 2 || tb[0] != "a" {
		t.Errorf("commit line tables = %v", c[FieldTables])
	}
	w := lines[1]
	if w["level"] != "WARN" || w["msg"] != "commit conflict" || w[FieldSQLState] != "40001" || w[FieldBranch] != "dev" || w[FieldCommitID] != nil {
		t.Errorf("conflict line = %v", w)
	}
	if d := testutil.ToFloat64(commits.WithLabelValues("mutation", "00")) - ok0; d != 2 {
		t.Errorf("commits_total{00} moved by %v, want 2", d)
	}
	if d := testutil.ToFloat64(commits.WithLabelValues("mutation", "40")) - conflict0; d != 1 {
		t.Errorf("commits_total{40} moved by %v, want 1", d)
	}
	// only the commit that published counts its durable rounds
	if h := roundsHistogram(t, "mutation"); h.GetSampleCount()-rounds0.GetSampleCount() != 1 || h.GetSampleSum()-rounds0.GetSampleSum() != 2 {
		t.Errorf("commit_durable_rounds moved by %d samples summing %v, want 1 sample of 2",
			h.GetSampleCount()-rounds0.GetSampleCount(), h.GetSampleSum()-rounds0.GetSampleSum())
	}
}

// roundsHistogram reads the commit_durable_rounds histogram of a writer.
func roundsHistogram(t *testing.T, writer string) *dto.Histogram {
	t.Helper()
	var m dto.Metric
	if err := commitRounds.WithLabelValues(writer).(prometheus.Histogram).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram()
}

func TestRecoveryDecisionLog(t *testing.T) {
	buf := captureLog(t)
	n0 := testutil.ToFloat64(recoveryDecisions.WithLabelValues("rolled_forward"))
	RecoveryDecision("op1", "mutation", "main", "rolled_forward", "c9")
	lines := logLines(t, buf)
	if len(lines) != 1 {
		t.Fatalf("%d log lines: %s", len(lines), buf)
	}
	for k, want := range map[string]any{"level": "WARN", "msg": "recovery decision", FieldOperationID: "op1", FieldWriter: "mutation",
		FieldBranch: "main", FieldDecision: "rolled_forward", FieldCommitID: "c9"} {
		if lines[0][k] != want {
			t.Errorf("%s = %v, want %v", k, lines[0][k], want)
		}
	}
	if d := testutil.ToFloat64(recoveryDecisions.WithLabelValues("rolled_forward")) - n0; d != 1 {
		t.Errorf("recovery_decisions_total moved by %v", d)
	}
}

// Every instrument's name follows the Prometheus conventions the
// project uses (promlint: units, _total on counters, no camel case).
func TestInstrumentNamesLint(t *testing.T) {
	reg := NewRegistry()
	// give every vector a child so that each family is gathered
	StatementDone(KindSelect, "", time.Millisecond)
	StatementDone(KindCommit, "40001", time.Millisecond)
	ConnectionStarted(ConnEstablished)
	Commit(CommitEvent{Writer: "mutation", CommitID: "c", Attempts: 1, DurableRounds: 2})
	KnownRecoveryDecisions("rolled_back")
	CleanupDone(false, 0, 0, time.Millisecond, nil)
	StorageRequest("get", StorageOK, 1, 0, time.Millisecond)
	RowLockWait(LockGranted, time.Millisecond)
	RowLockRerun()
	problems, err := testutil.GatherAndLint(reg)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, namespace+"_") {
			t.Errorf("%s: %s", p.Metric, p.Text)
		}
	}
}

func TestRowLockWaitMetrics(t *testing.T) {
	for _, tc := range []struct {
		outcome string
		d       time.Duration
	}{{LockGranted, 3 * time.Millisecond}, {LockTimeout, 200 * time.Millisecond}, {LockCanceled, time.Millisecond}} {
		var before, after dto.Metric
		h := rowLockWaitSeconds.WithLabelValues(tc.outcome).(prometheus.Histogram)
		if err := h.Write(&before); err != nil {
			t.Fatal(err)
		}
		RowLockWait(tc.outcome, tc.d)
		if err := h.Write(&after); err != nil {
			t.Fatal(err)
		}
		if n := after.GetHistogram().GetSampleCount() - before.GetHistogram().GetSampleCount(); n != 1 {
			t.Errorf("%s: %d samples, want 1", tc.outcome, n)
		}
		if s := after.GetHistogram().GetSampleSum() - before.GetHistogram().GetSampleSum(); s < tc.d.Seconds()*0.999 || s > tc.d.Seconds()*1.001 {
			t.Errorf("%s: sum moved by %v, want %v", tc.outcome, s, tc.d.Seconds())
		}
	}
	r0 := testutil.ToFloat64(rowLockReruns)
	RowLockRerun()
	if d := testutil.ToFloat64(rowLockReruns) - r0; d != 1 {
		t.Errorf("row_lock_reruns_total moved by %v, want 1", d)
	}
}
