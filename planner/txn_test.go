package planner

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestTransactions: read-your-writes, rollback, commit, savepoints, the
// failed state and READ ONLY, in each protocol mode.
func TestTransactions(t *testing.T) {
	steps := []step{
		{sql: "begin"},
		{sql: "insert into people values (10, 'tx', 1)", tag: "INSERT 0 1"},
		{sql: "select count(*) from people", rows: "4"},
		{sql: "update people set name = 'tx2' where id = 10"},
		{sql: "select name from people where id = 10", rows: "tx2"},
		{sql: "delete from people where id = 1"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "2,3,10"},
		{sql: "rollback"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "1,2,3"},
		// commit
		{sql: "begin"},
		{sql: "insert into people values (10, 'a', 1), (11, 'b', 2)"},
		{sql: "delete from people where id = 2"},
		{sql: "update people set score = 0 where id = 11"},
		{sql: "commit"},
		{sql: "select string_agg(id::text || ':' || score::text, ',' order by id) from people", rows: "1:1.5,3:0.1,10:1,11:0"},
		// savepoints
		{sql: "begin"},
		{sql: "insert into people values (20, 's', 1)"},
		{sql: "savepoint a"},
		{sql: "insert into people values (21, 's', 1)"},
		{sql: "delete from people where id = 1"},
		{sql: "select count(*) from people", rows: "5"},
		{sql: "rollback to savepoint a"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "1,3,10,11,20"},
		{sql: "insert into people values (22, 's', 1)"},
		{sql: "release savepoint a"},
		{sql: "commit"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "1,3,10,11,20,22"},
		// the failed state: an error aborts the block until ROLLBACK
		{sql: "begin"},
		{sql: "insert into people values (30, 'f', 1)"},
		{sql: "insert into people values (1, 'dup', 1)", code: "23505", msg: "people_pkey"},
		{sql: "select 1", code: "25P02", msg: "current transaction is aborted"},
		{sql: "rollback"},
		{sql: "select count(*) from people where id = 30", rows: "0"},
		// an error rolled back to a savepoint keeps the earlier work
		{sql: "begin"},
		{sql: "insert into people values (31, 'g', 1)"},
		{sql: "savepoint s"},
		{sql: "insert into people values (1, 'dup', 1)", code: "23505", msg: "people_pkey"},
		{sql: "rollback to savepoint s"},
		{sql: "commit"},
		{sql: "select count(*) from people where id = 31", rows: "1"},
		// READ ONLY
		{sql: "begin read only"},
		{sql: "select count(*) from people", rows: "7"},
		{sql: "insert into people values (40, 'r', 1)", code: "25006", msg: "cannot execute INSERT in a read-only transaction"},
		{sql: "rollback"},
		{sql: "begin"},
		{sql: "set transaction read only"},
		{sql: "delete from people", code: "25006", msg: "cannot execute DELETE in a read-only transaction"},
		{sql: "rollback"},
		{sql: "set default_transaction_read_only = on"},
		{sql: "update people set score = 1", code: "25006", msg: "cannot execute UPDATE in a read-only transaction"},
		{sql: "set default_transaction_read_only = off"},
		{sql: "update people set score = 1 where id = 1", tag: "UPDATE 1"},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, createPeople(t))
			runScript(t, ts.connect(t, m.mode), steps)
		})
	}
}

