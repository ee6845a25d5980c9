package console

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

type activity struct {
	PID                          int32
	User, Database, Application  string
	ClientAddr, State, WaitEvent string
	BackendStart, QueryStart     *time.Time
	Query                        string
}

// loadActivity reads pg_stat_activity as the role sees it (other roles'
// statement text is hidden there as in PostgreSQL).
func loadActivity(ctx context.Context, c *pgx.Conn) ([]activity, error) {
	rows, err := c.Query(ctx, `SELECT pid, coalesce(usename, ''), coalesce(datname, ''), coalesce(application_name, ''),
		coalesce(client_addr::text, ''), coalesce(state, ''), coalesce(wait_event_type || ': ' || wait_event, ''),
		backend_start, query_start, coalesce(query, '')
		FROM pg_stat_activity ORDER BY backend_start`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (activity, error) {
		var a activity
		err := r.Scan(&a.PID, &a.User, &a.Database, &a.Application, &a.ClientAddr, &a.State, &a.WaitEvent, &a.BackendStart, &a.QueryStart, &a.Query)
		return a, err
	})
}

type intent struct {
	OperationID, Writer, Branch, Phase string
	Owner, Liveness, Classification    string
	Error                              string
	CreatedAt                          *time.Time
}

type auditEntry struct {
	Time                                  time.Time
	OperationID, Writer, Branch, Decision string
	Classification, CommitID, Recoverer   string
}

// loadRecovery reads the pending recovery intents and the latest
// recovery decisions.
func loadRecovery(ctx context.Context, c *pgx.Conn) ([]intent, []auditEntry, error) {
	rows, err := c.Query(ctx, `SELECT operation_id, coalesce(writer_kind, ''), coalesce(branch, ''), coalesce(phase, ''),
		coalesce(owner, ''), coalesce(liveness, ''), coalesce(classification, ''), coalesce(error, ''), created_at
		FROM graph.recovery`)
	if err != nil {
		return nil, nil, err
	}
	intents, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (intent, error) {
		var in intent
		err := r.Scan(&in.OperationID, &in.Writer, &in.Branch, &in.Phase, &in.Owner, &in.Liveness, &in.Classification, &in.Error, &in.CreatedAt)
		return in, err
	})
	if err != nil {
		return nil, nil, err
	}
	rows, err = c.Query(ctx, `SELECT time, coalesce(operation_id, ''), coalesce(writer_kind, ''), coalesce(branch, ''),
		coalesce(decision, ''), coalesce(classification, ''), coalesce(commit_id, ''), coalesce(recoverer, '')
		FROM graph.audit ORDER BY time DESC LIMIT 50`)
	if err != nil {
		return nil, nil, err
	}
	audit, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (auditEntry, error) {
		var a auditEntry
		err := r.Scan(&a.Time, &a.OperationID, &a.Writer, &a.Branch, &a.Decision, &a.Classification, &a.CommitID, &a.Recoverer)
		return a, err
	})
	return intents, audit, err
}

type operation struct {
	PID                              *int32
	Branch, Command, Relation, Phase string
	RowsDone, BytesDone, UnitsDone   int64
	UnitsTotal                       *int64
	Started                          time.Time
}

// loadProgress reads graph.progress: COPYs, merges, cleanup and
// optimize running now.
func loadProgress(ctx context.Context, c *pgx.Conn) ([]operation, error) {
	rows, err := c.Query(ctx, `SELECT pid, coalesce(branch, ''), command, coalesce(relation, ''), coalesce(phase, ''),
		rows_done, bytes_done, units_done, units_total, started FROM graph.progress`)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (operation, error) {
		var o operation
		err := r.Scan(&o.PID, &o.Branch, &o.Command, &o.Relation, &o.Phase, &o.RowsDone, &o.BytesDone, &o.UnitsDone, &o.UnitsTotal, &o.Started)
		return o, err
	})
}
