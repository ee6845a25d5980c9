package observe

import (
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

var (
	commits = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "commits_total",
		Help: "Graph writes by writer kind (mutation, merge, optimize) and outcome (SQLSTATE class; 00 is committed).",
	}, []string{"writer", "sqlstate_class"}))
	commitSeconds = register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "commit_duration_seconds",
		Help:    "Graph write latency from the start of staging to the acknowledgement (retries included), by writer kind.",
		Buckets: secondsBuckets,
	}, []string{"writer"}))
	commitRounds = register(prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: namespace, Name: "commit_durable_rounds",
		Help:    "Ordered durable rounds a successful graph write waited for before its acknowledgement (fsync waits or object-storage writes, each started after the previous finished; retries included), by writer kind.",
		Buckets: []float64{1, 2, 3, 4, 5, 6, 8, 12, 16, 32},
	}, []string{"writer"}))
	commitAttempts = register(prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Name: "commit_attempts",
		Help:    "Attempts a successful graph write took (1 = no retry; each retry re-prepares against a newer head).",
		Buckets: []float64{1, 2, 3, 5, 8, 16, 32, 64},
	}))
	recoveryDecisions = register(prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Name: "recovery_decisions_total",
		Help: "Interrupted writes recovery resolved, by decision (rolled_forward, rolled_back, refused, ...).",
	}, []string{"decision"}))
)

// CommitEvent describes one graph write as its writer saw it.
type CommitEvent struct {
	Writer   string // mutation, schema_apply, load, branch_merge, optimize
	Branch   string
	CommitID string // "" when the write failed or changed nothing
	Actor    string
	Tables   []string // SQL names of the tables it wrote
	// TableRows is the row count of the written tables after the commit
	// (the commit path does not count a write's changed rows).
	TableRows uint64
	Attempts  int
	// DurableRounds is the length of the longest chain of durability
	// waits the write's context saw (objstore.DurableRounds).
	DurableRounds int64
	Duration      time.Duration
	SQLState      string // "" on success
}

// Commit records a graph write: metrics always; an info line for each
// commit made, a warn line for a write that failed with a concurrency
// error (the statement that met it is logged by wire too).
func Commit(ev CommitEvent) {
	commits.WithLabelValues(ev.Writer, SQLStateClass(ev.SQLState)).Inc()
	commitSeconds.WithLabelValues(ev.Writer).Observe(ev.Duration.Seconds())
	if ev.SQLState == "" {
		commitAttempts.Observe(float64(ev.Attempts))
		if ev.CommitID != "" {
			commitRounds.WithLabelValues(ev.Writer).Observe(float64(ev.DurableRounds))
		}
	}
	level := slog.LevelInfo
	msg := "commit"
	switch {
	case ev.SQLState != "" && IsConflict(ev.SQLState):
		level, msg = slog.LevelWarn, "commit conflict"
	case ev.SQLState != "":
		level, msg = slog.LevelWarn, "commit failed"
	case ev.CommitID == "":
		return // nothing published (an empty write)
	}
	if !enabled(level) {
		return
	}
	attrs := []any{slog.String(FieldWriter, ev.Writer), slog.String(FieldBranch, ev.Branch)}
	if ev.CommitID != "" {
		attrs = append(attrs, slog.String(FieldCommitID, ev.CommitID))
	}
	attrs = append(attrs, slog.Any(FieldTables, ev.Tables), slog.Uint64(FieldTableRows, ev.TableRows),
		slog.Int(FieldAttempts, ev.Attempts), slog.Int64(FieldRounds, ev.DurableRounds), slog.Float64(FieldDuration, durationMS(ev.Duration.Seconds())),
		slog.String(FieldActor, ev.Actor))
	if ev.SQLState != "" {
		attrs = append(attrs, slog.String(FieldSQLState, ev.SQLState))
	}
	Logger().Log(bgCtx, level, msg, attrs...)
}

// RecoveryDecision records what recovery decided for one interrupted
// write (a warn line: an operator wants to know a write was resolved by
// recovery rather than by its writer).
func RecoveryDecision(operationID, writer, branch, decision, commitID string) {
	recoveryDecisions.WithLabelValues(decision).Inc()
	Logger().Warn("recovery decision", slog.String(FieldOperationID, operationID), slog.String(FieldWriter, writer),
		slog.String(FieldBranch, branch), slog.String(FieldDecision, decision), slog.String(FieldCommitID, commitID))
}

// KnownRecoveryDecisions makes every decision's series exist at 0
// before the first one is made, so a rate or increase over it starts
// from the first event (Prometheus's advice for known label values).
func KnownRecoveryDecisions(decisions ...string) {
	for _, d := range decisions {
		recoveryDecisions.WithLabelValues(d)
	}
}
