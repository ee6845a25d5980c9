package wire

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
)

// This file holds wire's observability hooks: connection and statement
// metrics (observe), and the log lines PostgreSQL's log_connections,
// log_disconnections and log_min_duration_statement produce. No line
// carries statement text, parameters or row values (observe/doc.go).

// startupOutcome classifies how a connection's startup ended (nil:
// established).
func startupOutcome(err error) string {
	var pe *Error
	switch {
	case err == nil:
		return observe.ConnEstablished
	case errors.As(err, &pe) && IsAuthFailure(pe):
		return observe.ConnAuthFailed
	case errors.As(err, &pe) && (pe.Code == CodeTooManyConnections || pe.Code == pgerr.CannotConnectNow || pe.Code == CodeInvalidCatalogName):
		return observe.ConnRefused
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errClientGone):
		return observe.ConnFailed
	}
	return observe.ConnFailed
}

// connAttrs are the fields naming a connection in the event log.
func (c *conn) connAttrs() []any {
	attrs := []any{slog.Int(observe.FieldPID, int(c.pid)), slog.String(observe.FieldUser, c.user), slog.String(observe.FieldDatabase, c.database)}
	if tcp, ok := c.raw.RemoteAddr().(*net.TCPAddr); ok {
		attrs = append(attrs, slog.String(observe.FieldRemote, tcp.String()))
	}
	return attrs
}

// noteStarted records the end of a connection's startup: the outcome
// metric, and with log_connections the "connection authorized" line.
func (c *conn) noteStarted(err error) {
	observe.ConnectionStarted(startupOutcome(err))
	if err == nil {
		observe.Database(c.database).Sessions.Add(1)
	}
	if err == nil && c.srv.cfg.LogConnections {
		attrs := c.connAttrs()
		if v, ok := c.settings.Get("application_name"); ok && v != "" {
			attrs = append(attrs, slog.String(observe.FieldApplication, v))
		}
		observe.Logger().Info("connection authorized", attrs...)
	}
}

// noteDisconnected logs a session's end (log_disconnections) with its
// length, as PostgreSQL's "disconnection: session time" line.
func (c *conn) noteDisconnected() {
	if !c.srv.cfg.LogDisconnections || !c.ready {
		return
	}
	attrs := append(c.connAttrs(), slog.Float64(observe.FieldSession, float64(time.Since(c.act.backendStart).Microseconds())/1e3))
	observe.Logger().Info("disconnection", attrs...)
}

// statementDone records a finished statement (err nil on success): the
// statement metrics, a warn line for a concurrency failure, and an info
// line when it ran at least log_min_duration_statement.
func (c *conn) statementDone(st *Statement, start time.Time, err error) {
	d := time.Since(start)
	code := ""
	if err != nil {
		if errors.Is(err, errClientGone) {
			code = pgerr.ConnectionFailure
		} else {
			code = toPGError(context.Background(), err).Code
		}
	}
	kind := observe.StatementKind(st.SQL)
	observe.StatementDone(kind, code, d)
	log := observe.Logger()
	if observe.IsConflict(code) {
		log.Warn("statement conflict", append(c.connAttrs(), slog.String(observe.FieldKind, kind), slog.String(observe.FieldSQLState, code),
			slog.Float64(observe.FieldDuration, float64(d.Microseconds())/1e3))...)
	}
	if min := c.minDurationStatement(); min >= 0 && d >= min {
		attrs := append(c.connAttrs(), slog.String(observe.FieldKind, kind), slog.Float64(observe.FieldDuration, float64(d.Microseconds())/1e3))
		if code != "" {
			attrs = append(attrs, slog.String(observe.FieldSQLState, code))
		}
		log.Info("slow statement", attrs...)
		slow := observe.SlowStatement{Time: start, PID: int(c.pid), User: c.user, Database: c.database, Kind: kind, Duration: d, SQLState: code}
		if c.settings != nil {
			slow.Application, _ = c.settings.Get("application_name")
		}
		observe.NoteSlowStatement(slow)
	}
}

// minDurationStatement is log_min_duration_statement (-1: off).
func (c *conn) minDurationStatement() time.Duration {
	return c.memo().minDuration
}

// normMinDuration checks log_min_duration_statement: -1 (off) or a
// time of at least 0 (milliseconds by default).
func normMinDuration(v string) (string, *Error) {
	if ms, err := parseDurationMS(v); err == nil && ms == -1 {
		return "-1", nil
	}
	return normDuration(v)
}

// CheckMinDurationStatement validates a log_min_duration_statement
// value (Config.LogMinDurationStatement, a server flag).
func CheckMinDurationStatement(v string) error {
	if _, err := normMinDuration(v); err != nil {
		return err
	}
	return nil
}

// OpenTransactions reports the sessions inside a transaction (explicit
// or a running statement's own) and the age of the oldest one, as
// pg_stat_activity's xact_start shows them.
func (s *Server) OpenTransactions() (n int, oldest time.Duration) {
	now := time.Now()
	for _, a := range s.activity() {
		if a.XactStart.IsZero() {
			continue
		}
		n++
		if age := now.Sub(a.XactStart); age > oldest {
			oldest = age
		}
	}
	return n, oldest
}

// noteTransactionEnd counts a transaction's end for pg_stat_database
// (xact_commit, xact_rollback): implicit transactions of single
// statements count, as in PostgreSQL.
func (c *conn) noteTransactionEnd(committed bool) {
	d := observe.Database(c.database)
	if committed {
		d.XactCommit.Add(1)
	} else {
		d.XactRollback.Add(1)
	}
}
