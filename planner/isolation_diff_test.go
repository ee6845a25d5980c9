package planner

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// isoStep is one statement of an interleaving, run by session who (0
// or 1).
type isoStep struct {
	who int
	sql string
}

// isoCase is one cell of the concurrency matrix: an interleaving of two
// sessions (after "BEGIN ISOLATION LEVEL <level>" each) over table kv.
type isoCase struct {
	name  string
	steps []isoStep
	// setup runs after the reset (on both sides)
	setup []string
	// failsAtCommit lists the levels where a transaction here fails with
	// 40001 at COMMIT where PostgreSQL commits it, leaving PostgreSQL's
	// rows (no cell now: a foreign key's parent probe is a key-only read,
	// which an UPDATE of the parent's other columns leaves as it was —
	// lancesrc.Read.KeysOnly; the foreign-key crosscheck after a wait
	// answers 23503 at the statement as PostgreSQL: fkcrosscheck.go).
	failsAtCommit []string
	// readValidated: SERIALIZABLE validates a transaction's reads at its
	// COMMIT (docs/architecture.md), so one whose read row a committed
	// transaction overwrote fails there with 40001 even without a cycle,
	// where PostgreSQL's SSI commits it (serialized before the writer):
	// stricter, never weaker
	readValidated bool
	// onlyAt lists the levels the cell runs at (nil: all). Above READ
	// COMMITTED an INSERT of a key whose committed row another
	// transaction is deleting answers 23505 at once, where PostgreSQL
	// waits and inserts (docs/architecture.md, known differences).
	onlyAt []string
}

