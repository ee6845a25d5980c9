package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestCopyFrom: COPY FROM STDIN in text, csv and binary formats, with a
// column list (defaults for the rest), inside a transaction (pending
// until COMMIT) and with a constraint violation (nothing loaded).
func TestCopyFrom(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{{sql: "create table pts (id int8 primary key, name text, score float8 default 0.5, born date)"}})
	pc := c.PgConn()
	copyIn := func(sql, data string) (int64, error) {
		tag, err := pc.CopyFrom(ctx, strings.NewReader(data), sql)
		return tag.RowsAffected(), err
	}
	if n, err := copyIn("COPY pts FROM STDIN", "1\tada\t1.5\t2000-01-02\n2\t\\N\t2\t\\N\n"); err != nil || n != 2 {
		t.Fatalf("text: %d %v", n, err)
	}
	if n, err := copyIn("COPY pts (id, name) FROM STDIN WITH (FORMAT csv, HEADER true)", "id,name\n3,\"b,ob\"\n4,\n"); err != nil || n != 2 {
		t.Fatalf("csv: %d %v", n, err)
	}
	if _, err := copyIn("COPY pts FROM STDIN", "5\tx\t1\t2000-01-01\n1\tdup\t1\t2000-01-01\n"); sqlState(err) != "23505" {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := copyIn("COPY pts FROM STDIN", "6\tx\tnot-a-number\t\\N\n"); sqlState(err) != "22P02" {
		t.Fatalf("bad value: %v", err)
	}
	if _, err := copyIn("COPY pts FROM STDIN", "6\tx\n"); sqlState(err) != "22P04" {
		t.Fatalf("short row: %v", err)
	}
	if _, err := copyIn("COPY nope FROM STDIN", "1\n"); sqlState(err) != "42P01" {
		t.Fatalf("missing table: %v", err)
	}
	runScript(t, c, []step{
		{sql: "select id, coalesce(name, '-'), score, coalesce(born::text, '-') from pts order by id",
			rows: "1|ada|1.5|2000-01-02;2|-|2|-;3|b,ob|0.5|-;4|-|0.5|-"},
		{sql: "begin"},
	})
	if n, err := copyIn("COPY pts (id) FROM STDIN", "7\n8\n"); err != nil || n != 2 {
		t.Fatalf("in tx: %d %v", n, err)
	}
	runScript(t, c, []step{{sql: "select count(*) from pts", rows: "6"}})
	other := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, other, []step{{sql: "select count(*) from pts", rows: "4"}})
	runScript(t, c, []step{{sql: "commit"}})
	runScript(t, other, []step{{sql: "select count(*) from pts", rows: "6"}})
	// binary through pgx's CopyFrom (binary format)
	n, err := c.CopyFrom(ctx, pgx.Identifier{"pts"}, []string{"id", "name", "score"}, pgx.CopyFromRows([][]any{{int64(10), "bin", 3.25}, {int64(11), nil, 4.0}}))
	if err != nil || n != 2 {
		t.Fatalf("binary: %d %v", n, err)
	}
	runScript(t, c, []step{{sql: "select id, coalesce(name, '-'), score from pts where id >= 10 order by id", rows: "10|bin|3.25;11|-|4"}})
}

// TestCopyStreamBatches: an autocommit COPY larger than one batch is one
// graph commit; a duplicate key in a later batch than its first
// occurrence fails the whole COPY (nothing loaded).
func TestCopyStreamBatches(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{{sql: "create table big (id int8 primary key, v text)"}})
	var b strings.Builder
	const n = 3*copyBatchRows + 17
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\tv%d\n", i, i)
	}
	commits := ts.g.Stats().Commits
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(b.String()), "COPY big FROM STDIN")
	if err != nil || tag.RowsAffected() != n {
		t.Fatalf("copy: %v %v", tag, err)
	}
	if got := ts.g.Stats().Commits - commits; got != 1 {
		t.Fatalf("%d commits for one COPY", got)
	}
	b.Reset()
	for i := 1; i <= copyBatchRows+10; i++ {
		fmt.Fprintf(&b, "%d\tx\n", n+i)
	}
	fmt.Fprintf(&b, "%d\tdup\n", n+1)
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(b.String()), "COPY big FROM STDIN"); sqlState(err) != "23505" {
		t.Fatalf("cross-batch duplicate: %v", err)
	}
	runScript(t, c, []step{{sql: "select count(*), max(id) from big", rows: fmt.Sprintf("%d|%d", n, n)}})
}

// TestPendingMemoryLimit: a transaction's pending rows are bounded by the
// session memory limit (53200), and the session stays usable.
func TestPendingMemoryLimit(t *testing.T) {
	ts := startServer(t, nil)
	ts.backend.MemoryLimit = 128 << 10 // 100 rows' locks (rowLockBytes each) and records fit
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table m (id int8 primary key, v text)"},
		{sql: "begin"},
		{sql: "insert into m select g, repeat('x', 100) from generate_series(1, 100) g", tag: "INSERT 0 100"},
		{sql: "insert into m select g, repeat('x', 100) from generate_series(101, 2000) g", code: "53200", msg: "out of memory"},
		{sql: "rollback"},
		{sql: "insert into m select g, repeat('x', 100) from generate_series(1, 100) g", tag: "INSERT 0 100"},
	})
}

// TestRowLockMemoryLimit: the row locks a transaction holds count
// against the session memory limit with its pending rows (a DELETE's
// pending state is small, its locks are not), and the session stays
// usable.
func TestRowLockMemoryLimit(t *testing.T) {
	ts := startServer(t, nil)
	ts.backend.MemoryLimit = 256 << 10
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	runScript(t, c, []step{
		{sql: "create table m (id int8 primary key, v int8)"},
		{sql: "insert into m select g, g from generate_series(1, 300) g", tag: "INSERT 0 300"},
		{sql: "insert into m select g, g from generate_series(301, 600) g", tag: "INSERT 0 300"},
		{sql: "insert into m select g, g from generate_series(601, 900) g", tag: "INSERT 0 300"},
		{sql: "begin"},
		{sql: "delete from m where id <= 300", tag: "DELETE 300"},
		{sql: "delete from m", code: "53200", msg: "out of memory"},
		{sql: "rollback"},
		{sql: "select count(*) from m", rows: "900"},
	})
}

// TestCopyServerFileRefused: COPY to or from a server file or program is
// 0A000 naming that feature (not COPY as a whole), and the reply never
// echoes the path or command.
func TestCopyServerFileRefused(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, sql := range []string{
		"COPY people FROM '/etc/passwd'",
		"COPY people TO '/tmp/secret-out'",
		"COPY (SELECT 1) TO '/tmp/secret-out'",
		"COPY people FROM PROGRAM 'cat /etc/passwd'",
	} {
		_, err := c.Exec(context.Background(), sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "0A000" || pe.Message != "COPY to or from a server file or program is not supported yet" || strings.Contains(pe.Message+pe.Detail+pe.Hint, "/etc") || strings.Contains(pe.Message+pe.Detail+pe.Hint, "/tmp") {
			t.Errorf("%s: %v", sql, err)
		}
	}
}
