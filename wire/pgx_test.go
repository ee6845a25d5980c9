package wire

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

func TestPgxQueryModes(t *testing.T) {
	ts := startServer(t, nil)
	modes := []struct {
		name string
		mode pgx.QueryExecMode
	}{
		{"cache_statement", pgx.QueryExecModeCacheStatement},
		{"cache_describe", pgx.QueryExecModeCacheDescribe},
		{"describe_exec", pgx.QueryExecModeDescribeExec},
		{"exec", pgx.QueryExecModeExec},
		{"simple_protocol", pgx.QueryExecModeSimpleProtocol},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			c := ts.pgx(t, "")
			ctx := ctxT(t)
			var one int32
			if err := c.QueryRow(ctx, "select 1", m.mode).Scan(&one); err != nil || one != 1 {
				t.Fatalf("select 1 = %d, %v", one, err)
			}
			rows, err := c.Query(ctx, "select gen(5)", m.mode)
			if err != nil {
				t.Fatal(err)
			}
			var sum int64
			var labels []string
			for rows.Next() {
				var n int64
				var l string
				if err := rows.Scan(&n, &l); err != nil {
					t.Fatal(err)
				}
				sum += n
				labels = append(labels, l)
			}
			if rows.Err() != nil {
				t.Fatal(rows.Err())
			}
			if tag := rows.CommandTag().String(); tag != "SELECT 5" {
				t.Errorf("tag = %q", tag)
			}
			if sum != 15 || labels[4] != "row-5" {
				t.Errorf("sum=%d labels=%v", sum, labels)
			}
			_, err = c.Exec(ctx, "select fail()", m.mode)
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != "42P01" || pe.Position != 15 {
				t.Errorf("fail() = %v", err)
			}
			if m.mode == pgx.QueryExecModeSimpleProtocol {
				return // parameters are interpolated client-side; the fake cannot echo them
			}
			var a int64
			var b string
			if err := c.QueryRow(ctx, "select echo_int($1, $2)", m.mode, int64(42), "hi").Scan(&a, &b); err != nil {
				t.Fatalf("echo: %v", err)
			}
			if a != 42 || b != "hi" {
				t.Errorf("echo = %d %q", a, b)
			}
		})
	}
}

func TestPgxTransactions(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.pgx(t, "")
	ctx := ctxT(t)
	ts.backend.takeEvents()

	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st := c.PgConn().TxStatus(); st != 'T' {
		t.Fatalf("tx status %c", st)
	}
	if _, err := tx.Exec(ctx, "insert into t values ($1)", "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "select fail()"); pgCode(err) != "42P01" {
		t.Fatalf("fail: %v", err)
	}
	if st := c.PgConn().TxStatus(); st != 'E' {
		t.Fatalf("tx status after error %c", st)
	}
	if _, err := tx.Exec(ctx, "select 1"); pgCode(err) != CodeInFailedSQLTransaction {
		t.Fatalf("in failed tx: %v", err)
	}
	// COMMIT of a failed transaction answers ROLLBACK.
	tag, err := c.PgConn().Exec(ctx, "commit").ReadAll()
	if err != nil || tag[0].CommandTag.String() != "ROLLBACK" {
		t.Fatalf("commit in failed tx: %v %v", tag, err)
	}
	if n := len(ts.backend.rows()); n != 0 {
		t.Fatalf("rolled-back insert visible: %d rows", n)
	}
	tx, err = c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx.Exec(ctx, "insert into t values ($1)", "b")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if rows := ts.backend.rows(); len(rows) != 1 || rows[0][0] != "b" {
		t.Fatalf("rows after commit: %v", rows)
	}
	ev := strings.Join(ts.backend.takeEvents(), ",")
	if ev != "begin,rollback,begin,commit" {
		t.Errorf("events = %s", ev)
	}
}

func TestPgxBatchPipeline(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.pgx(t, "")
	ctx := ctxT(t)
	b := &pgx.Batch{}
	b.Queue("insert into t values ($1)", "x")
	b.Queue("select gen(3)")
	b.Queue("insert into t values ($1)", "y")
	b.Queue("select echo_int($1)", int64(7))
	res := c.SendBatch(ctx, b)
	if _, err := res.Exec(); err != nil {
		t.Fatal(err)
	}
	rows, err := res.Query()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	if n != 3 {
		t.Fatalf("gen rows %d", n)
	}
	if _, err := res.Exec(); err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := res.QueryRow().Scan(&v); err != nil || v != 7 {
		t.Fatalf("echo %d %v", v, err)
	}
	if err := res.Close(); err != nil {
		t.Fatal(err)
	}
	if rows := ts.backend.rows(); len(rows) != 2 {
		t.Fatalf("rows %v", rows)
	}

	// An error inside a batch rolls back the whole implicit transaction.
	b = &pgx.Batch{}
	b.Queue("insert into t values ($1)", "z")
	b.Queue("select fail()")
	b.Queue("insert into t values ($1)", "w")
	err = c.SendBatch(ctx, b).Close()
	if pgCode(err) != "42P01" {
		t.Fatalf("batch error %v", err)
	}
	if rows := ts.backend.rows(); len(rows) != 2 {
		t.Fatalf("failed batch left rows %v", rows)
	}
	var one int32
	if err := c.QueryRow(ctx, "select 1").Scan(&one); err != nil {
		t.Fatalf("connection unusable after batch error: %v", err)
	}
}

