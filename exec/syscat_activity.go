package exec

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/observe"
)

// Monitoring catalogs: pg_stat_activity lists the server's sessions
// (Session.Activity, from the wire layer's connection records), pg_locks
// the advisory locks held in the session's lock space and the requests
// waiting for them (granted false, with their waitstart; the waiting
// session shows wait event Lock/advisory in pg_stat_activity and
// pg_blocking_pids names the sessions it waits for), pg_stat_database the database (branch)
// with its backends, and the pg_stat_*/pg_statio_* table and index views
// one row per user table or index with counters pggraph does not keep at
// zero (n_live_tup is the table's row count). System catalogs have no rows
// in the *_all_* views. pg_stat_database_conflicts and pg_prepared_xacts
// exist for the dashboards that read them (pgAdmin 4): zero conflicts, no
// prepared transactions.

// Activity is one session as pg_stat_activity shows it.
type Activity struct {
	PID             int32
	User            string
	Database        string
	ApplicationName string
	ClientAddr      string // "" = NULL (Unix socket)
	ClientPort      int32
	BackendStart    time.Time
	XactStart       time.Time // zero = NULL
	QueryStart      time.Time
	StateChange     time.Time
	State           string
	Query           string
	WaitEventType   string
	WaitEvent       string
}

// AdvisoryHold is one owner's hold of an advisory lock, or its request
// waiting for one (pg_locks).
type AdvisoryHold struct {
	Key    int64
	TwoKey bool // pg_advisory_lock(int4, int4)
	PID    int32
	Shared bool
	// Waiting: the request is not granted yet, waiting since WaitStart.
	Waiting   bool
	WaitStart time.Time
}

func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func textOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (c *catalogSet) activity() []Activity {
	if c.activityFn == nil {
		return nil
	}
	return c.activityFn()
}

// liveSource builds a system relation's rows at each scan.
type liveSource struct{ build func() *MemTable }

func (l *liveSource) RowCount() int64 { return 10 }

func (l *liveSource) Scan(ctx context.Context, req ScanRequest, emit func(rec arrow.RecordBatch, addrs []uint64) error) error {
	return l.build().Scan(ctx, req, emit)
}

