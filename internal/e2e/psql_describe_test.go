package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// describeSchema is loaded into pgproxy and into PostgreSQL before the
// describe commands run.
const describeSchema = "testdata/describe/schema.sql"

// allowed is a set of differences a describe command may show between
// PostgreSQL 15 and pgproxy. Every one is applied the same way to both
// outputs unless its comment says otherwise; anything not listed must be
// byte-for-byte what PostgreSQL printed.
type allowed uint

const (
	// sizes: relation and database sizes are masked. PostgreSQL counts
	// 8 kB heap pages, pgproxy the bytes of the Lance files a table's
	// pinned version references (exec/syscat_size.go), so only the
	// shape of the column is compared. pgproxy's sizes of tables with
	// rows must not be 0 (checked before masking).
	sizes allowed = 1 << iota
	// fewerBuiltins: the command lists built-in objects (casts, system
	// relations, function overloads) and pgproxy implements fewer of
	// them than PostgreSQL: title and column header must match and every
	// row pgproxy prints must be one of PostgreSQL's rows, in
	// PostgreSQL's order. Column padding is collapsed (it follows the
	// widest value, which may be a row pgproxy does not have).
	fewerBuiltins
	// noBuiltins: PostgreSQL lists built-in objects pgproxy has none of
	// (text search: pgproxy has no text search, and PostgreSQL's
	// configurations depend on the snowball languages of the
	// installation; operator classes and families: pgproxy's indexes
	// have none): title and header must match and pgproxy lists no rows
	// (or, for the per-object \dF+ and \dFp+, psql says it found none).
	noBuiltins
	// graphSchema: pgproxy's own schema, graph (the commit log and
	// branch views), and the built-in extension pggraph it belongs to
	// are not in PostgreSQL: their rows (and \dx+'s listing of the
	// extension's objects) are dropped from pgproxy's output.
	graphSchema
	// otherDatabases: PostgreSQL's databases other than main (postgres,
	// template0, template1 and the other tests' databases on the shared
	// server) have no pgproxy counterpart (a pgproxy database is a
	// branch, and this one has only main): their rows are dropped from
	// PostgreSQL's output.
	otherDatabases
	// installationSettings: parameters PostgreSQL's installation sets
	// (pg_settings.source is the command line, the configuration file,
	// the environment or an override: paths, port, durability, logging)
	// are dropped from both outputs; what the client and the session set
	// must match.
	installationSettings
	// builtinDescriptions: pgproxy has no descriptions of PostgreSQL's
	// built-in functions and operators (pg_description holds those of
	// the built-in schemas, access methods, languages and extensions
	// only), so the Description column, the last one, is blanked in
	// PostgreSQL's rows.
	builtinDescriptions
	// catalogIndexes: PostgreSQL's system catalogs have indexes, which
	// \d lists under "Indexes:"; pgproxy's catalogs are generated per
	// statement and have none, so that footer is dropped from
	// PostgreSQL's output.
	catalogIndexes
)

// describeCase is one psql invocation: its -c arguments, run in one
// session.
type describeCase struct {
	cmds []string
	diff allowed
}

func dc(diff allowed, cmds ...string) describeCase { return describeCase{cmds: cmds, diff: diff} }

