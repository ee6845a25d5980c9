package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// The differential checks share the run's PostgreSQL 15
// (pgtest.Shared, stopped by TestMain) and take a database each.
var (
	pgDBCount int
	pgMu      sync.Mutex
)

// freshPostgresDB creates an empty database on pg and returns its name.
func freshPostgresDB(t *testing.T, pg *pgtest.Server) string {
	t.Helper()
	pgMu.Lock()
	pgDBCount++
	name := fmt.Sprintf("e2e_%d", pgDBCount)
	pgMu.Unlock()
	ctx := context.Background()
	conn, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return name
}

// postgresEnv is the libpq environment for database db on pg.
func postgresEnv(pg *pgtest.Server, db string) []string {
	return append(os.Environ(), "PGHOST=127.0.0.1", fmt.Sprintf("PGPORT=%d", pg.Port), "PGUSER=postgres",
		"PGDATABASE="+db, "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "PGPASSWORD=", "PGOPTIONS=",
		"PGTZ=UTC", "LC_ALL=C.UTF-8", "PAGER=")
}

// graphClause is the edge-table clause PostgreSQL does not know.
var graphClause = regexp.MustCompile(` WITH \(graph\.kind = edge\)`)

// isDifferential reports whether the script's first line carries the mark.
func isDifferential(t *testing.T, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	return strings.Contains(first, differentialMark)
}

// runOnPostgres runs script name (and the fragments it includes) on a
// fresh database of pg, with the graph clauses removed.
func runOnPostgres(t *testing.T, pg *pgtest.Server, name string) string {
	t.Helper()
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(scriptDir, "*.*sql"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), graphClause.ReplaceAll(b, nil), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return runPsqlEnv(t, postgresEnv(pg, freshPostgresDB(t, pg)), dir, name)
}

// errorFieldLines are the error fields psql prints in verbose mode that
// pgproxy does not send (PostgreSQL fills them from its catalogs).
var errorFieldLines = regexp.MustCompile(`(?m)^(SCHEMA NAME|TABLE NAME|COLUMN NAME|DATATYPE NAME|CONSTRAINT NAME):  .*\n`)

// pgComparable strips what legitimately differs between the two servers:
// the graph clause in echoed input and the error field lines.
func pgComparable(s string) string {
	return errorFieldLines.ReplaceAllString(graphClause.ReplaceAllString(s, ""), "")
}