func TestPgxCopyFrom(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.pgx(t, "")
	ctx := ctxT(t)
	src := make([][]any, 1000)
	for i := range src {
		src[i] = []any{int64(i), "v"}
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a", "b"}, pgx.CopyFromRows(src))
	if err != nil || n != 1000 {
		t.Fatalf("copy: %d %v", n, err)
	}
	rows := ts.backend.rows()
	if len(rows) != 1000 || rows[999][0] != "999" || rows[999][1] != "v" {
		t.Fatalf("copied rows: %d, last %v", len(rows), rows[len(rows)-1])
	}
	_, err = c.CopyFrom(ctx, pgx.Identifier{"nope"}, []string{"a"}, pgx.CopyFromRows([][]any{{int64(1)}}))
	if pgCode(err) != "42P01" {
		t.Fatalf("copy into missing table: %v", err)
	}
	var one int32
	if err := c.QueryRow(ctx, "select 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

func TestPgxCancelAndTimeout(t *testing.T) {
	ts := startServer(t, nil)
	ctx := ctxT(t)

	// pgx's CancelRequest handler: the server must cancel the statement
	// (57014) and the connection must stay usable.
	cfg, err := pgx.ParseConfig(ts.url(testUser, testPassword, "main", ""))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 10 * time.Second}
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	qctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	start := time.Now()
	_, err = c.Exec(qctx, "select sleep(10000)")
	cancel()
	if pgCode(err) != CodeQueryCanceled || time.Since(start) > 5*time.Second {
		t.Fatalf("cancel: err=%v after %v", err, time.Since(start))
	}
	var one int32
	if err := c.QueryRow(ctx, "select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("connection after cancel: %v", err)
	}

	c2 := ts.pgx(t, "")
	if _, err := c2.Exec(ctx, "set statement_timeout = '100ms'"); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	_, err = c2.Exec(ctx, "select sleep(10000)")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != CodeQueryCanceled || !strings.Contains(pe.Message, "statement timeout") {
		t.Fatalf("timeout: %v", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatalf("timeout took %v", time.Since(start))
	}
	if err := c2.QueryRow(ctx, "select 1").Scan(&one); err != nil {
		t.Fatalf("after timeout: %v", err)
	}
}

func TestPgxSettings(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.pgx(t, "application_name=first&options=-c%20graph.as_of%3Dv12%20-c%20extra_float_digits%3D2")
	ctx := ctxT(t)
	pc := c.PgConn()
	for name, want := range map[string]string{
		"server_version": ServerVersion, "client_encoding": "UTF8", "DateStyle": "ISO, MDY",
		"standard_conforming_strings": "on", "integer_datetimes": "on", "application_name": "first",
		"session_authorization": testUser, "IntervalStyle": "postgres",
	} {
		if got := pc.ParameterStatus(name); got != want {
			t.Errorf("ParameterStatus %s = %q, want %q", name, got, want)
		}
	}
	show := func(name string) string {
		t.Helper()
		var v string
		if err := c.QueryRow(ctx, "show "+name, pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil {
			t.Fatalf("show %s: %v", name, err)
		}
		return v
	}
	if v := show("graph.as_of"); v != "v12" {
		t.Errorf("graph.as_of from options = %q", v)
	}
	if v := show("extra_float_digits"); v != "2" {
		t.Errorf("extra_float_digits = %q", v)
	}
	if v := show("graph.branch"); v != "main" {
		t.Errorf("graph.branch = %q", v)
	}
	if _, err := c.Exec(ctx, "set application_name = 'second'"); err != nil {
		t.Fatal(err)
	}
	if got := pc.ParameterStatus("application_name"); got != "second" {
		t.Errorf("application_name not re-reported: %q", got)
	}
	if _, err := c.Exec(ctx, "set no_such_setting = 1"); pgCode(err) != CodeUndefinedObject {
		t.Errorf("unknown setting: %v", err)
	}
	if _, err := c.Exec(ctx, "set graph.branch = 'missing'"); pgCode(err) != CodeInvalidCatalogName {
		t.Errorf("validator: %v", err)
	}
	if _, err := c.Exec(ctx, "set statement_timeout = 5000"); err != nil {
		t.Fatal(err)
	}
	if v := show("statement_timeout"); v != "5s" {
		t.Errorf("statement_timeout = %q", v)
	}
	// SET inside a rolled-back transaction is undone; SET LOCAL ends with the transaction.
	tx, _ := c.Begin(ctx)
	tx.Exec(ctx, "set search_path = a, \"B\"")
	tx.Exec(ctx, "set local graph.branch = 'dev'")
	if v := show("graph.branch"); v != "dev" {
		t.Errorf("SET LOCAL = %q", v)
	}
	tx.Rollback(ctx)
	if v := show("search_path"); v != `"$user", public` {
		t.Errorf("search_path after rollback = %q", v)
	}
	if v := show("graph.branch"); v != "main" {
		t.Errorf("graph.branch after rollback = %q", v)
	}
	c.Exec(ctx, "set search_path = a, \"B\"")
	if v := show("search_path"); v != `a, "B"` {
		t.Errorf("search_path = %q", v)
	}
	var v string
	if err := c.QueryRow(ctx, "select pg_catalog.set_config('search_path', '', false)").Scan(&v); err != nil || v != "" {
		t.Errorf("set_config = %q, %v", v, err)
	}
	if err := c.QueryRow(ctx, "select current_setting('DateStyle')").Scan(&v); err != nil || v != "ISO, MDY" {
		t.Errorf("current_setting = %q, %v", v, err)
	}
	// every DateStyle and IntervalStyle is accepted and reported
	for _, set := range []struct{ sql, name, want string }{
		{"set datestyle = 'German'", "DateStyle", "German, DMY"},
		{"set intervalstyle = 'sql_standard'", "IntervalStyle", "sql_standard"},
	} {
		if _, err := c.Exec(ctx, set.sql); err != nil {
			t.Fatalf("%s: %v", set.sql, err)
		}
		if got := pc.ParameterStatus(set.name); got != set.want {
			t.Errorf("%s: ParameterStatus %s = %q, want %q", set.sql, set.name, got, set.want)
		}
	}
	if _, err := c.Exec(ctx, "set client_encoding = 'LATIN1'"); pgCode(err) != CodeFeatureNotSupported {
		t.Errorf("latin1: %v", err)
	}
	if _, err := c.Exec(ctx, "reset all"); err != nil {
		t.Fatal(err)
	}
	if got := pc.ParameterStatus("application_name"); got != "first" {
		t.Errorf("application_name after RESET ALL = %q (startup value expected)", got)
	}
}

func TestUnknownDatabase(t *testing.T) {
	ts := startServer(t, func(c *Config) {})
	ts.backend.rejectDB = "nope"
	_, err := pgx.Connect(ctxT(t), ts.url(testUser, testPassword, "nope", ""))
	if pgCode(err) != CodeInvalidCatalogName {
		t.Fatalf("unknown database: %v", err)
	}
}

func TestPortalSuspendedWithPgxRows(t *testing.T) {
	// pgx reads all rows in one Execute; use the raw pgconn API to ask for
	// a row limit.
	ts := startServer(t, nil)
	c := ts.pgx(t, "")
	ctx := ctxT(t)
	pc := c.PgConn()
	sd, err := pc.Prepare(ctx, "g", "select gen(10)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.Fields) != 2 || sd.Fields[0].DataTypeOID != 20 {
		t.Fatalf("fields %+v", sd.Fields)
	}
	rr := pc.ExecPrepared(ctx, "g", nil, nil, []int16{1})
	n := 0
	for rr.NextRow() {
		n++
	}
	if _, err := rr.Close(); err != nil || n != 10 {
		t.Fatalf("rows %d err %v", n, err)
	}
}

// TestPgxConformance is pgx's entry of the client suite: SCRAM over TLS,
// parameters, a batch pipeline, CopyFrom, a CancelRequest and an error.
func TestPgxConformance(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM; c.TLSSelfSigned = true; c.RequireTLS = true })
	ctx := ctxT(t)
	cfg, err := pgx.ParseConfig(ts.url(testUser, testPassword, "main", "sslmode=require"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(pc *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: pc, DeadlineDelay: 10 * time.Second}
	}
	c, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	var a int64
	var s string
	if err := c.QueryRow(ctx, "select echo_int($1, $2)", int64(5), "five").Scan(&a, &s); err != nil || a != 5 || s != "five" {
		t.Fatalf("params: %d %q %v", a, s, err)
	}
	b := &pgx.Batch{}
	for i := 0; i < 10; i++ {
		b.Queue("insert into t values ($1)", "b")
	}
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"t"}, []string{"a", "b"}, pgx.CopyFromRows([][]any{{int64(1), "x"}, {int64(2), "y"}}))
	if err != nil || n != 2 {
		t.Fatalf("copy: %d %v", n, err)
	}
	if got := len(ts.backend.rows()); got != 12 {
		t.Fatalf("rows %d", got)
	}
	qctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	_, err = c.Exec(qctx, "select sleep(10000)")
	cancel()
	if pgCode(err) != CodeQueryCanceled {
		t.Fatalf("cancel: %v", err)
	}
	if _, err := c.Exec(ctx, "select fail()"); pgCode(err) != "42P01" {
		t.Fatalf("error: %v", err)
	}
}