func init() {
	pgCatalogRels["pg_stat_activity"] = &sysRelation{12222, "datid oid, datname name, pid int4, leader_pid int4, usesysid oid, usename name, application_name text, client_addr text, client_hostname text, client_port int4, backend_start timestamptz, xact_start timestamptz, query_start timestamptz, state_change timestamptz, wait_event_type text, wait_event text, state text, backend_xid xid, backend_xmin xid, query_id int8, query text, backend_type text", func(c *catalogSet) [][]any {
		var rows [][]any
		cat := c.roleCatalog()
		waiting := map[int32]bool{}
		if c.locksFn != nil {
			for _, h := range c.locksFn() {
				waiting[h.PID] = waiting[h.PID] || h.Waiting
			}
		}
		rl := c.rowLocks()
		for _, a := range c.activity() {
			if waiting[a.PID] {
				a.WaitEventType, a.WaitEvent = "Lock", "advisory"
			}
			if rowLockWaiting(rl, a.PID) {
				a.WaitEventType, a.WaitEvent = "Lock", "transactionid"
			}
			var xid any
			if x := rowLockXID(rl, a.PID); x != 0 {
				xid = x
			}
			var usesysid any
			for i := range cat.Roles {
				if cat.Roles[i].Name == a.User {
					usesysid = cat.Roles[i].OID
				}
			}
			var port any
			if a.ClientAddr != "" {
				port = a.ClientPort
			} else {
				port = -1
			}
			var datid any
			if a.Database == c.database() {
				datid = uint32(oidDatabase)
			}
			rows = append(rows, []any{datid, a.Database, a.PID, nil, usesysid, a.User, a.ApplicationName, textOrNull(a.ClientAddr), nil, port,
				a.BackendStart, timeOrNull(a.XactStart), timeOrNull(a.QueryStart), timeOrNull(a.StateChange),
				textOrNull(a.WaitEventType), textOrNull(a.WaitEvent), textOrNull(a.State), xid, nil, nil, a.Query, "client backend"})
		}
		return rows
	}}
	pgCatalogRels["pg_locks"] = &sysRelation{12073, "locktype text, database oid, relation oid, page int4, tuple int2, virtualxid text, transactionid xid, classid oid, objid oid, objsubid int2, virtualtransaction text, pid int4, mode text, granted bool, fastpath bool, waitstart timestamptz", func(c *catalogSet) [][]any {
		rows := c.rowLockRows()
		if c.locksFn == nil {
			return rows
		}
		for _, h := range c.locksFn() {
			// PostgreSQL's key layout: a bigint key is split into its high
			// (classid) and low (objid) halves with objsubid 1; two int4
			// keys are classid and objid with objsubid 2
			hi, lo, sub := uint32(uint64(h.Key)>>32), uint32(uint64(h.Key)), int16(1)
			if h.TwoKey {
				sub = 2
			}
			mode := "ExclusiveLock"
			if h.Shared {
				mode = "ShareLock"
			}
			rows = append(rows, []any{"advisory", uint32(oidDatabase), nil, nil, nil, nil, nil, hi, lo, sub,
				nil, h.PID, mode, !h.Waiting, false, timeOrNull(h.WaitStart)})
		}
		return rows
	}}
	pgCatalogRels["pg_stat_database"] = &sysRelation{12266, "datid oid, datname name, numbackends int4, xact_commit int8, xact_rollback int8, blks_read int8, blks_hit int8, tup_returned int8, tup_fetched int8, tup_inserted int8, tup_updated int8, tup_deleted int8, conflicts int8, temp_files int8, temp_bytes int8, deadlocks int8, checksum_failures int8, checksum_last_failure timestamptz, blk_read_time float8, blk_write_time float8, session_time float8, active_time float8, idle_in_transaction_time float8, sessions int8, sessions_abandoned int8, sessions_fatal int8, sessions_killed int8, stats_reset timestamptz", func(c *catalogSet) [][]any {
		backends := 0
		for _, a := range c.activity() {
			if a.Database == c.database() {
				backends++
			}
		}
		if c.activityFn == nil {
			backends = 1
		}
		zero := []any{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, nil, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0, 0, nil}
		shared := append([]any{uint32(0), nil, 0}, zero...)
		// the process's counters for this database (observe/activity.go);
		// block I/O, times and scans are not counted
		a := observe.Database(c.database())
		db := []any{uint32(oidDatabase), c.database(), backends, a.XactCommit.Load(), a.XactRollback.Load(), 0, 0, 0, 0,
			a.TupInserted.Load(), a.TupUpdated.Load(), a.TupDeleted.Load(), 0, 0, 0, 0, 0, nil, 0.0, 0.0, 0.0, 0.0, 0.0,
			a.Sessions.Load(), a.SessionsAbandoned.Load(), a.SessionsFatal.Load(), 0, nil}
		return [][]any{shared, db}
	}}
	// recovery conflicts happen on standbys, which pggraph has none of
	pgCatalogRels["pg_stat_database_conflicts"] = &sysRelation{12271, "datid oid, datname name, confl_tablespace int8, confl_lock int8, confl_snapshot int8, confl_bufferpin int8, confl_deadlock int8", func(c *catalogSet) [][]any {
		return [][]any{{uint32(oidDatabase), c.database(), 0, 0, 0, 0, 0}}
	}}
	// PREPARE TRANSACTION is refused, so no transaction is ever prepared
	pgCatalogRels["pg_prepared_xacts"] = &sysRelation{12090, "transaction xid, gid text, prepared timestamptz, owner name, database name", func(*catalogSet) [][]any {
		return nil
	}}
	tableStats := func(c *catalogSet) [][]any {
		var rows [][]any
		for _, t := range c.userTables() {
			if relkindOf(t) != "r" || t.Kind == "sequence" {
				continue
			}
			var idx any
			if hasIndexes(t) {
				idx = 0
			}
			rows = append(rows, tableStatsRow(c, t, idx))
		}
		return rows
	}
	statCols := "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, n_dead_tup int8, n_mod_since_analyze int8, n_ins_since_vacuum int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, last_autoanalyze timestamptz, vacuum_count int8, autovacuum_count int8, analyze_count int8, autoanalyze_count int8"
	pgCatalogRels["pg_stat_all_tables"] = &sysRelation{12142, statCols, tableStats}
	statio := func(c *catalogSet) [][]any {
		var rows [][]any
		for _, t := range c.userTables() {
			if relkindOf(t) != "r" || t.Kind == "sequence" {
				continue
			}
			var idx any
			if hasIndexes(t) {
				idx = 0
			}
			// a table with a variable-length column has a TOAST table
			// (and its index) in PostgreSQL
			var toast any
			for _, col := range t.Columns {
				if col.Type.Len() < 0 {
					toast = 0
				}
			}
			rows = append(rows, []any{t.OID, t.Schema, t.RelName(), 0, 0, idx, idx, toast, toast, toast, toast})
		}
		return rows
	}
	statioCols := "relid oid, schemaname name, relname name, heap_blks_read int8, heap_blks_hit int8, idx_blks_read int8, idx_blks_hit int8, toast_blks_read int8, toast_blks_hit int8, tidx_blks_read int8, tidx_blks_hit int8"
	pgCatalogRels["pg_statio_all_tables"] = &sysRelation{12170, statioCols, statio}
	pgCatalogRels["pg_statio_user_tables"] = &sysRelation{12179, statioCols, statio}
	indexStats := func(c *catalogSet) [][]any {
		var rows [][]any
		for _, k := range c.constraints() {
			if !k.hasIndex() {
				continue
			}
			rows = append(rows, []any{k.table.OID, k.index, k.table.Schema, k.table.RelName(), k.name, 0, 0, 0})
		}
		return rows
	}
	idxCols := "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_scan int8, idx_tup_read int8, idx_tup_fetch int8"
	pgCatalogRels["pg_stat_all_indexes"] = &sysRelation{12183, idxCols, indexStats}
	pgCatalogRels["pg_stat_user_indexes"] = &sysRelation{12192, idxCols, indexStats}
	for _, n := range []string{"pg_stat_activity", "pg_locks", "pg_stat_database"} {
		liveRels[pgCatalogRels[n]] = true
	}
	pgCatalogRels["pg_statio_user_indexes"] = &sysRelation{12205, "relid oid, indexrelid oid, schemaname name, relname name, indexrelname name, idx_blks_read int8, idx_blks_hit int8", func(c *catalogSet) [][]any {
		var rows [][]any
		for _, r := range indexStats(c) {
			rows = append(rows, r[:7])
		}
		return rows
	}}
}

// tableStatsRow is a pg_stat_*_tables row: the rows this process's
// statements wrote to t (observe/activity.go), its live row count; scans,
// dead rows and maintenance are not counted.
func tableStatsRow(c *catalogSet, t *TableDef, idx any) []any {
	a := observe.Table(c.database(), t.OID)
	return []any{t.OID, t.Schema, t.RelName(), 0, 0, idx, idx, a.Inserted.Load(), a.Updated.Load(), a.Deleted.Load(), 0,
		max(t.Source.RowCount(), 0), 0, 0, 0, nil, nil, nil, nil, 0, 0, 0, 0}
}
