package planner

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestGraphTableDifferential runs testdata/pgq/*.sql: SQL/PGQ pattern
// queries on pgproxy, each compared with its equivalent written by hand
// as joins, UNION or WITH RECURSIVE and run on PostgreSQL 15 over the
// same data. A script is a sequence of statements:
//
//   - setup statements run on both (PostgreSQL 15 without the
//     graph.* storage parameters it does not know) and must agree;
//   - a statement containing GRAPH_TABLE runs on pgproxy only, and the
//     statement after it is its equivalent, run on PostgreSQL 15 (and on
//     pgproxy too: the join form must agree there as well); both answers
//     are compared as row multisets with their column names and types;
//   - a property graph statement (CREATE/ALTER/DROP PROPERTY GRAPH),
//     which PostgreSQL 15 lacks, runs on pgproxy only and must succeed;
//   - a statement preceded by a line "-- error SQLSTATE [text]" must
//     fail on pgproxy with that SQLSTATE and a message containing text
//     (no equivalent follows).
func TestGraphTableDifferential(t *testing.T) {
	files, err := filepath.Glob("testdata/pgq/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	pg := pgtest.Shared(t)
	ctx := context.Background()
	pairs, errs := 0, 0
	for i, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			stmts := splitScript(string(text))
			want := freshPGDatabase(ctx, t, pg, "pgq_"+strings.TrimSuffix(filepath.Base(f), ".sql")+"_"+string(rune('a'+i)))
			ts := startServer(t, nil)
			got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
			for k := 0; k < len(stmts); k++ {
				s := strings.TrimSpace(stmts[k])
				if s == "" {
					continue
				}
				body := stripComments(s)
				if body == "" {
					continue
				}
				if m := expectError.FindStringSubmatch(s); m != nil {
					out := outcome(ctx, got.PgConn(), s)
					if !strings.HasPrefix(out, "ERROR "+m[1]+":") || !strings.Contains(out, m[2]) {
						t.Errorf("%s\n  want SQLSTATE %s, got: %s", s, m[1], out)
					}
					errs++
					continue
				}
				if graphDDLRE.MatchString(body) {
					if out := outcome(ctx, got.PgConn(), s); strings.HasPrefix(out, "ERROR") {
						t.Errorf("%s\n  pgproxy: %s", s, out)
					}
					continue
				}
				if !graphTableRE.MatchString(body) {
					w := scriptOutcome(ctx, want.PgConn(), graphOptions.ReplaceAllString(s, ""))
					g := scriptOutcome(ctx, got.PgConn(), s)
					if w != g {
						t.Errorf("setup %s\n  postgres: %s\n  pgproxy:  %s", s, w, g)
					}
					continue
				}
				if k+1 >= len(stmts) {
					t.Fatalf("%s: no equivalent follows", s)
				}
				k++
				eq := strings.TrimSpace(stmts[k])
				if graphTableRE.MatchString(stripComments(eq)) {
					t.Fatalf("%s: the equivalent must not use GRAPH_TABLE: %s", s, eq)
				}
				g := sortedOutcome(ctx, got, s)
				w := sortedOutcome(ctx, want, eq)
				pairs++
				if g != w {
					t.Errorf("%s\n  equivalent: %s\n  postgres: %s\n  pgproxy:  %s", s, eq, w, g)
				}
				if !isQuery.MatchString(eq) {
					continue // DDL (CREATE VIEW): its object exists on pgproxy already
				}
				if gj := sortedOutcome(ctx, got, eq); gj != w {
					t.Errorf("equivalent on pgproxy differs: %s\n  postgres: %s\n  pgproxy:  %s", eq, w, gj)
				}
			}
		})
	}
	t.Logf("%d GRAPH_TABLE queries compared with PostgreSQL 15, %d error cases", pairs, errs)
	if pairs < 150 {
		t.Errorf("only %d GRAPH_TABLE queries compared, want at least 150 (beside the error cases)", pairs)
	}
}

var (
	expectError  = regexp.MustCompile(`(?m)^--[ \t]*error[ \t]+([0-9A-Z]{5})[ \t]*(.*?)[ \t]*$`)
	graphTableRE = regexp.MustCompile(`(?i)\bgraph_table\s*\(`)
	graphDDLRE   = regexp.MustCompile(`(?i)^\s*(create|alter|drop)\s+(or\s+replace\s+)?property\s+graph\b`)
	isQuery      = regexp.MustCompile(`(?i)^\s*(select|with)\b`)
	graphOptions = regexp.MustCompile(`(?i)\s*with\s*\(\s*graph\.kind\s*=\s*\w+\s*\)`)
)

// splitScript splits a script into statements: each ends with a line
// ending in ";", and the comment lines before it belong to it (so a
// "-- error" line stays with its statement).
func splitScript(text string) []string {
	var out []string
	var cur []string
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" && len(cur) == 0 {
			continue
		}
		cur = append(cur, l)
		if strings.HasSuffix(strings.TrimSpace(l), ";") && !strings.HasPrefix(strings.TrimSpace(l), "--") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(strings.Join(cur, "\n")), ";"))
			cur = nil
		}
	}
	return out
}

// stripComments drops whole-line -- comments.
func stripComments(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "--") {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// sortedOutcome renders a query's columns and its rows sorted (a
// pattern's rows have no order of their own).
func sortedOutcome(ctx context.Context, c *pgx.Conn, sql string) string {
	out := scriptOutcome(ctx, c.PgConn(), sql)
	if strings.HasPrefix(out, "ERROR") {
		return out
	}
	lines := strings.Split(out, "\n")
	head, rows := lines, []string(nil)
	if len(lines) > 2 {
		head, rows = lines[:2], lines[2:]
	}
	sort.Strings(rows)
	return strings.Join(append(head, rows...), "\n")
}

// TestGraphTableRepeatedLiterals runs one GRAPH_TABLE shape with several
// literals, as a simple-protocol client does: the literal cache must
// leave the clause's literals alone (they are inside the clause the
// parser sees as one string) and every answer must be its own.
func TestGraphTableRepeatedLiterals(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	for _, s := range []string{
		"create table n (id int primary key, name text)",
		"create table e (src int not null references n (id), dst int not null references n (id)) with (graph.kind = edge)",
		"insert into n select g, 'n' || g from generate_series(1, 50) g",
		"insert into e select g, g % 50 + 1 from generate_series(1, 50) g union all select g, (g * 3) % 50 + 1 from generate_series(1, 20) g",
	} {
		if _, err := c.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	for id := 1; id <= 25; id++ {
		var got, want int
		if err := c.QueryRow(ctx, "select count(*) from graph_table (graph match (a where a.id = "+strconv.Itoa(id)+")-[is e]->(b) columns (b.name))").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRow(ctx, "select count(*) from e where src = "+strconv.Itoa(id)).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("a.id = %d: %d rows, want %d", id, got, want)
		}
	}
}
