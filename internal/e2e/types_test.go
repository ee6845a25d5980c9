package e2e

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// typeValue is one line of testdata/types/values.tsv: a type name and a
// value's text input (null for \N).
type typeValue struct {
	typ   string
	value *string
}

// typesFile is the table of values every driver type test sends.
const typesFile = repoRoot + "/testdata/types/values.tsv"

func readTypeValues(t *testing.T) []typeValue {
	t.Helper()
	f, err := os.Open(typesFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []typeValue
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		typ, val, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: no tab in %q", typesFile, line)
		}
		tv := typeValue{typ: typ}
		if val != `\N` {
			tv.value = &val
		}
		out = append(out, tv)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// refusedValues are the values pgproxy answers with 0A000 where
// PostgreSQL has a value, each with the reason (docs/architecture.md
// lists both limits). The test requires exactly that error for them.
var refusedValues = map[string]string{
	"{{1,2},{3,4}}": "arrays have one dimension",
	"[0:1]={a,b}":   "arrays have lower bound 1",
}

// dateStyles are DateStyle and IntervalStyle settings: the date/time
// values are sent and read back under each output style and field order,
// and intervals under each IntervalStyle.
var dateStyles = []struct{ date, interval string }{
	{"ISO, MDY", "postgres"}, {"ISO, DMY", "postgres"}, {"ISO, YMD", "postgres"},
	{"SQL, MDY", "postgres"}, {"SQL, DMY", "sql_standard"}, {"Postgres, MDY", "postgres_verbose"},
	{"Postgres, DMY", "postgres"}, {"German", "iso_8601"},
}

// isDateTime reports a date/time type (or an array of one).
func isDateTime(typ string) bool {
	switch strings.TrimSuffix(typ, "[]") {
	case "date", "time", "timestamp", "timestamptz", "interval":
		return true
	}
	return false
}

// TestBindTypes sends every value of testdata/types/values.tsv as a bind
// parameter to PostgreSQL 15 and to pgproxy through the extended protocol
// (pgx's pgconn, so the formats are chosen here): as untyped text, as
// text declared with the type's OID, and in binary format (the bytes
// PostgreSQL's send function produced), and reads each result back in
// text and in binary format. The answers, byte for byte, or the
// SQLSTATE, must be the same. A second pass sends the values with no
// declared type into a table column of the type (INSERT … RETURNING), so
// the parameter's type comes from its context.
func TestBindTypes(t *testing.T) {
	ctx := context.Background()
	values := readTypeValues(t)
	pg := pgtest.Shared(t)
	pgc, err := pgx.Connect(ctx, pg.ConnString(freshPostgresDB(t, pg)))
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	p := startProxy(t)
	pc, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	for _, c := range []*pgx.Conn{pgc, pc} {
		mustExec(t, ctx, c, "SET TimeZone = 'UTC'")
	}
	oids := map[string]uint32{}
	for _, v := range values {
		if _, ok := oids[v.typ]; ok {
			continue
		}
		var oid uint32
		if err := pgc.QueryRow(ctx, "SELECT $1::regtype::oid", v.typ).Scan(&oid); err != nil {
			t.Fatalf("type %s: %v", v.typ, err)
		}
		oids[v.typ] = oid
	}
	for _, v := range values {
		name := v.typ + " " + show(v.value)
		oid := oids[v.typ]
		// PostgreSQL's binary form of the value is the binary parameter
		var bin []byte
		var binOK bool
		if v.value != nil {
			r := pgc.PgConn().ExecParams(ctx, "SELECT $1::"+v.typ, [][]byte{[]byte(*v.value)}, nil, nil, []int16{1}).Read()
			if r.Err == nil {
				bin, binOK = r.Rows[0][0], true
			}
		}
		sql := fmt.Sprintf("SELECT $1::%s AS t, $1::%s AS b", v.typ, v.typ)
		type mode struct {
			name   string
			oid    uint32
			format int16
			param  []byte
		}
		modes := []mode{{"text untyped", 0, 0, raw(v.value)}, {"text typed", oid, 0, raw(v.value)}}
		if binOK || v.value == nil {
			modes = append(modes, mode{"binary", oid, 1, bin})
		}
		for _, m := range modes {
			run := func(c *pgx.Conn) string {
				return answer(c.PgConn().ExecParams(ctx, sql, [][]byte{m.param}, []uint32{m.oid}, []int16{m.format}, []int16{0, 1}).Read())
			}
			compareAnswers(t, name+" ("+m.name+")", v, run(pgc), run(pc))
		}
	}
	// DateStyle: text in, text and binary out
	for _, style := range dateStyles {
		for _, c := range []*pgx.Conn{pgc, pc} {
			mustExec(t, ctx, c, "SET DateStyle = '"+style.date+"'; SET IntervalStyle = "+style.interval)
		}
		for _, v := range values {
			if !isDateTime(v.typ) {
				continue
			}
			sql := fmt.Sprintf("SELECT $1::%s AS t, $1::%s AS b", v.typ, v.typ)
			run := func(c *pgx.Conn) string {
				return answer(c.PgConn().ExecParams(ctx, sql, [][]byte{raw(v.value)}, nil, nil, []int16{0, 1}).Read())
			}
			compareAnswers(t, v.typ+" "+show(v.value)+" (DateStyle "+style.date+", IntervalStyle "+style.interval+")", v, run(pgc), run(pc))
		}
	}
	for _, c := range []*pgx.Conn{pgc, pc} {
		mustExec(t, ctx, c, "SET DateStyle = 'ISO, MDY'; SET IntervalStyle = postgres")
	}
	// the parameter's type from its context: a column of the type
	tables := map[string]string{}
	for _, v := range values {
		tbl, ok := tables[v.typ]
		if !ok {
			tbl = fmt.Sprintf("bind_%d", len(tables))
			tables[v.typ] = tbl
			ddl := fmt.Sprintf("CREATE TABLE %s (id serial PRIMARY KEY, v %s)", tbl, v.typ)
			if _, err := pc.Exec(ctx, ddl); err != nil {
				// a type tables cannot store here (name, "char", oid, ...)
				mustState(t, err, "0A000", ddl)
				tables[v.typ] = ""
				continue
			}
			mustExec(t, ctx, pgc, ddl)
		}
		if tbl == "" {
			continue
		}
		sql := "INSERT INTO " + tbl + " (v) VALUES ($1) RETURNING v, v"
		run := func(c *pgx.Conn) string {
			return answer(c.PgConn().ExecParams(ctx, sql, [][]byte{raw(v.value)}, nil, nil, []int16{0, 1}).Read())
		}
		want := "(not inserted)"
		if v.value == nil || refusedValues[*v.value] == "" {
			want = run(pgc) // PostgreSQL stores only what pgproxy stores
		}
		compareAnswers(t, v.typ+" "+show(v.value)+" (INSERT)", v, want, run(pc))
	}
	for typ, tbl := range tables {
		if tbl == "" {
			continue
		}
		sql := "SELECT v, v FROM " + tbl + " ORDER BY id"
		run := func(c *pgx.Conn) string {
			return answer(c.PgConn().ExecParams(ctx, sql, nil, nil, nil, []int16{0, 1}).Read())
		}
		compareAnswers(t, typ+" (stored)", typeValue{typ: typ}, run(pgc), run(pc))
	}
}

// compareAnswers requires pgproxy's answer to be PostgreSQL's, or 0A000
// for a refused value.
func compareAnswers(t *testing.T, what string, v typeValue, want, got string) {
	t.Helper()
	if v.value != nil {
		if reason, ok := refusedValues[*v.value]; ok {
			if !strings.HasPrefix(got, "ERROR 0A000") {
				t.Errorf("%s: pgproxy answered %s, want 0A000 (%s)", what, got, reason)
			}
			return
		}
	}
	if want != got {
		t.Errorf("%s:\n  postgres: %s\n  pgproxy:  %s", what, want, got)
	}
}

// raw is a parameter's bytes, nil for NULL.
func raw(s *string) []byte {
	if s == nil {
		return nil
	}
	return []byte(*s)
}

func show(s *string) string {
	if s == nil {
		return "NULL"
	}
	return fmt.Sprintf("%q", *s)
}

// answer renders a result as "text | hex of binary" per row, or the
// error's SQLSTATE.
func answer(r *pgconn.Result) string {
	if r.Err != nil {
		return "ERROR " + sqlState(r.Err) + " " + r.Err.Error()
	}
	var b strings.Builder
	for n, row := range r.Rows {
		if n > 0 {
			b.WriteString(" / ")
		}
		for i, cell := range row {
			if i > 0 {
				b.WriteString(" | ")
			}
			switch {
			case cell == nil:
				b.WriteString("NULL")
			case i == 0:
				fmt.Fprintf(&b, "%q", cell)
			default:
				b.WriteString(hex.EncodeToString(cell))
			}
		}
	}
	return b.String()
}