// describeCases are psql 15's describe commands. The ones without an
// allowed difference must print exactly what PostgreSQL prints.
var describeCases = []describeCase{
	// the + forms and the other object kinds
	dc(otherDatabases, `\l`), dc(graphSchema, `\dn+`), dc(graphSchema, `\dx+`), dc(0, `\dL+`), dc(sizes, `\db+`),
	dc(0, `\des+`), dc(0, `\dew+`), dc(0, `\deu+`), dc(0, `\det+`), dc(0, `\dP+`), dc(0, `\dfn`), dc(0, `\dft`),
	dc(0, `\dfp`), dc(0, `\dfw`), dc(0, `\dfa`), dc(0, `\dRp+`), dc(0, `\dRs+`), dc(0, `\dX+`), dc(0, `\dy+`),
	dc(0, `\dc+`), dc(0, `\dD+`), dc(0, `\dE+`), dc(0, `\dm+`), dc(0, `\dv+`), dc(0, `\dl+`), dc(0, `\du+`),
	dc(0, `\dg+`), dc(0, `\dO+`), dc(0, `\z`), dc(0, `\dit`), dc(0, `\dp pg_class`), dc(catalogIndexes, `\dS+ pg_class`),
	dc(fewerBuiltins|builtinDescriptions, `\dC+`),
	dc(noBuiltins, `\dAc`), dc(noBuiltins, `\dAf`), dc(noBuiltins, `\dAo`), dc(noBuiltins, `\dAp`),
	dc(noBuiltins, `\dF+`), dc(noBuiltins, `\dFp+`), dc(noBuiltins, `\dFd+`), dc(noBuiltins, `\dFt+`),
	// the commands as first reported
	dc(0, `\d`), dc(0, `\dt`), dc(0, `\d person`), dc(0, `\d+ person`), dc(0, `\d knows`), dc(0, `\d+ knows`), dc(0, `\d scores`), dc(0, `\d+ scores`), dc(0, `SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'c' AND conrelid <> 0 ORDER BY 1`),
	dc(0, `\d person_pkey`), dc(0, `\d person_id_seq`), dc(0, `\d ticket_seq`),
	dc(0, `\di`), dc(0, `\ds`), dc(0, `\dv`), dc(0, `\dm`), dc(0, `\du`), dc(0, `\dg`), dc(0, `\dT`), dc(0, `\dT+`),
	dc(0, `\df`), dc(0, `\df+`), dc(graphSchema, `\dx`), dc(0, `\dE`), dc(0, `\dD`), dc(0, `\des`), dc(0, `\dy`), dc(0, `\dP`),
	dc(0, `\dRp`), dc(0, `\det`), dc(0, `\dew`), dc(0, `\dp`), dc(0, `\dp person`),
	dc(0, `\d exam`), dc(0, `\d+ exam`), dc(0, `\dD posint`), dc(0, `\dd`), dc(0, `\dL`), dc(0, `\db`), dc(0, `\do`), dc(0, `\dl`), dc(0, `\drds`), dc(0, `\dc`),
	dc(0, `\dO`), dc(0, `\dRs`), dc(0, `\dX`), dc(0, `\deu`), dc(0, `\dA`), dc(0, `\dA+`),
	dc(0, `\df now`), dc(fewerBuiltins, `\df length`), dc(0, `\df pg_relation_size`), dc(builtinDescriptions, `\df+ now`),
	dc(catalogIndexes, `\d pg_catalog.pg_namespace`), dc(0, `\d pg_roles`), dc(0, `\d information_schema.tables`),
	dc(catalogIndexes, `\d pg_class`), dc(catalogIndexes, `\d pg_attribute`), dc(catalogIndexes, `\d pg_proc`),
	dc(sizes, `\dt+`), dc(sizes, `\di+`), dc(sizes, `\ds+`),
	dc(sizes|otherDatabases, `\l+`),
	dc(installationSettings, `\dconfig`),
	dc(installationSettings, `SET extra_float_digits = 2`, `SET search_path = public, pg_catalog`, `\dconfig`),
	dc(fewerBuiltins, `\dC`), dc(fewerBuiltins, `\df upper`), dc(fewerBuiltins, `\dS`), dc(fewerBuiltins|sizes, `\dtS+`),
	dc(fewerBuiltins|builtinDescriptions, `\do ||`), dc(fewerBuiltins|builtinDescriptions, `\do+ =`), dc(fewerBuiltins, `\dfa sum`),
	dc(noBuiltins, `\dF`), dc(noBuiltins, `\dFd`), dc(noBuiltins, `\dFp`), dc(noBuiltins, `\dFt`),
	dc(graphSchema, `\dn`),
}

