package exec

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// The differential harness runs ../testdata/sql/*.sql against a real
// PostgreSQL 15 and against the engine, comparing column names, type OIDs,
// typmods, rows (in order when the query has a top-level ORDER BY, as a
// multiset otherwise) and SQLSTATEs.
//
// Script format: statements separated by ';'. Statements that are not
// queries (CREATE TABLE, INSERT, ...) are setup: they run on PostgreSQL
// only, and every table in the public schema is then mirrored into the
// engine's catalog (types from pg_attribute, rows through the engine's
// own text input functions). A query preceded by "-- unsupported" must
// fail with 0A000 on the engine (PostgreSQL's answer is ignored).

// The differential tests share one PostgreSQL 15 (pgtest.Shared),
// stopped after the package's tests.
func TestMain(m *testing.M) { pgtest.Main(m) }

// DiffCases counts the compared statements (reported by the test).
type diffStats struct {
	mu                 sync.Mutex
	cases, unsupported int
	literals           int // queries also run with their literals as parameters
}

func TestDifferential(t *testing.T) {
	pattern := "../testdata/sql/*.sql"
	if p := os.Getenv("DIFFTEST_FILES"); p != "" {
		pattern = p // a scratch script while developing
	}
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in ../testdata/sql: %v", err)
	}
	srv := pgtest.Shared(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	stats := &diffStats{}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		t.Run(name, func(t *testing.T) {
			db := "d_" + strings.NewReplacer("-", "_", ".", "_").Replace(name)
			if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
				t.Fatal(err)
			}
			// C collation (byte order, as the engine) with C.UTF-8 character
			// classification: Unicode upper/lower/ILIKE, as pgproxy reports
			// lc_ctype C.UTF-8
			if _, err := admin.Exec(ctx, "CREATE DATABASE "+db+" TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'"); err != nil {
				if _, err := admin.Exec(ctx, "CREATE DATABASE "+db); err != nil {
					t.Fatal(err)
				}
			}
			conn, err := pgx.Connect(ctx, srv.ConnString(db))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			runScript(t, f, conn, db, stats, nil)
		})
	}
	t.Logf("differential: %d queries compared with PostgreSQL (%d of them also with their literals as parameters), %d unsupported checks", stats.cases, stats.literals, stats.unsupported)
	if os.Getenv("DIFFTEST_FILES") == "" && stats.literals < 500 {
		t.Errorf("only %d queries ran with their literals as parameters", stats.literals)
	}
}

type pgResult struct {
	cols  []Column
	rows  [][]*string
	code  string
	msg   string
	order bool
}

