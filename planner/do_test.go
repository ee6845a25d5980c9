package planner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// noticeConn is a simple-protocol connection whose notices are kept
// (severity, SQLSTATE, message, detail, hint and CONTEXT).
type noticeConn struct {
	c       *pgx.Conn
	notices []string
}

func connectNotices(t *testing.T, url string) *noticeConn {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	nc := &noticeConn{}
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) {
		nc.notices = append(nc.notices, fmt.Sprintf("%s %s: %s | %s | hint: %s | context: %s", n.Severity, n.Code, n.Message, n.Detail, n.Hint, n.Where))
	}
	if nc.c, err = pgx.ConnectConfig(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.c.Close(context.Background()) })
	return nc
}

// TestDoDifferential runs testdata/plpgsql/*.sql statement by statement
// on PostgreSQL 15 and pgproxy: DO blocks (do.go) must give the same
// tags, rows, errors (with their CONTEXT) and notices, and leave the same
// state behind (the scripts read it back).
func TestDoDifferential(t *testing.T) {
	files, err := filepath.Glob("testdata/plpgsql/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pg := pgtest.Shared(t)
	ctx := context.Background()
	for i, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stmts, err := sqlparse.Split(string(text))
			if err != nil {
				t.Fatal(err)
			}
			db := fmt.Sprintf("plpgsql_%d", i)
			freshPGDatabase(ctx, t, pg, db)
			want := connectNotices(t, pg.ConnString(db))
			got := connectNotices(t, startServer(t, nil).url("main"))
			n := 0
			for _, s := range stmts {
				s = strings.TrimSpace(s)
				if s == "" || strings.HasPrefix(s, "--") && !strings.Contains(s, "\n") {
					continue
				}
				n++
				w, g := want.run(ctx, s), got.run(ctx, s)
				if w != g {
					t.Errorf("%s\n  postgres: %s\n  pgproxy:  %s", s, w, g)
				}
			}
			if n < 20 {
				t.Fatalf("only %d statements compared", n)
			}
			t.Logf("%d statements compared", n)
		})
	}
}

// run renders one statement's outcome: tag, columns and rows or the
// error with its CONTEXT, then the notices it raised.
func (nc *noticeConn) run(ctx context.Context, sql string) string {
	nc.notices = nil
	res, err := nc.c.PgConn().Exec(ctx, sql).ReadAll()
	var b strings.Builder
	var pe *pgconn.PgError
	switch {
	case errors.As(err, &pe):
		fmt.Fprintf(&b, "ERROR %s: %s | %s | hint: %s | at %d | context: %s", pe.Code, pe.Message, pe.Detail, pe.Hint, pe.Position, pe.Where)
	case err != nil:
		b.WriteString("ERROR " + err.Error())
	}
	for _, r := range res {
		b.WriteString(r.CommandTag.String())
		for _, row := range r.Rows {
			b.WriteString("\n  ")
			for i, v := range row {
				if i > 0 {
					b.WriteString("|")
				}
				if v == nil {
					b.WriteString("NULL")
				} else {
					b.Write(v)
				}
			}
		}
	}
	return b.String() + "\n  notices: " + strings.Join(nc.notices, "\n    ")
}

// TestDoOutsideSubset: constructs outside the DO subset answer 0A000
// naming them, before anything in the block runs; grammar errors are
// 42601; DO runs through the extended protocol and nested DO through
// EXECUTE is bounded (54001).
func TestDoOutsideSubset(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c, "create table log (msg text)")
	cases := []struct {
		sql, code, text string
	}{
		{`DO $$ BEGIN INSERT INTO log VALUES ('x'); SELECT 1 INTO found; END $$`, "0A000", "INTO FOUND"},
		{`DO $$ DECLARE a int[] := '{1}'; n int[]; BEGIN INSERT INTO log VALUES ('x'); FOREACH n SLICE 1 IN ARRAY a LOOP NULL; END LOOP; END $$`, "0A000", "SLICE"},
		{`DO $$ DECLARE a int[] := '{1}'; BEGIN INSERT INTO log VALUES ('x'); FOREACH n IN ARRAY a LOOP NULL; END LOOP; END $$`, "42601", ""},
		{`DO $$ BEGIN INSERT INTO log VALUES ('x'); LOOP EXIT nosuch; END LOOP; END $$`, "42601", "there is no label \"nosuch\""},
		{`DO $$ BEGIN INSERT INTO log VALUES ('x'); <<b>> BEGIN CONTINUE b; END; END $$`, "42601", "CONTINUE"},
		{`DO $$ DECLARE a int[] := '{1}'; BEGIN INSERT INTO log VALUES ('x'); a[1] := 2; END $$`, "0A000", "array element"},
		{`DO $$ BEGIN INSERT INTO log VALUES ('x'); GET DIAGNOSTICS; END $$`, "42601", ""},
		{`DO $$ BEGIN INSERT INTO log VALUES ('x'); SET search_path = public; END $$`, "0A000", "SET"},
		{`DO $$ BEGIN IF true THEN END $$`, "42601", "syntax error"},
		{`DO $$ BEGIN x := 1; END $$`, "42601", "not a known variable"},
		{`DO $$ BEGIN EXECUTE 'DO ''BEGIN EXECUTE ''''DO $x$BEGIN EXECUTE ''''''''select 1''''''''; END$x$''''; END'''; END $$`, "", ""},
	}
	for _, tc := range cases {
		_, err := c.Exec(ctx, tc.sql)
		if tc.code == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
			}
			continue
		}
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message, tc.text) {
			t.Errorf("%s: %v, want %s naming %q", tc.sql, err, tc.code, tc.text)
		}
	}
	if got := enumRows(t, c, "select count(*) from log"); got != "0" {
		t.Fatalf("a refused block ran %s statements", got)
	}
	// extended protocol: DO has no result columns and no parameters
	x := ts.connect(t, pgx.QueryExecModeDescribeExec)
	if _, err := x.Exec(ctx, `DO $$ BEGIN INSERT INTO log VALUES ('extended'); END $$`); err != nil {
		t.Fatal(err)
	}
	// several statements in one query string: one transaction
	if _, err := c.Exec(ctx, `DO $$ BEGIN INSERT INTO log VALUES ('multi'); END $$; select 1/0`); enumState(err) != "22012" {
		t.Fatalf("multi-statement: %v", err)
	}
	if got := enumRows(t, c, "select msg from log order by 1"); got != "extended" {
		t.Fatalf("log: %s", got)
	}
}