// TestPsqlDescribeCommands runs the real psql 15 with each describe
// command against pgproxy and against a PostgreSQL 15 holding the same
// schema, and compares what psql prints (the allowed differences above
// aside). Both servers are reached as user postgres in a database named
// main, so owners and database names print alike.
func TestPsqlDescribeCommands(t *testing.T) {
	psql := pgtest.PsqlPath(t)
	ctx := context.Background()
	pg := pgtest.Shared(t)
	admin, err := pg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, s := range []string{"DROP DATABASE IF EXISTS main", "CREATE DATABASE main"} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	pgEnv := postgresEnv(pg, "main")
	p := startProxy(t)
	pxEnv := append(p.Env("main"), "PGUSER=postgres")
	for name, env := range map[string][]string{"PostgreSQL": pgEnv, "pgproxy": pxEnv} {
		if out, err := psqlRun(ctx, psql, env, "-v", "ON_ERROR_STOP=1", "-f", describeSchema); err != nil {
			t.Fatalf("loading %s into %s: %v\n%s", describeSchema, name, err, out)
		}
	}
	installed := installationParams(t, ctx, pg)
	for _, c := range describeCases {
		name := strings.Join(c.cmds, "; ")
		t.Run(name, func(t *testing.T) {
			var args []string
			for _, cmd := range c.cmds {
				args = append(args, "-c", cmd)
			}
			want, _ := psqlRun(ctx, psql, pgEnv, args...)
			got, _ := psqlRun(ctx, psql, pxEnv, args...)
			if c.diff&sizes != 0 {
				checkSizesNonZero(t, got)
			}
			want, got = normalizeDescribe(c.diff, want, installed, true), normalizeDescribe(c.diff, got, installed, false)
			if c.diff&(fewerBuiltins|noBuiltins) != 0 {
				if msg := subsetOf(want, got, c.diff&noBuiltins != 0); msg != "" {
					t.Errorf("psql %s: %s\n--- PostgreSQL:\n%s--- pgproxy:\n%s", name, msg, want, got)
				}
				return
			}
			if want != got {
				t.Errorf("psql %s differs:\n%s\n--- PostgreSQL:\n%s--- pgproxy:\n%s", name, firstDiff(want, got, 4), want, got)
			}
		})
	}
	p.alive(t)
}

