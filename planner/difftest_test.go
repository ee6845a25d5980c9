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

// The differential harness runs testdata/*.sql statement by statement
// against a real PostgreSQL 15 (fresh database) and against pgproxy
// (fresh graph), both through the simple protocol, and requires the same
// command tag, result columns (name, type OID, typmod), rows in text
// format, and error SQLSTATE, message and detail for every statement.

// The differential tests share one PostgreSQL 15 (pgtest.Shared),
// stopped after the package's tests.
func TestMain(m *testing.M) { pgtest.Main(m) }

// outcome renders one statement's result for comparison: tag, rows and
// errors.
func outcome(ctx context.Context, c *pgconn.PgConn, sql string) string {
	return render(ctx, c, sql, false)
}

// scriptOutcome is outcome with the result columns (name, type OID,
// typmod) too: what the differential scripts compare.
func scriptOutcome(ctx context.Context, c *pgconn.PgConn, sql string) string {
	return render(ctx, c, sql, true)
}

func render(ctx context.Context, c *pgconn.PgConn, sql string, columns bool) string {
	res, err := c.Exec(ctx, sql).ReadAll()
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("ERROR %s: %s | %s | hint: %s | at %d", pe.Code, pe.Message, pe.Detail, pe.Hint, pe.Position)
	}
	if err != nil {
		return "ERROR " + err.Error()
	}
	var b strings.Builder
	for _, r := range res {
		b.WriteString(r.CommandTag.String())
		for i, f := range r.FieldDescriptions {
			if !columns {
				break
			}
			if i == 0 {
				b.WriteString("\n  columns:")
			}
			if f.DataTypeOID >= 16384 {
				// a user type's OID (an enum's): chosen differently by
				// PostgreSQL and pgproxy, so only its being one compares
				fmt.Fprintf(&b, " %s(user/%d)", f.Name, f.TypeModifier)
				continue
			}
			fmt.Fprintf(&b, " %s(%d/%d)", f.Name, f.DataTypeOID, f.TypeModifier)
		}
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
	return b.String()
}

func TestDifferential(t *testing.T) {
	pattern := "testdata/*.sql"
	if p := os.Getenv("DIFFTEST_FILES"); p != "" {
		pattern = p // one script while developing
	}
	total := compareScripts(t, pattern, "diff", false, 0)
	t.Logf("%d statements compared", total)
}

// freshPGDatabase (re)creates database db in PostgreSQL and connects to
// it; the connection closes when t ends.
func freshPGDatabase(ctx context.Context, t *testing.T, pg *pgtest.Server, db string) *pgx.Conn {
	t.Helper()
	admin, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "drop database if exists "+db); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(ctx, "create database "+db); err != nil {
		t.Fatal(err)
	}
	c, err := pgx.Connect(ctx, pg.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// compareScripts runs every script matching pattern statement by
// statement against a fresh PostgreSQL 15 database (prefix_i) and a fresh
// pgproxy, one subtest per script, and reports each statement whose
// outcome differs. skipComments passes over one-line comment statements;
// a script with fewer than minPerScript statements compared fails. It
// returns how many statements were compared.
func compareScripts(t *testing.T, pattern, prefix string, skipComments bool, minPerScript int) int {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pg := pgtest.Shared(t)
	ctx := context.Background()
	total := 0
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
			want := freshPGDatabase(ctx, t, pg, fmt.Sprintf("%s_%d", prefix, i))
			ts := startServer(t, nil)
			got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
			n := 0
			for _, s := range stmts {
				s = strings.TrimSpace(s)
				if s == "" || skipComments && strings.HasPrefix(s, "--") && !strings.Contains(s, "\n") {
					continue
				}
				w, g := scriptOutcome(ctx, want.PgConn(), s), scriptOutcome(ctx, got.PgConn(), s)
				n++
				if w != g {
					t.Errorf("%s\n  postgres: %s\n  pgproxy:  %s", s, w, g)
				}
			}
			total += n
			if n < minPerScript {
				t.Fatalf("only %d statements compared", n)
			}
		})
	}
	return total
}