// runScript runs one script; preset settings (planner settings such as
// enable_hashjoin) are SET on PostgreSQL first and given to the engine's
// session, as are the script's own SET enable_* statements.
func runScript(t *testing.T, path string, conn *pgx.Conn, db string, stats *diffStats, preset map[string]string) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	stmts, err := sqlparse.Split(string(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cat := NewMemCatalog()
	eng := &Engine{Catalog: cat}
	dirty := true
	planner := map[string]string{}
	for k, v := range preset {
		if _, err := conn.Exec(ctx, "SET "+k+" = "+v); err != nil {
			t.Fatal(err)
		}
		planner[k] = v
	}
	sess := &Session{TimeZone: time.UTC, User: "postgres", Database: db,
		Setting: func(name string) (string, bool) { v, ok := planner[strings.ToLower(name)]; return v, ok }}
	seqs := newDiffSequences()
	sess.Sequences = seqs
	for _, st := range stmts {
		body, directives, params := stripDirectives(st)
		if strings.TrimSpace(body) == "" {
			continue
		}
		tree, perr := sqlparse.Parse(body)
		isQuery := perr == nil && len(tree.Stmts) == 1 && tree.Stmts[0].Stmt.GetSelectStmt() != nil
		if perr == nil && !isQuery {
			if _, err := conn.Exec(ctx, body); err != nil {
				t.Fatalf("setup %q: %v", body, err)
			}
			if vs := tree.Stmts[0].Stmt.GetVariableSetStmt(); vs != nil && strings.EqualFold(vs.Name, "timezone") {
				// the session setting the engine reads (wire owns SET itself)
				var tz string
				if err := conn.QueryRow(ctx, "SHOW TimeZone").Scan(&tz); err != nil {
					t.Fatal(err)
				}
				loc, err := loadZone(tz)
				if err != nil {
					t.Fatal(err)
				}
				sess.TimeZone = loc
				continue
			}
			if vs := tree.Stmts[0].Stmt.GetVariableSetStmt(); vs != nil && strings.HasPrefix(strings.ToLower(vs.Name), "enable_") {
				var v string
				if err := conn.QueryRow(ctx, "SHOW "+vs.Name).Scan(&v); err != nil {
					t.Fatal(err)
				}
				planner[strings.ToLower(vs.Name)] = v
				continue
			}
			dirty = true
			continue
		}
		if dirty {
			if cat, err = mirror(ctx, conn); err != nil {
				t.Fatalf("mirror tables: %v", err)
			}
			eng = &Engine{Catalog: cat}
			dirty = false
			if err := seqs.reload(ctx, conn); err != nil {
				t.Fatalf("mirror sequences: %v", err)
			}
		}
		line := lineOf(string(src), body)
		label := fmt.Sprintf("%s:%d", filepath.Base(path), line)
		var args []any
		for _, p := range params {
			args = append(args, p)
		}
		ours, oerr := eng.Query(ctx, sess, body, args...)
		if directives["unsupported"] {
			stats.mu.Lock()
			stats.unsupported++
			stats.mu.Unlock()
			if oerr == nil || Code(oerr) != CodeFeatureNotSupported {
				t.Errorf("%s: %s\n  want 0A000, got err=%v (code %s)", label, body, oerr, Code(oerr))
			}
			continue
		}
		stats.mu.Lock()
		stats.cases++
		stats.mu.Unlock()
		var want pgResult
		if params != nil {
			want = pgRunParams(ctx, conn, body, params)
		} else {
			want = pgRun(ctx, conn, body)
		}
		if perr == nil {
			want.order = len(tree.Stmts[0].Stmt.GetSelectStmt().SortClause) > 0
		}
		compareResults(t, label, body, want, ours, oerr)
		if params == nil && perr == nil && compareAsParameters(t, label, body, want, eng, ctx, sess) {
			stats.mu.Lock()
			stats.literals++
			stats.mu.Unlock()
		}
	}
}

// compareAsParameters runs a query the way a session's literal cache
// would (NormalizeLiterals, bound with the literals' types, executed with
// their texts) and compares it with PostgreSQL's answer to the query as
// written. Like the session, it counts only when the normalized
// statement has the written one's columns, and takes a failure before
// the first row as a fall back to the written statement.
func compareAsParameters(t *testing.T, label, body string, want pgResult, eng *Engine, ctx context.Context, sess *Session) bool {
	norm, lits, ok := NormalizeLiterals(body)
	if !ok {
		return false
	}
	declared := make([]uint32, len(lits))
	args := make([]any, len(lits))
	for i, l := range lits {
		declared[i], args[i] = l.OID, l.Text
	}
	np, err := eng.PrepareFor(sess, norm, declared)
	if err != nil {
		return false
	}
	lp, err := eng.PrepareFor(sess, body, nil)
	if err != nil || !slices.Equal(np.Columns, lp.Columns) {
		return false
	}
	res, err := np.Execute(ctx, sess, args)
	if err != nil {
		batches := 0
		np.Stream(ctx, sess, args, func(*Batch, *time.Location) error { batches++; return nil })
		if batches == 0 {
			return false // the session runs the statement as written
		}
	}
	compareResults(t, label+" (literals as parameters: "+norm+")", body, want, res, err)
	return true
}

// stripDirectives removes comment lines, returning the statement, its
// directives ("-- unsupported") and the text parameters a
// "-- params: v1 | v2" line gives $1, $2 (both sides receive them as
// untyped text, so their types are inferred from the query).
func stripDirectives(st string) (string, map[string]bool, []string) {
	d := map[string]bool{}
	var keep, params []string
	for _, l := range strings.Split(st, "\n") {
		s := strings.TrimSpace(l)
		if strings.HasPrefix(s, "--") {
			w := strings.TrimSpace(strings.TrimPrefix(s, "--"))
			if w == "unsupported" {
				d[w] = true
			}
			if rest, ok := strings.CutPrefix(w, "params:"); ok {
				for _, p := range strings.Split(rest, "|") {
					params = append(params, strings.TrimSpace(p))
				}
			}
			continue
		}
		keep = append(keep, l)
	}
	return strings.TrimSpace(strings.Join(keep, "\n")), d, params
}

// pgRunParams runs a query with text parameters of unspecified type.
func pgRunParams(ctx context.Context, conn *pgx.Conn, sql string, params []string) pgResult {
	vals := make([][]byte, len(params))
	for i, p := range params {
		vals[i] = []byte(p)
	}
	rr := conn.PgConn().ExecParams(ctx, sql, vals, nil, nil, nil)
	var out pgResult
	for rr.NextRow() {
		row := rr.Values()
		r := make([]*string, len(row))
		for i, v := range row {
			if v != nil {
				s := string(v)
				r[i] = &s
			}
		}
		out.rows = append(out.rows, r)
	}
	for _, f := range rr.FieldDescriptions() {
		out.cols = append(out.cols, Column{Name: f.Name, TypeOID: f.DataTypeOID, TypeMod: f.TypeModifier})
	}
	if _, err := rr.Close(); err != nil {
		out.code, out.msg = errCode(err)
	}
	return out
}

func lineOf(src, stmt string) int {
	k := strings.Index(src, stmt)
	if k < 0 {
		return 0
	}
	return strings.Count(src[:k], "\n") + 1
}

func pgRun(ctx context.Context, conn *pgx.Conn, sql string) pgResult {
	mrr := conn.PgConn().Exec(ctx, sql)
	var out pgResult
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		out = pgResult{}
		for rr.NextRow() {
			row := rr.Values()
			vals := make([]*string, len(row))
			for i, v := range row {
				if v != nil {
					s := string(v)
					vals[i] = &s
				}
			}
			out.rows = append(out.rows, vals)
		}
		for _, f := range rr.FieldDescriptions() {
			out.cols = append(out.cols, Column{Name: f.Name, TypeOID: f.DataTypeOID, TypeMod: f.TypeModifier})
		}
		if _, err := rr.Close(); err != nil {
			out.code, out.msg = errCode(err)
		}
	}
	if err := mrr.Close(); err != nil {
		out.code, out.msg = errCode(err)
	}
	return out
}

