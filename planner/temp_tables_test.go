package planner

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// headVersion is the manifest version of branch main's head.
func headVersion(t *testing.T, ts *testServer) uint64 {
	t.Helper()
	sn, err := ts.g.Head(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	return sn.Version
}

// TestTempTablesSessionPrivate: a temporary table is its session's
// alone (another session neither sees it nor is kept from creating its
// own of the same name), no write to it is a graph commit, and it is
// gone when its session ends.
func TestTempTablesSessionPrivate(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	a := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.connect(t, pgx.QueryExecModeCacheStatement)
	if _, err := a.Exec(ctx, "create table perm (id int primary key)"); err != nil {
		t.Fatal(err)
	}
	v0 := headVersion(t, ts)
	steps := []struct {
		c   *pgx.Conn
		sql string
	}{
		{a, "create temp table tt (id int primary key, v text)"},
		{a, "insert into tt values (1, 'a'), (2, 'b')"},
		{a, "update tt set v = 'bb' where id = 2"},
		{a, "begin"},
		{a, "insert into tt values (3, 'c')"},
		{a, "delete from tt where id = 1"},
		{a, "commit"},
		{b, "create temp table tt (x text)"},
		{b, "insert into tt values ('other session')"},
		{a, "truncate tt"},
		{a, "insert into tt select g, 'g' from generate_series(10, 12) g"},
	}
	for _, s := range steps {
		if _, err := s.c.Exec(ctx, s.sql); err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
	}
	if v := headVersion(t, ts); v != v0 {
		t.Fatalf("writes to temporary tables made graph commits: head %d → %d", v0, v)
	}
	var n int
	var x string
	if err := a.QueryRow(ctx, "select count(*) from tt").Scan(&n); err != nil || n != 3 {
		t.Fatalf("session a's tt: %d rows, %v", n, err)
	}
	if err := b.QueryRow(ctx, "select x from tt").Scan(&x); err != nil || x != "other session" {
		t.Fatalf("session b's tt: %q, %v", x, err)
	}
	var nsA, nsB string
	if err := a.QueryRow(ctx, "select relnamespace::regnamespace::text from pg_class where relname = 'tt'").Scan(&nsA); err != nil {
		t.Fatal(err)
	}
	if err := b.QueryRow(ctx, "select relnamespace::regnamespace::text from pg_class where relname = 'tt'").Scan(&nsB); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(nsA, "pg_temp_") || nsA == nsB {
		t.Fatalf("temporary schemas %q and %q", nsA, nsB)
	}
	// the session ends: its temporary tables with it
	if err := b.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "select * from tt"); sqlState(err) != "42P01" {
		t.Fatalf("a new session sees tt: %v", err)
	}
	if _, err := c.Exec(ctx, "select * from "+nsB+".tt"); err == nil {
		t.Fatal("the ended session's temporary table is still there")
	}
}

// TestTempViewsSequencesSessionPrivate: temporary views and sequences
// are their session's alone, creating, using and dropping them is no
// graph commit, and they are gone when the session ends.
func TestTempViewsSequencesSessionPrivate(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	a := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.connect(t, pgx.QueryExecModeCacheStatement)
	if _, err := a.Exec(ctx, "create table perm (id int primary key)"); err != nil {
		t.Fatal(err)
	}
	v0 := headVersion(t, ts)
	for _, s := range []struct {
		c   *pgx.Conn
		sql string
	}{
		{a, "create temp view tv as select 'a' as who"},
		{a, "create temp sequence ts start 10"},
		{a, "select nextval('ts')"},
		{a, "begin"},
		{a, "create temp view tv2 as select id from perm"},
		{a, "select nextval('ts')"},
		{a, "commit"},
		{a, "create view auto as select who from tv"}, // reads a temporary view: temporary
		{b, "create temp view tv as select 'b' as who"},
		{b, "create temp sequence ts start 100"},
		{a, "drop view tv2"},
	} {
		if _, err := s.c.Exec(ctx, s.sql); err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
	}
	if v := headVersion(t, ts); v != v0 {
		t.Fatalf("temporary views and sequences made graph commits: head %d → %d", v0, v)
	}
	var who string
	var n int64
	for _, c := range []struct {
		conn      *pgx.Conn
		who       string
		next      int64
		relations int
	}{{a, "a", 12, 3}, {b, "b", 100, 2}} {
		if err := c.conn.QueryRow(ctx, "select who from tv").Scan(&who); err != nil || who != c.who {
			t.Fatalf("session %s's tv: %q, %v", c.who, who, err)
		}
		if err := c.conn.QueryRow(ctx, "select nextval('ts')").Scan(&n); err != nil || n != c.next {
			t.Fatalf("session %s's ts: %d, %v", c.who, n, err)
		}
		if err := c.conn.QueryRow(ctx, "select count(*) from pg_class where relpersistence = 't'").Scan(&n); err != nil || n != int64(c.relations) {
			t.Fatalf("session %s: %d temporary relations, %v", c.who, n, err)
		}
	}
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, q := range []string{"select * from tv", "select * from auto", "select nextval('ts')"} {
		if _, err := c.Exec(ctx, q); sqlState(err) != "42P01" {
			t.Fatalf("a new session: %s: %v, want 42P01", q, err)
		}
	}
	if v := headVersion(t, ts); v != v0 {
		t.Fatalf("the session's end made a graph commit: head %d → %d", v0, v)
	}
}