// isoCases: statement pair × same row / different row / same key.
var isoCases = []isoCase{
	{name: "update-update same row", steps: []isoStep{{0, "UPDATE kv SET v = v + 1 WHERE k = 1"}, {1, "UPDATE kv SET v = v + 10 WHERE k = 1"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "update-update same row, first rolls back", steps: []isoStep{{0, "UPDATE kv SET v = v + 1 WHERE k = 1"}, {1, "UPDATE kv SET v = v + 10 WHERE k = 1"}, {0, "ROLLBACK"}, {1, "COMMIT"}}},
	{name: "update-update different rows", steps: []isoStep{{0, "UPDATE kv SET v = v + 1 WHERE k = 1"}, {1, "UPDATE kv SET v = v + 10 WHERE k = 2"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "delete-update same row", steps: []isoStep{{0, "DELETE FROM kv WHERE k = 1"}, {1, "UPDATE kv SET v = v + 10 WHERE k = 1"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "update-delete same row", steps: []isoStep{{0, "UPDATE kv SET v = 5 WHERE k = 2"}, {1, "DELETE FROM kv WHERE k = 2"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "update moves row out of predicate", steps: []isoStep{{0, "UPDATE kv SET v = 100 WHERE k = 1"}, {1, "UPDATE kv SET v = v + 1 WHERE v < 50"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "insert-insert same key", steps: []isoStep{{0, "INSERT INTO kv VALUES (9, 1)"}, {1, "INSERT INTO kv VALUES (9, 2)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "insert-insert same key, first rolls back", steps: []isoStep{{0, "INSERT INTO kv VALUES (9, 1)"}, {1, "INSERT INTO kv VALUES (9, 2)"}, {0, "ROLLBACK"}, {1, "COMMIT"}}},
	{name: "insert-insert different keys", steps: []isoStep{{0, "INSERT INTO kv VALUES (9, 1)"}, {1, "INSERT INTO kv VALUES (10, 2)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "insert - on conflict do nothing", steps: []isoStep{{0, "INSERT INTO kv VALUES (9, 1)"}, {1, "INSERT INTO kv VALUES (9, 2) ON CONFLICT DO NOTHING"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "insert - on conflict do update", steps: []isoStep{{0, "INSERT INTO kv VALUES (9, 1)"}, {1, "INSERT INTO kv VALUES (9, 2) ON CONFLICT (k) DO UPDATE SET v = kv.v + excluded.v"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "lock_timeout", steps: []isoStep{{1, "SET LOCAL lock_timeout = '200ms'"}, {0, "UPDATE kv SET v = 0 WHERE k = 3"}, {1, "UPDATE kv SET v = 1 WHERE k = 3"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
	{name: "select for update - update same row", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 1 FOR UPDATE"}, {1, "UPDATE kv SET v = v + 10 WHERE k = 1"}, {0, "UPDATE kv SET v = 5 WHERE k = 1"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "select for update - update other row", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 1 FOR UPDATE"}, {1, "UPDATE kv SET v = v + 10 WHERE k = 2"}, {1, "COMMIT"}, {0, "COMMIT"}}},
	{name: "for update nowait", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 2 FOR UPDATE"}, {1, "SELECT v FROM kv WHERE k = 2 FOR UPDATE NOWAIT"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
	{name: "for update skip locked (job queue)", steps: []isoStep{{0, "SELECT k FROM kv ORDER BY k LIMIT 1 FOR UPDATE SKIP LOCKED"}, {1, "SELECT k FROM kv ORDER BY k LIMIT 1 FOR UPDATE SKIP LOCKED"}, {1, "SELECT k FROM kv ORDER BY k LIMIT 2 FOR UPDATE SKIP LOCKED"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "for share - for share", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 3 FOR SHARE"}, {1, "SELECT v FROM kv WHERE k = 3 FOR SHARE"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "for key share - update", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 3 FOR KEY SHARE"}, {1, "DELETE FROM kv WHERE k = 3"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	// an UPDATE assigning no key column locks FOR NO KEY UPDATE: it does
	// not wait for FOR KEY SHARE, but waits for FOR SHARE; a key change
	// waits for both
	{name: "for key share - update non-key", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 3 FOR KEY SHARE"}, {1, "UPDATE kv SET v = v + 1 WHERE k = 3"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "for key share - update key", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 3 FOR KEY SHARE"}, {1, "UPDATE kv SET k = 33 WHERE k = 3"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "for share - update non-key", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 3 FOR SHARE"}, {1, "UPDATE kv SET v = v + 1 WHERE k = 3"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "update non-key - for key share", steps: []isoStep{{0, "UPDATE kv SET v = 0 WHERE k = 2"}, {1, "SELECT v FROM kv WHERE k = 2 FOR KEY SHARE"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "for no key update - for key share", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 2 FOR NO KEY UPDATE"}, {1, "SELECT v FROM kv WHERE k = 2 FOR KEY SHARE"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	// read sets: reading a row another transaction writes is a conflict
	// at SERIALIZABLE only when the reads and writes form a cycle (write
	// skew); reads of other rows never conflict
	{name: "read other rows, write own rows", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 3"}, {1, "SELECT v FROM kv WHERE k = 3"}, {0, "UPDATE kv SET v = 1 WHERE k = 1"}, {1, "UPDATE kv SET v = 2 WHERE k = 2"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "write skew", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 2"}, {1, "SELECT v FROM kv WHERE k = 1"}, {0, "UPDATE kv SET v = 0 WHERE k = 1"}, {1, "UPDATE kv SET v = 0 WHERE k = 2"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "write skew over an absent key", steps: []isoStep{{0, "SELECT count(*) FROM kv WHERE k = 8"}, {1, "SELECT count(*) FROM kv WHERE k = 7"}, {0, "INSERT INTO kv VALUES (7, 1)"}, {1, "INSERT INTO kv VALUES (8, 1)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "read then update other row, reader commits last", steps: []isoStep{{1, "SELECT v FROM kv WHERE k = 1"}, {0, "UPDATE kv SET v = 5 WHERE k = 1"}, {0, "COMMIT"}, {1, "UPDATE kv SET v = 6 WHERE k = 2"}, {1, "COMMIT"}}, readValidated: true},
	// foreign keys: inserting a child holds the parent row FOR KEY SHARE
	{name: "fk insert child - delete parent", setup: fkChild, steps: []isoStep{{0, "INSERT INTO kc VALUES (1, 1)"}, {1, "DELETE FROM kv WHERE k = 1"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "fk insert child, rolls back - delete parent", setup: fkChild, steps: []isoStep{{0, "INSERT INTO kc VALUES (1, 1)"}, {1, "DELETE FROM kv WHERE k = 1"}, {0, "ROLLBACK"}, {1, "COMMIT"}}},
	{name: "fk delete parent - insert child", setup: fkChild, steps: []isoStep{{0, "DELETE FROM kv WHERE k = 1"}, {1, "INSERT INTO kc VALUES (1, 1)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "fk insert child - update parent non-key", setup: fkChild, steps: []isoStep{{0, "INSERT INTO kc VALUES (1, 1)"}, {1, "UPDATE kv SET v = 0 WHERE k = 1"}, {1, "COMMIT"}, {0, "COMMIT"}}},
	{name: "fk insert child - update parent key", setup: fkChild, steps: []isoStep{{0, "INSERT INTO kc VALUES (1, 1)"}, {1, "UPDATE kv SET k = 11 WHERE k = 1"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "deadlock", steps: []isoStep{{0, "UPDATE kv SET v = 0 WHERE k = 1"}, {1, "UPDATE kv SET v = 0 WHERE k = 2"}, {0, "UPDATE kv SET v = 1 WHERE k = 2"}, {1, "UPDATE kv SET v = 1 WHERE k = 1"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
	// a row changed by a transaction that committed after the snapshot:
	// READ COMMITTED reads it anew, the others fail with 40001 at the
	// statement; NOWAIT and lock_timeout on a row an UPDATE holds
	{name: "update after concurrent commit", steps: []isoStep{{1, "SELECT v FROM kv WHERE k = 1"}, {0, "UPDATE kv SET v = 5 WHERE k = 1"}, {0, "COMMIT"}, {1, "UPDATE kv SET v = v + 1 WHERE k = 1"}, {1, "COMMIT"}}},
	{name: "for update after concurrent commit", steps: []isoStep{{1, "SELECT v FROM kv WHERE k = 1"}, {0, "UPDATE kv SET v = 5 WHERE k = 1"}, {0, "COMMIT"}, {1, "SELECT v FROM kv WHERE k = 1 FOR UPDATE"}, {1, "COMMIT"}}},
	{name: "for update then other commits other row", steps: []isoStep{{0, "SELECT v FROM kv WHERE k = 1 FOR UPDATE"}, {1, "UPDATE kv SET v = 0 WHERE k = 2"}, {1, "COMMIT"}, {0, "SELECT v FROM kv WHERE k = 2 FOR UPDATE"}, {0, "COMMIT"}}},
	{name: "nowait on updated row", steps: []isoStep{{0, "UPDATE kv SET v = 0 WHERE k = 2"}, {1, "SELECT v FROM kv WHERE k = 2 FOR UPDATE NOWAIT"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
	{name: "lock_timeout on for update", steps: []isoStep{{1, "SET LOCAL lock_timeout = '200ms'"}, {0, "SELECT v FROM kv WHERE k = 2 FOR SHARE"}, {1, "SELECT v FROM kv WHERE k = 2 FOR UPDATE"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
	{name: "delete where moved into predicate", steps: []isoStep{{0, "UPDATE kv SET v = 100 WHERE k = 1"}, {1, "DELETE FROM kv WHERE v = 10"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	// an INSERT of a key whose row another transaction deletes, moves or
	// updates waits for it (dupwait.go): inserts when it committed the
	// delete, 23505 otherwise
	{name: "delete - insert same key", onlyAt: rcOnly, steps: []isoStep{{0, "DELETE FROM kv WHERE k = 1"}, {1, "INSERT INTO kv VALUES (1, 5)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "delete - insert same key, first rolls back", onlyAt: rcOnly, steps: []isoStep{{0, "DELETE FROM kv WHERE k = 1"}, {1, "INSERT INTO kv VALUES (1, 5)"}, {0, "ROLLBACK"}, {1, "COMMIT"}}},
	{name: "update key - insert old key", onlyAt: rcOnly, steps: []isoStep{{0, "UPDATE kv SET k = 11 WHERE k = 1"}, {1, "INSERT INTO kv VALUES (1, 5)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	{name: "update non-key - insert same key", onlyAt: rcOnly, steps: []isoStep{{0, "UPDATE kv SET v = 0 WHERE k = 1"}, {1, "INSERT INTO kv VALUES (1, 5)"}, {0, "COMMIT"}, {1, "COMMIT"}}},
	// statements over more than bulkLockMin rows hold their row and key
	// locks as bulk sets (rowlocks_bulk.go): the same waits and outcomes
	{name: "bulk update - update a row in it", setup: bulkTable, steps: []isoStep{{0, "UPDATE kb SET v = v + 1 WHERE k <= 5000"}, {1, "UPDATE kb SET v = 0 WHERE k = 4000"}, {0, "COMMIT"}, {1, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk update - update a row outside it", setup: bulkTable, steps: []isoStep{{0, "UPDATE kb SET v = v + 1 WHERE k <= 5000"}, {1, "UPDATE kb SET v = 0 WHERE k = 6000"}, {1, "COMMIT"}, {0, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk delete - bulk update overlapping", setup: bulkTable, steps: []isoStep{{0, "DELETE FROM kb WHERE k <= 6000"}, {1, "UPDATE kb SET v = 1 WHERE k > 5000"}, {0, "COMMIT"}, {1, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk update - bulk update disjoint", setup: bulkTable, steps: []isoStep{{0, "UPDATE kb SET v = 1 WHERE k <= 5000"}, {1, "UPDATE kb SET v = 2 WHERE k > 5000"}, {1, "COMMIT"}, {0, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk insert - insert a key in it", setup: bulkTable, steps: []isoStep{{0, "INSERT INTO kb SELECT g, 0 FROM generate_series(20001, 25000) g"}, {1, "INSERT INTO kb VALUES (22222, 1)"}, {0, "COMMIT"}, {1, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk insert - insert a key in it, first rolls back", setup: bulkTable, steps: []isoStep{{0, "INSERT INTO kb SELECT g, 0 FROM generate_series(20001, 25000) g"}, {1, "INSERT INTO kb VALUES (22222, 1)"}, {0, "ROLLBACK"}, {1, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk insert - bulk insert disjoint", setup: bulkTable, steps: []isoStep{{0, "INSERT INTO kb SELECT g, 0 FROM generate_series(20001, 25000) g"}, {1, "INSERT INTO kb SELECT g, 1 FROM generate_series(30001, 35000) g"}, {1, "COMMIT"}, {0, "COMMIT"}, {1, "SELECT count(*), sum(v) FROM kb"}}},
	{name: "bulk lock_timeout", setup: bulkTable, steps: []isoStep{{1, "SET LOCAL lock_timeout = '200ms'"}, {0, "UPDATE kb SET v = 0 WHERE k > 100"}, {1, "DELETE FROM kb WHERE k = 9999"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
	{name: "bulk deadlock", setup: bulkTable, steps: []isoStep{{0, "UPDATE kb SET v = 0 WHERE k > 5000"}, {1, "UPDATE kb SET v = 0 WHERE k = 1"}, {0, "UPDATE kb SET v = 1 WHERE k = 1"}, {1, "UPDATE kb SET v = 1 WHERE k = 9000"}, {1, "ROLLBACK"}, {0, "COMMIT"}}},
}

// bulkTable is a table with more rows than bulkLockMin.
var bulkTable = []string{"DROP TABLE IF EXISTS kb", "CREATE TABLE kb (k int8 PRIMARY KEY, v int8 NOT NULL)", "INSERT INTO kb SELECT g, g FROM generate_series(1, 10000) g"}

// fkChild is a child table of kv.
var fkChild = []string{"CREATE TABLE kc (c int8 PRIMARY KEY, k int8 REFERENCES kv)"}

var isoLevels = []string{"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"}

var rcOnly = []string{"READ COMMITTED"}

// isoSession runs statements on its own goroutine so a statement that
// waits for a lock does not block the interleaving.
type isoSession struct {
	c    *pgx.Conn
	reqs chan string
	res  chan string
}

func newIsoSession(c *pgx.Conn) *isoSession {
	s := &isoSession{c: c, reqs: make(chan string), res: make(chan string, 1)}
	go func() {
		for sql := range s.reqs {
			if strings.HasPrefix(sql, "SELECT") {
				// a query's answer is its rows
				rows, err := c.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
				var out []string
				if err == nil {
					for rows.Next() {
						vals, _ := rows.Values()
						out = append(out, fmt.Sprint(vals...))
					}
					rows.Close()
					err = rows.Err()
				}
				if code := sqlState(err); code != "" {
					s.res <- code
				} else if err != nil {
					s.res <- "error " + err.Error()
				} else {
					s.res <- "rows " + strings.Join(out, ";")
				}
				continue
			}
			tag, err := c.Exec(context.Background(), sql)
			if err != nil {
				if code := sqlState(err); code != "" {
					s.res <- code
				} else {
					s.res <- "error " + err.Error()
				}
				continue
			}
			s.res <- tag.String()
		}
	}()
	return s
}

// isoSchedule is when each statement of an interleaving finished on
// PostgreSQL: waited[i] says step i was still blocked on a lock after
// it was sent; done[i] lists the sessions whose blocked statement
// finished after step i. The pgproxy run follows it, so neither run
// decides "waits" by how long a statement took on a loaded machine.
type isoSchedule struct {
	waited []bool
	done   [][]int
}

// isoOracle decides whether session i's statement, not finished yet,
// is blocked (true) or still running: PostgreSQL's is blocked when
// pg_stat_activity shows it waiting for a lock; pgproxy's follows the
// schedule.
type isoOracle func(i int) bool

// pgLockOracle watches the sessions' backends from mon.
func pgLockOracle(t *testing.T, mon *pgx.Conn, conns [2]*pgx.Conn) isoOracle {
	return func(i int) bool {
		var ev *string
		err := mon.QueryRow(context.Background(), "SELECT wait_event_type FROM pg_stat_activity WHERE pid = $1", conns[i].PgConn().PID()).Scan(&ev)
		if err != nil {
			t.Fatal(err)
		}
		return ev != nil && *ev == "Lock"
	}
}

// settle waits for session i's result: it returns it, or "" when the
// statement is blocked. With a schedule (pgproxy) the answer is
// expected — blocked statements get a short look, finishing ones as
// long as they need; without one (PostgreSQL) a statement is blocked
// when the oracle sees it waiting for a lock throughout 600 ms (longer
// than deadlock_timeout and lock_timeout of the cases, which end a
// wait by themselves).
func settle(ss *isoSession, i int, blocked isoOracle, expectBlocked *bool) string {
	if expectBlocked != nil {
		wait := 30 * time.Second
		if *expectBlocked {
			wait = 300 * time.Millisecond
		}
		select {
		case r := <-ss.res:
			return r
		case <-time.After(wait):
			return ""
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	var lockSince time.Time
	for time.Now().Before(deadline) {
		select {
		case r := <-ss.res:
			return r
		case <-time.After(50 * time.Millisecond):
		}
		if !blocked(i) {
			lockSince = time.Time{}
			continue
		}
		if lockSince.IsZero() {
			lockSince = time.Now()
		} else if time.Since(lockSince) >= 600*time.Millisecond {
			return ""
		}
	}
	return ""
}

// runInterleaving runs c on two sessions and returns the trace of
// outcomes: each step's result, or "waits" and later "→ result" when
// it finished after a later step, and the final contents of kv. With
// sched nil it records PostgreSQL's schedule into rec (blocked asks
// its oracle); else it follows sched.
func runInterleaving(t *testing.T, conns [2]*pgx.Conn, level string, c isoCase, blocked isoOracle, sched, rec *isoSchedule) string {
	t.Helper()
	ctx := context.Background()
	ss := [2]*isoSession{newIsoSession(conns[0]), newIsoSession(conns[1])}
	defer close(ss[0].reqs)
	defer close(ss[1].reqs)
	var trace []string
	pending := [2]bool{}
	all := append([]isoStep{{0, "BEGIN ISOLATION LEVEL " + level}, {1, "BEGIN ISOLATION LEVEL " + level}}, c.steps...)
	if rec != nil {
		rec.waited, rec.done = make([]bool, len(all)+1), make([][]int, len(all)+1)
	}
	expect := func(step int, who int, waitedStep bool) *bool {
		if sched == nil {
			return nil
		}
		if waitedStep {
			b := sched.waited[step]
			return &b
		}
		b := !slices.Contains(sched.done[step], who)
		return &b
	}
	collect := func(step int) {
		for i := range ss {
			if !pending[i] {
				continue
			}
			if r := settle(ss[i], i, blocked, expect(step, i, false)); r != "" {
				pending[i] = false
				trace = append(trace, fmt.Sprintf("  s%d → %s", i, r))
				if rec != nil {
					rec.done[step] = append(rec.done[step], i)
				}
			}
		}
	}
	for k, st := range all {
		if pending[st.who] {
			t.Fatalf("%s: session %d is still waiting", c.name, st.who)
		}
		ss[st.who].reqs <- st.sql
		if r := settle(ss[st.who], st.who, blocked, expect(k, st.who, true)); r != "" {
			trace = append(trace, fmt.Sprintf("s%d %s: %s", st.who, st.sql, r))
		} else {
			pending[st.who] = true
			trace = append(trace, fmt.Sprintf("s%d %s: waits", st.who, st.sql))
			if rec != nil {
				rec.waited[k] = true
			}
		}
		collect(k)
	}
	// whatever still waits must finish now that both sessions are done
	final := len(all)
	for i := range ss {
		if pending[i] {
			select {
			case r := <-ss[i].res:
				pending[i] = false
				trace = append(trace, fmt.Sprintf("  s%d → %s", i, r))
				if rec != nil {
					rec.done[final] = append(rec.done[final], i)
				}
			case <-time.After(30 * time.Second):
			}
		}
	}
	if pending[0] || pending[1] {
		t.Fatalf("%s: a session never finished:\n%s", c.name, strings.Join(trace, "\n"))
	}
	rows, err := conns[0].Query(ctx, "SELECT k, v FROM kv ORDER BY k")
	if err != nil {
		t.Fatal(err)
	}
	var kv []string
	for rows.Next() {
		var k, v int64
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		kv = append(kv, fmt.Sprintf("%d=%d", k, v))
	}
	trace = append(trace, "kv: "+strings.Join(kv, ","))
	return strings.Join(trace, "\n")
}

// TestConcurrencyMatrix runs every interleaving of isoCases at every
// isolation level against PostgreSQL 15 and pgproxy and requires the
// same trace: which statements wait, each statement's command tag or
// SQLSTATE (commit, wait then commit, 23505, 40001, 40P01, 55P03), and
// the final rows.
func TestConcurrencyMatrix(t *testing.T) {
	pg := pgtest.Shared(t)
	// Levels are independent (own database, own server), so they run in
	// parallel: the matrix is mostly waiting on lock timeouts, not CPU.
	for i, level := range isoLevels {
		t.Run(level, func(t *testing.T) {
			t.Parallel()
			runMatrixLevel(t, pg, fmt.Sprintf("isolation_matrix_%d", i), level)
		})
	}
}

// runMatrixLevel runs every isoCase at one isolation level against a
// database of its own in PostgreSQL and a pgproxy server of its own.
func runMatrixLevel(t *testing.T, pg *pgtest.Server, db, level string) {
	ctx := context.Background()
	freshPGDatabase(ctx, t, pg, db)
	ts := startServer(t, nil)
	connect := func(url string, pgSide bool) *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		if pgSide {
			// PostgreSQL checks for deadlocks deadlock_timeout after a
			// wait began; the waiter that closes the cycle is then the
			// one that finds it, as here
			if _, err := c.Exec(ctx, "SET deadlock_timeout = '100ms'"); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	pgConns := [2]*pgx.Conn{connect(pg.ConnString(db), true), connect(pg.ConnString(db), true)}
	pgBlocked := pgLockOracle(t, connect(pg.ConnString(db), false), pgConns)
	ggConns := [2]*pgx.Conn{connect(ts.url("main"), false), connect(ts.url("main"), false)}
	reset := func(c *pgx.Conn) {
		for _, sql := range []string{"DROP TABLE IF EXISTS kc", "DROP TABLE IF EXISTS kv", "CREATE TABLE kv (k int8 PRIMARY KEY, v int8 NOT NULL)", "INSERT INTO kv VALUES (1, 10), (2, 20), (3, 30)"} {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	setup := func(c *pgx.Conn, sqls []string) {
		for _, sql := range sqls {
			if _, err := c.Exec(ctx, sql); err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
		}
	}
	var summary []string
	for _, c := range isoCases {
		if c.onlyAt != nil && !slices.Contains(c.onlyAt, level) {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			reset(pgConns[0])
			setup(pgConns[0], c.setup)
			var sched isoSchedule
			want := runInterleaving(t, pgConns, level, c, pgBlocked, nil, &sched)
			reset(ggConns[0])
			setup(ggConns[0], c.setup)
			got := runInterleaving(t, ggConns, level, c, nil, &sched, nil)
			if slices.Contains(c.failsAtCommit, level) {
				lines := func(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }
				if !strings.Contains(got, "COMMIT: 40001") || slices.Contains(lines(got), "  s1 → 23503") || lines(got)[len(lines(got))-1] != lines(want)[len(lines(want))-1] {
					t.Fatalf("want a COMMIT to fail with 40001, leaving PostgreSQL's rows:\nPostgreSQL:\n%s\npgproxy:\n%s", want, got)
				}
				summary = append(summary, level+" / "+c.name+": "+isoOutcome(got)+"  (PostgreSQL: "+isoOutcome(want)+")")
				return
			}
			if c.readValidated && level == "SERIALIZABLE" {
				if !strings.Contains(got, "s1 COMMIT: 40001") || strings.Contains(want, "40001") {
					t.Fatalf("want the reader's COMMIT to fail with 40001 where PostgreSQL commits:\nPostgreSQL:\n%s\npgproxy:\n%s", want, got)
				}
				summary = append(summary, level+" / "+c.name+": "+isoOutcome(got)+"  (PostgreSQL commits both)")
				return
			}
			if got != want {
				t.Fatalf("PostgreSQL:\n%s\npgproxy:\n%s", want, got)
			}
			summary = append(summary, level+" / "+c.name+": "+isoOutcome(got))
		})
	}
	t.Logf("%s matrix (outcomes equal to PostgreSQL 15):\n%s", level, strings.Join(summary, "\n"))
}

// outcome condenses a trace to the second session's results.
func isoOutcome(trace string) string {
	var out []string
	for _, l := range strings.Split(trace, "\n") {
		if strings.HasPrefix(l, "s1 ") || strings.HasPrefix(l, "  s1") {
			if i := strings.LastIndex(l, ": "); i >= 0 && !strings.HasPrefix(l, "  ") {
				out = append(out, l[i+2:])
			} else {
				out = append(out, strings.TrimSpace(l))
			}
		}
	}
	return strings.Join(out[1:], ", ")
}
