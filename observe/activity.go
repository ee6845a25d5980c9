package observe

import (
	"sync"
	"sync/atomic"
	"time"
)

// Cumulative activity per database and per table since the process
// started, for pg_stat_database and pg_stat_*_tables: what monitoring
// dashboards (pgAdmin's transactions per second, tuples in and out) plot.
// Like PostgreSQL's, the counts are per server process, kept in memory,
// and not transactional: rows written by a statement count when it ends,
// whether or not its transaction later commits.

// DatabaseActivity is one database's counters (a database is a branch
// name as clients connect to it).
type DatabaseActivity struct {
	XactCommit, XactRollback            atomic.Int64
	TupInserted, TupUpdated, TupDeleted atomic.Int64
	Sessions                            atomic.Int64
	SessionsFatal, SessionsAbandoned    atomic.Int64
}

// TableActivity is one table's write counters.
type TableActivity struct {
	Inserted, Updated, Deleted atomic.Int64
}

type tableKey struct {
	database string
	oid      uint32
}

var activity struct {
	mu        sync.Mutex
	databases map[string]*DatabaseActivity
	tables    map[tableKey]*TableActivity
}

// statsReset is when the counters started (pg_stat_database.stats_reset).
var statsReset = time.Now()

// StatsReset returns when the activity counters started.
func StatsReset() time.Time { return statsReset }

// Database returns the activity counters of database name, creating them.
func Database(name string) *DatabaseActivity {
	activity.mu.Lock()
	defer activity.mu.Unlock()
	if activity.databases == nil {
		activity.databases = map[string]*DatabaseActivity{}
	}
	d := activity.databases[name]
	if d == nil {
		d = &DatabaseActivity{}
		activity.databases[name] = d
	}
	return d
}

// Table returns the write counters of the table with OID oid as seen
// from database, creating them.
func Table(database string, oid uint32) *TableActivity {
	activity.mu.Lock()
	defer activity.mu.Unlock()
	if activity.tables == nil {
		activity.tables = map[tableKey]*TableActivity{}
	}
	k := tableKey{database, oid}
	t := activity.tables[k]
	if t == nil {
		t = &TableActivity{}
		activity.tables[k] = t
	}
	return t
}

// RowsWritten counts n rows of a statement kind ("INSERT", "UPDATE",
// "DELETE") written to table oid from database.
func RowsWritten(database string, oid uint32, kind string, n int64) {
	if n <= 0 {
		return
	}
	d, t := Database(database), Table(database, oid)
	switch kind {
	case "INSERT":
		d.TupInserted.Add(n)
		t.Inserted.Add(n)
	case "UPDATE":
		d.TupUpdated.Add(n)
		t.Updated.Add(n)
	case "DELETE":
		d.TupDeleted.Add(n)
		t.Deleted.Add(n)
	}
}