func rowString(r []*string) string {
	parts := make([]string, len(r))
	for i, v := range r {
		if v == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprintf("%q", *v)
		}
	}
	return strings.Join(parts, ",")
}

func compareResults(t *testing.T, label, sql string, want pgResult, got *Result, gerr error) {
	t.Helper()
	for _, p := range diffResults(want, got, gerr) {
		t.Errorf("%s: %s\n  %s", label, sql, p)
	}
}

// diffResults lists how the engine's answer differs from PostgreSQL's.
func diffResults(want pgResult, got *Result, gerr error) []string {
	var out []string
	if want.code != "" {
		if gerr == nil {
			out = append(out, fmt.Sprintf("PostgreSQL: ERROR %s %s; engine succeeded with %d rows", want.code, want.msg, got.NumRows()))
		} else if Code(gerr) != want.code {
			out = append(out, fmt.Sprintf("PostgreSQL: ERROR %s %s; engine: ERROR %s %v", want.code, want.msg, Code(gerr), gerr))
		}
		return out
	}
	if gerr != nil {
		return append(out, fmt.Sprintf("PostgreSQL succeeded; engine: ERROR %s %v", Code(gerr), gerr))
	}
	if len(want.cols) != len(got.Columns) {
		return append(out, fmt.Sprintf("columns: PostgreSQL %d, engine %d", len(want.cols), len(got.Columns)))
	}
	for i, c := range want.cols {
		g := got.Columns[i]
		if c.Name != g.Name || c.TypeOID != g.TypeOID || c.TypeMod != g.TypeMod {
			out = append(out, fmt.Sprintf("column %d: PostgreSQL %s oid=%d mod=%d, engine %s oid=%d mod=%d", i+1, c.Name, c.TypeOID, c.TypeMod, g.Name, g.TypeOID, g.TypeMod))
		}
	}
	w := make([]string, len(want.rows))
	for i, r := range want.rows {
		w[i] = rowString(r)
	}
	gr := got.Rows()
	g := make([]string, len(gr))
	for i, r := range gr {
		g[i] = rowString(r)
	}
	if !want.order {
		sort.Strings(w)
		sort.Strings(g)
	}
	if strings.Join(w, "\n") != strings.Join(g, "\n") {
		out = append(out, fmt.Sprintf("PostgreSQL rows:\n    %s\n  engine rows:\n    %s", strings.Join(w, "\n    "), strings.Join(g, "\n    ")))
	}
	return out
}