// psqlRun runs psql without a psqlrc and returns stdout and stderr as
// psql interleaved them.
func psqlRun(ctx context.Context, psql string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, psql, append([]string{"-X", "-P", "pager=off"}, args...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// installationParams names the parameters PostgreSQL's installation set.
func installationParams(t *testing.T, ctx context.Context, pg *pgtest.Server) map[string]bool {
	t.Helper()
	conn, err := pgx.Connect(ctx, pg.ConnString("main"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT name FROM pg_settings WHERE source IN ('command line', 'configuration file', 'environment variable', 'override')`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[n] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	sizeValue  = regexp.MustCompile(`\b\d+ (bytes|kB|MB|GB|TB)\b`)
	padding    = regexp.MustCompile(`  +|--+`)
	rowCount   = regexp.MustCompile(`^\((\d+) rows?\)$`)
	separator  = regexp.MustCompile(`^-+(\+-+)*$`)
	zeroSizeRE = regexp.MustCompile(`\| 0 bytes +\|`)
)

// checkSizesNonZero fails when pgproxy reports 0 bytes for one of the
// schema's tables or sequences (they all hold data).
func checkSizesNonZero(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, " public ") || strings.Contains(l, "| index ") {
			continue
		}
		if zeroSizeRE.MatchString(l) {
			t.Errorf("pgproxy reports 0 bytes for a relation with data: %s", l)
		}
	}
}

// normalizeDescribe applies the allowed differences to one output;
// postgres says whose output it is.
func normalizeDescribe(diff allowed, s string, installed map[string]bool, postgres bool) string {
	lines := strings.Split(s, "\n")
	drop := func(keep func(first string) bool) {
		var out []string
		removed := 0
		inRows := false // between a header's separator line and the row count
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if separator.MatchString(l) {
				inRows = true
			}
			first, _, isRow := strings.Cut(l, "|")
			if inRows && isRow && !keep(strings.TrimSpace(first)) {
				removed++
				// a cell wrapped onto continuation lines (first cell empty)
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], " ") && strings.Contains(lines[i+1], "|") && strings.TrimSpace(strings.SplitN(lines[i+1], "|", 2)[0]) == "" {
					i++
				}
				continue
			}
			m := rowCount.FindStringSubmatch(l)
			if m != nil {
				inRows = false
			}
			if m != nil && removed > 0 {
				n := 0
				fmt.Sscan(m[1], &n)
				l = rowsFooter(n - removed)
			}
			out = append(out, l)
		}
		lines = out
	}
	if diff&graphSchema != 0 && !postgres {
		// \dx+'s member listing of the pggraph extension, a block of its own
		var out []string
		for i := 0; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == `Objects in extension "pggraph"` {
				for i < len(lines) && lines[i] != "" {
					i++
				}
				continue
			}
			out = append(out, lines[i])
		}
		lines = out
		drop(func(first string) bool { return first != "graph" && first != "pggraph" })
	}
	if diff&otherDatabases != 0 && postgres {
		drop(func(first string) bool { return first == "main" })
	}
	if diff&installationSettings != 0 {
		drop(func(first string) bool { return !installed[first] })
	}
	if diff&catalogIndexes != 0 && postgres {
		var out []string
		for i := 0; i < len(lines); i++ {
			if lines[i] == "Indexes:" {
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") {
					i++
				}
				continue
			}
			out = append(out, lines[i])
		}
		lines = out
	}
	if diff&builtinDescriptions != 0 && postgres {
		for i, l := range lines {
			if k := strings.LastIndex(l, "|"); k >= 0 && i >= 3 && rowCount.FindString(l) == "" {
				lines[i] = l[:k+1]
			}
		}
	}
	s = strings.Join(lines, "\n")
	if diff&sizes != 0 {
		s = sizeValue.ReplaceAllString(s, "SIZE")
	}
	if diff&(sizes|fewerBuiltins|noBuiltins|otherDatabases|installationSettings|graphSchema|builtinDescriptions) != 0 {
		// padding follows the widest value, which may be one of the
		// values masked or dropped above
		s = padding.ReplaceAllStringFunc(s, func(m string) string { return m[:1] })
		var out []string
		for _, l := range strings.Split(s, "\n") {
			out = append(out, strings.TrimRight(strings.TrimLeft(l, " "), " "))
		}
		s = strings.Join(out, "\n")
	}
	return s
}

func rowsFooter(n int) string {
	if n == 1 {
		return "(1 row)"
	}
	return fmt.Sprintf("(%d rows)", n)
}

// subsetOf checks that got has want's title and header and that its rows
// are a subsequence of want's (none at all when empty is set).
func subsetOf(want, got string, empty bool) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	if empty && strings.HasPrefix(got, "Did not find any ") {
		return "" // the per-object forms say so instead of printing an empty list
	}
	if len(wl) < 3 || len(gl) < 3 {
		return "no table printed"
	}
	for i := 0; i < 3; i++ {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d differs: %q, PostgreSQL: %q", i+1, gl[i], wl[i])
		}
	}
	isRow := func(l string) bool { return l != "" && rowCount.FindString(l) == "" }
	var grows []string
	for _, l := range gl[3:] {
		// PostgreSQL 19's property-graph catalogs, which pggraph provides
		// and PostgreSQL 15 lacks (docs/sql.md, SQL/PGQ)
		if strings.HasPrefix(l, "pg_catalog | pg_propgraph_") {
			continue
		}
		if isRow(l) {
			grows = append(grows, l)
		}
	}
	if empty {
		if len(grows) > 0 {
			return fmt.Sprintf("pgproxy lists %d rows, expected none", len(grows))
		}
		return ""
	}
	if len(grows) == 0 {
		return "pgproxy lists no rows"
	}
	j := 0
	for _, l := range wl[3:] {
		if j < len(grows) && l == grows[j] {
			j++
		}
	}
	if j < len(grows) {
		return fmt.Sprintf("pgproxy's row %q is not among PostgreSQL's (in order)", grows[j])
	}
	return ""
}
