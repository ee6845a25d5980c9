package observe

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// logger is the process's event logger; a discarding one until SetLogger.
var logger atomic.Pointer[slog.Logger]

func init() { logger.Store(slog.New(slog.DiscardHandler)) }

// SetLogger makes l the event logger (pgproxy serve's --log-level and
// --log-format choose its level and handler).
func SetLogger(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.DiscardHandler)
	}
	logger.Store(l)
}

// Logger returns the event logger.
func Logger() *slog.Logger { return logger.Load() }

// Stable field names of the event log (JSON keys): dashboards and log
// queries rely on them, so they change only with docs/operations.md.
const (
	FieldBranch      = "branch"
	FieldCommitID    = "commit_id"
	FieldOperationID = "operation_id"
	FieldWriter      = "writer"
	FieldTables      = "tables"
	FieldTableRows   = "table_rows"
	FieldAttempts    = "attempts"
	FieldRounds      = "durable_rounds"
	FieldDuration    = "duration_ms"
	FieldActor       = "actor"
	FieldDecision    = "decision"
	FieldSQLState    = "sqlstate"
	FieldKind        = "kind"
	FieldUser        = "user"
	FieldDatabase    = "database"
	FieldApplication = "application_name"
	FieldRemote      = "remote"
	FieldPID         = "pid"
	FieldSession     = "session_ms"
)

// durationMS is d in milliseconds with microsecond precision, as
// PostgreSQL's "duration: 1.234 ms".
func durationMS(d float64) float64 { return float64(int64(d*1e6)) / 1e3 }

// enabled reports whether the logger writes level (so callers skip
// building attributes nobody reads).
func enabled(level slog.Level) bool { return Logger().Enabled(bgCtx, level) }

// bgCtx is the context log records carry (events are not request-scoped).
var bgCtx = context.Background()