// mirror copies every public table of the PostgreSQL database into a
// MemCatalog, reading values through the engine's text input.
func mirror(ctx context.Context, conn *pgx.Conn) (*MemCatalog, error) {
	cat := NewMemCatalog()
	rows, err := conn.Query(ctx, `SELECT c.relname, a.attname, a.atttypid, a.atttypmod, a.attnotnull
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY c.relname, a.attnum`)
	if err != nil {
		return nil, err
	}
	type col struct {
		name    string
		oid     uint32
		mod     int32
		notnull bool
	}
	tables := map[string][]col{}
	var order []string
	for rows.Next() {
		var tn, cn string
		var c col
		if err := rows.Scan(&tn, &cn, &c.oid, &c.mod, &c.notnull); err != nil {
			return nil, err
		}
		c.name = cn
		if _, ok := tables[tn]; !ok {
			order = append(order, tn)
		}
		tables[tn] = append(tables[tn], c)
	}
	if rows.Err() != nil {
		return nil, rows.Err()
	}
	for _, tn := range order {
		cols := tables[tn]
		defs := make([]ColumnDef, len(cols))
		for i, c := range cols {
			if _, ok := typeInfos[c.oid]; !ok {
				return nil, fmt.Errorf("table %s column %s: type %d not supported by the engine", tn, c.name, c.oid)
			}
			defs[i] = ColumnDef{Name: c.name, Type: Type{c.oid, c.mod}, NotNull: c.notnull}
		}
		res, err := conn.PgConn().Exec(ctx, "SELECT * FROM "+quoteIdent(tn)).ReadAll()
		if err != nil {
			return nil, err
		}
		vecs := make([]*Vec, len(defs))
		for i, d := range defs {
			vecs[i] = NewVec(d.Type, len(res[0].Rows))
		}
		for r, row := range res[0].Rows {
			for i, v := range row {
				if v == nil {
					vecs[i].SetNull(r)
					continue
				}
				if err := parseText(vecs[i], r, string(v), time.UTC); err != nil {
					return nil, fmt.Errorf("table %s: %v", tn, err)
				}
			}
		}
		mt := MemTableFromVecs(defs, vecs)
		td := &TableDef{Name: tn, Columns: defs, Source: mt}
		var pk []int
		prow, err := conn.Query(ctx, `SELECT a.attnum FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
			WHERE i.indrelid = $1::regclass AND i.indisprimary ORDER BY a.attnum`, tn)
		if err != nil {
			return nil, err
		}
		for prow.Next() {
			var n int16
			if err := prow.Scan(&n); err != nil {
				return nil, err
			}
			pk = append(pk, int(n)-1)
		}
		td.PrimaryKey = pk
		frow, err := conn.Query(ctx, `SELECT c.conname, c.conkey, f.relname, (SELECT array_agg(a.attname ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n),
			c.confupdtype::text, c.confdeltype::text
			FROM pg_constraint c JOIN pg_class f ON f.oid = c.confrelid WHERE c.conrelid = $1::regclass AND c.contype = 'f' ORDER BY c.oid`, tn)
		if err != nil {
			return nil, err
		}
		for frow.Next() {
			var name, ref, upd, del string
			var cols []int16
			var refCols []string
			if err := frow.Scan(&name, &cols, &ref, &refCols, &upd, &del); err != nil {
				return nil, err
			}
			fk := ForeignKey{Name: name, RefTable: ref, RefColumns: refCols, OnUpdate: refAction(upd), OnDelete: refAction(del)}
			for _, c := range cols {
				fk.Columns = append(fk.Columns, int(c)-1)
			}
			td.ForeignKeys = append(td.ForeignKeys, fk)
		}
		if frow.Err() != nil {
			return nil, frow.Err()
		}
		if err := mirrorConstraints(ctx, conn, tn, td); err != nil {
			return nil, err
		}
		mt.Keys = mirrorLookupColumns(td)
		cat.Add(td)
	}
	return cat, mirrorSequences(ctx, conn, cat)
}