// TestDoDepthBound: a DO block that EXECUTEs itself recursively stops with
// 54001 at the bound instead of exhausting the stack, and leaves nothing.
func TestDoDepthBound(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c, "create table body (sql text)",
		`insert into body values ('DO $d$ BEGIN INSERT INTO hits VALUES (1); EXECUTE (SELECT sql FROM body); END $d$')`,
		"create table hits (n int)")
	_, err := c.Exec(ctx, "DO $$ BEGIN EXECUTE (SELECT sql FROM body); END $$")
	if enumState(err) != "54001" {
		t.Fatalf("recursive DO: %v, want 54001", err)
	}
	if got := enumRows(t, c, "select count(*) from hits"); got != "0" {
		t.Fatalf("a failed DO left %s rows", got)
	}
}

// TestDoLoopBound: a loop that never leaves ends with 54000 at the
// iteration bound (lowered here), and the block's writes roll back.
func TestDoLoopBound(t *testing.T) {
	defer func(n int) { maxDoIterations = n }(maxDoIterations)
	maxDoIterations = 50
	ctx := context.Background()
	c := startServer(t, nil).connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c, "create table ticks (n int)")
	for _, body := range []string{
		"LOOP INSERT INTO ticks VALUES (1); END LOOP;",
		"WHILE true LOOP NULL; END LOOP;",
		"FOR i IN 1..1000000 LOOP CONTINUE; END LOOP;",
	} {
		_, err := c.Exec(ctx, "DO $$ BEGIN "+body+" END $$")
		if enumState(err) != "54000" {
			t.Fatalf("%s: %v, want 54000", body, err)
		}
	}
	if got := enumRows(t, c, "select count(*) from ticks"); got != "0" {
		t.Fatalf("a failed DO left %s rows", got)
	}
	if _, err := c.Exec(ctx, "DO $$ BEGIN FOR i IN 1..50 LOOP INSERT INTO ticks VALUES (i); END LOOP; END $$"); err != nil {
		t.Fatalf("a loop at the bound: %v", err)
	}
}

// FuzzCompileDo: compiling any DO text answers a tree or an error, never
// a panic (the subset check walks the PL/pgSQL compiler's JSON).
func FuzzCompileDo(f *testing.F) {
	for _, s := range []string{
		`DO $$ BEGIN NULL; END $$`,
		`DO $$ DECLARE r record; n int := 1; BEGIN FOR r IN SELECT 1 AS a LOOP n := n + r.a; CONTINUE WHEN n > 2; END LOOP; END $$`,
		`DO $$ BEGIN BEGIN PERFORM 1; EXCEPTION WHEN others OR SQLSTATE '22012' THEN RAISE; END; END $$`,
		`DO $$ BEGIN SELECT 1 INTO STRICT found; CASE WHEN true THEN NULL; END CASE; END $$`,
		`DO $$ BEGIN FOR i IN REVERSE 3..1 BY 1 LOOP EXIT WHEN i = 2; END LOOP; RETURN; END $$`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		_, _ = compileDo(sql, sql)
	})
}

// TestDoStatementTimeout: statement_timeout ends a DO block stuck in a
// loop with 57014 (cancellation is checked between its statements), and
// WHEN OTHERS does not catch it.
func TestDoStatementTimeout(t *testing.T) {
	ctx := context.Background()
	c := startServer(t, nil).connect(t, pgx.QueryExecModeSimpleProtocol)
	enumExec(t, c, "set statement_timeout = '300ms'")
	_, err := c.Exec(ctx, "DO $$ BEGIN LOOP BEGIN PERFORM 1; EXCEPTION WHEN others THEN NULL; END; END LOOP; END $$")
	if enumState(err) != "57014" {
		t.Fatalf("a DO past statement_timeout: %v, want 57014", err)
	}
	enumExec(t, c, "reset statement_timeout")
	if got := enumRows(t, c, "select 1"); got != "1" {
		t.Fatalf("after the timeout: %s", got)
	}
}