// TestConflictingTransactions: two SERIALIZABLE transactions that both
// read all of people and insert into it: exactly one COMMIT succeeds,
// the other gets 40001 (at READ COMMITTED both commit:
// TestRowLevelCommit).
func TestConflictingTransactions(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	a, b := ts.connect(t, pgx.QueryExecModeSimpleProtocol), ts.connect(t, pgx.QueryExecModeCacheStatement)
	for i, c := range []*pgx.Conn{a, b} {
		if _, err := c.Exec(ctx, "begin isolation level serializable"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := c.QueryRow(ctx, "select count(*) from people").Scan(&n); err != nil || n != 3 {
			t.Fatalf("count %d %v", n, err)
		}
		if _, err := c.Exec(ctx, fmt.Sprintf("insert into people values (%d, 'c', 1)", 50+i)); err != nil {
			t.Fatal(err)
		}
	}
	errA := commit(ctx, a)
	errB := commit(ctx, b)
	if errA != nil || sqlState(errB) != "40001" {
		t.Fatalf("commits: a=%v b=%v, want a ok and b 40001", errA, errB)
	}
	var n int
	if err := b.QueryRow(ctx, "select count(*) from people").Scan(&n); err != nil || n != 4 {
		t.Fatalf("after: %d %v", n, err)
	}
}

func commit(ctx context.Context, c *pgx.Conn) error {
	_, err := c.Exec(ctx, "commit")
	return err
}

// TestForUpdateConflict: SELECT … FOR UPDATE of one table locks the
// rows it returns: a concurrent UPDATE of such a row waits until the
// locking transaction ends (then applies to the committed row), an
// UPDATE of another row does not wait, and FOR UPDATE NOWAIT of a locked
// row fails with 55P03.
func TestForUpdateConflict(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	a, b := ts.connect(t, pgx.QueryExecModeSimpleProtocol), ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	run := func(c *pgx.Conn, sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	run(a, "begin")
	run(a, "select * from people where id = 1 for update")
	run(b, "update people set score = 7 where id = 2") // another row: no wait
	done := make(chan error, 1)
	go func() {
		_, err := b.Exec(ctx, "update people set score = score + 1 where id = 1")
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the UPDATE of a locked row did not wait: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	run(a, "update people set score = 10 where id = 1")
	if err := commit(ctx, a); err != nil {
		t.Fatalf("locking transaction's commit: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("waiting UPDATE: %v", err)
	}
	if got := scalar(t, a, "select score::text from people where id = 1"); got != "11" {
		t.Fatalf("score %s, want 11 (the waiter re-read the committed row)", got)
	}
	run(a, "begin")
	run(a, "select id from people where id = 1 for share")
	run(b, "begin")
	if _, err := b.Exec(ctx, "select id from people where id = 1 for update nowait"); sqlState(err) != "55P03" {
		t.Fatalf("FOR UPDATE NOWAIT of a share-locked row: %v, want 55P03", err)
	}
	run(b, "rollback")
	run(a, "rollback")
}

// TestAutocommitReprepare: concurrent autocommit inserts into one table
// all succeed (a read-set change before the effects re-prepares the
// statement), and a unique violation found only after re-preparing is
// still reported.
func TestAutocommitReprepare(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	const n = 2
	conns := make([]*pgx.Conn, n)
	for i := range conns {
		conns[i] = ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	}
	// Every statement is its own commit in graph.commits, also when group
	// commit publishes several in one manifest version.
	var commitsBefore int
	if err := conns[0].QueryRow(ctx, "select count(*) from graph.commits").Scan(&commitsBefore); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range conns {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < 3 && errs[i] == nil; k++ {
				_, errs[i] = conns[i].Exec(ctx, fmt.Sprintf("insert into people values (%d, 'r', 1)", 100+i*10+k))
			}
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("conn %d: %v", i, err)
		}
	}
	var cnt int
	if err := conns[0].QueryRow(ctx, "select count(*) from people").Scan(&cnt); err != nil || cnt != 3+3*n {
		t.Fatalf("count %d %v, want %d", cnt, err, 3+3*n)
	}
	var commitsAfter int
	if err := conns[0].QueryRow(ctx, "select count(*) from graph.commits").Scan(&commitsAfter); err != nil {
		t.Fatal(err)
	}
	if commitsAfter-commitsBefore != 3*n {
		t.Fatalf("graph.commits grew by %d, want %d (one per statement)", commitsAfter-commitsBefore, 3*n)
	}
	t.Logf("coordinator: %+v", ts.g.Stats())
}

// TestAdvisoryLocks: session-level advisory locks exclude other sessions
// of the process until unlocked; transaction-level ones until the end of
// the transaction.
func TestAdvisoryLocks(t *testing.T) {
	ts := startServer(t, createPeople(t))
	a, b := ts.connect(t, pgx.QueryExecModeSimpleProtocol), ts.connect(t, pgx.QueryExecModeCacheStatement)
	runScript(t, a, []step{{sql: "select pg_advisory_lock(42)", rows: ""}, {sql: "select pg_try_advisory_lock(7, 8)", rows: "true"}})
	runScript(t, b, []step{{sql: "select pg_try_advisory_lock(42)", rows: "false"}, {sql: "select pg_try_advisory_lock(7, 8)", rows: "false"}})
	runScript(t, a, []step{{sql: "select pg_advisory_unlock(42)", rows: "true"}, {sql: "select pg_advisory_unlock(42)", rows: "false"}})
	runScript(t, b, []step{{sql: "select pg_try_advisory_lock(42)", rows: "true"}})
	runScript(t, a, []step{{sql: "select pg_advisory_unlock_all()"}})
	runScript(t, b, []step{{sql: "select pg_try_advisory_lock(7, 8)", rows: "true"}, {sql: "select pg_advisory_unlock_all()"}})
	runScript(t, a, []step{{sql: "begin"}, {sql: "select pg_advisory_xact_lock(5)"}})
	runScript(t, b, []step{{sql: "select pg_try_advisory_lock(5)", rows: "false"}})
	runScript(t, a, []step{{sql: "commit"}})
	runScript(t, b, []step{{sql: "select pg_try_advisory_lock(5)", rows: "true"}})
}

// TestMultiStatementQuery: a later statement of one simple query reads
// what an earlier autocommit statement of it wrote.
func TestMultiStatementQuery(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	res, err := c.PgConn().Exec(context.Background(), "insert into people values (10, 'x', 1); select count(*) from people").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].CommandTag.String() != "INSERT 0 1" || len(res[1].Rows) != 1 || string(res[1].Rows[0][0]) != "4" {
		t.Fatalf("results: %+v", res)
	}
	// one implicit transaction: a failing later statement undoes the
	// earlier ones, as in PostgreSQL
	commits := ts.g.Stats().Commits
	_, err = c.PgConn().Exec(context.Background(), "insert into people values (20, 'a', 1); insert into people values (1, 'dup', 1)").ReadAll()
	if sqlState(err) != "23505" {
		t.Fatalf("duplicate: %v", err)
	}
	_, err = c.PgConn().Exec(context.Background(), "insert into people values (21, 'a', 1); update people set score = 0 where id = 21; delete from people where id = 10").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.g.Stats().Commits - commits; got != 1 {
		t.Fatalf("%d commits for one multi-statement query", got)
	}
	runScript(t, c, []step{{sql: "select string_agg(id::text || ':' || score::text, ',' order by id) from people", rows: "1:1.5,2:2.25,3:0.1,21:0"}})
}

// TestBeginInsideQuery: "SET …; BEGIN; …; ROLLBACK" in one simple query:
// the statements after BEGIN belong to the block (the rollback undoes
// them), as in PostgreSQL.
func TestBeginInsideQuery(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	_, err := c.PgConn().Exec(context.Background(), "set application_name = 'm'; begin; insert into people values (10, 'x', 1); rollback").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{{sql: "select count(*) from people", rows: "3"}})
	_, err = c.PgConn().Exec(context.Background(), "set application_name = 'm'; begin; insert into people values (10, 'x', 1); insert into people values (11, 'y', 1); commit").ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	runScript(t, c, []step{{sql: "select count(*) from people", rows: "5"}})
}