// TestTempTablesCommitWithGraph: a transaction writing a temporary and
// a graph table commits both or neither: when its graph commit fails
// (40001, a serialization failure), the temporary table keeps its
// state from before.
func TestTempTablesCommitWithGraph(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	a := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	b := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, sql := range []string{
		"create table acct (id int primary key, bal int)",
		"insert into acct values (1, 100)",
		"create temp table audit (note text)",
		"insert into audit values ('before')",
		"begin isolation level serializable",
		"select count(*) from acct",
		"insert into audit values ('in tx')",
		"insert into acct values (3, 1)",
	} {
		if _, err := a.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// a row matching what a read: its SERIALIZABLE commit fails
	if _, err := b.Exec(ctx, "insert into acct values (2, 5)"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, "commit"); sqlState(err) != "40001" {
		t.Fatalf("commit after a concurrent update: %v, want 40001", err)
	}
	var notes string
	if err := a.QueryRow(ctx, "select string_agg(note, ',' order by note) from audit").Scan(&notes); err != nil || notes != "before" {
		t.Fatalf("after the failed commit audit holds %q (%v), want before", notes, err)
	}
	// and a successful one publishes the graph row and keeps the
	// temporary one
	for _, sql := range []string{"begin", "insert into audit values ('kept')", "insert into acct values (4, 5)", "commit"} {
		if _, err := a.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	var n int
	if err := b.QueryRow(ctx, "select count(*) from acct").Scan(&n); err != nil || n != 3 {
		t.Fatalf("the graph table after the commit: %d rows, %v", n, err)
	}
	if err := a.QueryRow(ctx, "select string_agg(note, ',' order by note) from audit").Scan(&notes); err != nil || notes != "before,kept" {
		t.Fatalf("audit holds %q (%v)", notes, err)
	}
	if _, err := b.Exec(ctx, "select * from audit"); sqlState(err) != "42P01" {
		t.Fatalf("another session reads audit: %v", err)
	}
}

// TestTempTablesPsqlDescribe: psql's \d, \dt and \d+ list and describe a
// temporary table as PostgreSQL 15's psql shows it against PostgreSQL
// 15 (the pg_temp_N number aside).
func TestTempTablesPsqlDescribe(t *testing.T) {
	pgtest.PsqlPath(t)
	pg := pgtest.Shared(t)
	ctx := context.Background()
	freshPGDatabase(ctx, t, pg, "temp_psql")
	ts := startServer(t, nil)
	args := []string{"-X", "-c", "create temp table tt (id int primary key, v text not null default 'x')",
		"-c", `\d tt`, "-c", `\dt`, "-c", `\d`}
	run := func(conn string) string {
		res := pgtest.Psql{Args: append([]string{"-d", conn}, args...), Combined: true}.Run(t)
		if res.ExitCode != 0 {
			t.Fatalf("psql: exit %d\n%s", res.ExitCode, res.Stdout)
		}
		return regexp.MustCompile(`pg_temp_\d+`).ReplaceAllString(res.Stdout, "pg_temp_N")
	}
	// the same role name on both, so the Owner columns compare
	want, got := run(pg.ConnString("temp_psql")), run(strings.Replace(ts.url("main"), "app@", "postgres@", 1))
	if want != got {
		t.Fatalf("psql output differs\npostgres:\n%s\npgproxy:\n%s", want, got)
	}
}

// TestTempTablesCopy: COPY FROM into a temporary table (autocommit and
// in a transaction) keeps its rows in the session, no graph commit;
// COPY TO reads them back.
func TestTempTablesCopy(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "create temp table ct (id int primary key, v text)"); err != nil {
		t.Fatal(err)
	}
	v0 := headVersion(t, ts)
	n, err := c.CopyFrom(ctx, pgx.Identifier{"ct"}, []string{"id", "v"}, pgx.CopyFromRows([][]any{{int32(1), "a"}, {int32(2), "b"}}))
	if err != nil || n != 2 {
		t.Fatalf("copy: %d, %v", n, err)
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"ct"}, []string{"id", "v"}, pgx.CopyFromRows([][]any{{int32(3), "c"}})); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"ct"}, []string{"id", "v"}, pgx.CopyFromRows([][]any{{int32(1), "dup"}})); sqlState(err) != "23505" {
		t.Fatalf("duplicate key through COPY: %v", err)
	}
	if v := headVersion(t, ts); v != v0 {
		t.Fatalf("COPY into a temporary table made graph commits: head %d → %d", v0, v)
	}
	var got string
	if err := c.QueryRow(ctx, "select string_agg(id || v, ',' order by id) from ct").Scan(&got); err != nil || got != "1a,2b,3c" {
		t.Fatalf("ct holds %q, %v", got, err)
	}
}

// TestTempTablesPreparedRebind: a prepared statement reading a
// temporary table sees every committed change of it (its binding is
// kept per temporary state), and a temporary table created later
// shadows the permanent table it read.
func TestTempTablesPreparedRebind(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	count := func(want int) {
		t.Helper()
		var n int
		if err := c.QueryRow(ctx, "select count(*) from tt").Scan(&n); err != nil || n != want {
			t.Fatalf("count: %d, %v; want %d", n, err, want)
		}
	}
	for _, sql := range []string{"create table tt (a int)", "insert into tt values (1), (2), (3)"} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	count(3)
	if _, err := c.Exec(ctx, "create temp table tt (a int)"); err != nil {
		t.Fatal(err)
	}
	count(0)
	if _, err := c.Exec(ctx, "insert into tt values (1)"); err != nil {
		t.Fatal(err)
	}
	count(1)
	if _, err := c.Exec(ctx, "drop table tt"); err != nil {
		t.Fatal(err)
	}
	count(3)
}
