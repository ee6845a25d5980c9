package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/sqlparse"
)

// TestCascadeDifferential runs testdata/cascade/*.sql (foreign key
// actions, constraint checks of multi-row statements) statement by
// statement against PostgreSQL 15 and pgproxy, as TestDifferential does:
// same command tags, rows, and error SQLSTATE, message and detail.
func TestCascadeDifferential(t *testing.T) {
	files, err := filepath.Glob("testdata/cascade/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pg := startPG(t)
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
			admin, err := pg.Connect(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(ctx)
			db := fmt.Sprintf("cascade_%d", i)
			if _, err := admin.Exec(ctx, "drop database if exists "+db); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.Exec(ctx, "create database "+db); err != nil {
				t.Fatal(err)
			}
			want, err := pgx.Connect(ctx, pg.ConnString(db))
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close(ctx)
			ts := startServer(t, nil)
			got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
			n := 0
			for _, s := range stmts {
				s = strings.TrimSpace(s)
				if s == "" || strings.HasPrefix(s, "--") && !strings.Contains(s, "\n") {
					continue
				}
				w, g := outcome(ctx, want.PgConn(), s), outcome(ctx, got.PgConn(), s)
				n++
				if w != g {
					t.Errorf("%s\n  postgres: %s\n  pgproxy:  %s", s, w, g)
				}
			}
			if n < 10 {
				t.Fatalf("only %d statements compared", n)
			}
		})
	}
}