// mirrorSequences copies the public schema's sequences.
func mirrorSequences(ctx context.Context, conn *pgx.Conn, cat *MemCatalog) error {
	rows, err := conn.Query(ctx, `SELECT c.relname, s.seqtypid, s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle
		FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' ORDER BY c.oid`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		s := &SequenceDef{}
		var typ uint32
		if err := rows.Scan(&s.Name, &typ, &s.Start, &s.Increment, &s.Min, &s.Max, &s.Cache, &s.Cycle); err != nil {
			return err
		}
		s.Type = Type{typ, -1}
		cat.AddSequence(s)
	}
	return rows.Err()
}

func errCode(err error) (string, string) {
	if pe, ok := err.(*pgconn.PgError); ok {
		return pe.Code, pe.Message
	}
	return "XX000", err.Error()
}

func refAction(code string) RefAction {
	if code == "a" || code == "" {
		return RefNoAction
	}
	return RefAction(code[0])
}

// mirrorLookupColumns lists the columns pgproxy serves by key lookup for
// a table like td, as planner/ddl.LookupColumns does: the leading column
// of the primary key, of each UNIQUE constraint and of each index.
func mirrorLookupColumns(td *TableDef) []int {
	var out []int
	add := func(cols []int) {
		if len(cols) > 0 && cols[0] >= 0 && !slices.Contains(out, cols[0]) {
			out = append(out, cols[0])
		}
	}
	add(td.PrimaryKey)
	for _, u := range td.Unique {
		add(u)
	}
	for _, ix := range td.Indexes {
		add(ix.Columns)
	}
	return out
}

// mirrorConstraints copies what the catalogs show besides columns and
// foreign keys: constraint names, UNIQUE and CHECK constraints, plain
// indexes, column defaults and comments.
func mirrorConstraints(ctx context.Context, conn *pgx.Conn, tn string, td *TableDef) error {
	rows, err := conn.Query(ctx, `SELECT c.conname, c.contype::text, coalesce(c.conkey, '{}'), coalesce(pg_get_expr(c.conbin, c.conrelid, true), '')
		FROM pg_constraint c WHERE c.conrelid = $1::regclass AND c.contype IN ('p', 'u', 'c') ORDER BY c.oid`, tn)
	if err != nil {
		return err
	}
	for rows.Next() {
		var name, typ, expr string
		var key []int16
		if err := rows.Scan(&name, &typ, &key, &expr); err != nil {
			return err
		}
		cols := make([]int, len(key))
		for i, k := range key {
			cols[i] = int(k) - 1
		}
		switch typ {
		case "p":
			td.PrimaryKeyName = name
		case "u":
			td.Unique = append(td.Unique, cols)
			td.UniqueNames = append(td.UniqueNames, name)
		case "c":
			td.Checks = append(td.Checks, CheckDef{Name: name, Expr: expr})
		}
	}
	if rows.Err() != nil {
		return rows.Err()
	}
	rows, err = conn.Query(ctx, `SELECT ic.relname, i.indisunique, i.indkey::int2[] FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
		WHERE i.indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid) ORDER BY ic.oid`, tn)
	if err != nil {
		return err
	}
	for rows.Next() {
		var ix IndexDef
		var key []int16
		if err := rows.Scan(&ix.Name, &ix.Unique, &key); err != nil {
			return err
		}
		for _, k := range key {
			ix.Columns = append(ix.Columns, int(k)-1)
		}
		td.Indexes = append(td.Indexes, ix)
	}
	if rows.Err() != nil {
		return rows.Err()
	}
	rows, err = conn.Query(ctx, `SELECT a.attnum, coalesce(pg_get_expr(d.adbin, d.adrelid), ''), coalesce(col_description(a.attrelid, a.attnum), '')
		FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`, tn)
	if err != nil {
		return err
	}
	for rows.Next() {
		var n int16
		var def, comment string
		if err := rows.Scan(&n, &def, &comment); err != nil {
			return err
		}
		td.Columns[n-1].Default, td.Columns[n-1].Comment = def, comment
	}
	if rows.Err() != nil {
		return rows.Err()
	}
	return conn.QueryRow(ctx, `SELECT coalesce(obj_description($1::regclass, 'pg_class'), '')`, tn).Scan(&td.Comment)
}
