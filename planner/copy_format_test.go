package planner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/exec"
)

// textRows runs a query in the simple protocol and renders its rows in
// PostgreSQL's text form: columns joined by "|", rows by ";", NULL as
// <null>.
func textRows(t *testing.T, c *pgx.Conn, sql string) string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		raw := rows.RawValues()
		parts := make([]string, len(raw))
		for i, v := range raw {
			if v == nil {
				parts[i] = "<null>"
			} else {
				parts[i] = string(v)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(out, ";")
}

// TestCopyFormats: COPY's text and csv decoding and value conversion,
// one fresh table per case, in autocommit (streamed through the Load
// adapter) and inside a transaction (pending rows); each case gives the
// rows the table then holds or the SQLSTATE (and error context) of a
// rejected COPY, after which the table must still be empty.
func TestCopyFormats(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	cases := []struct {
		name   string
		cols   string // table columns
		copy   string // COPY options after FROM STDIN
		data   string
		rows   string // SELECT * ORDER BY 1 when the COPY succeeds
		code   string // SQLSTATE when it fails
		where  string // the error's CONTEXT, when set
		detail string // the error's DETAIL, when set
	}{
		{name: "text escapes", cols: "id int8, s text", data: "1\ta\\tb\n2\tx\\\\y\n3\t\\101\\x42\\nC\n4\tq\\zr\n",
			rows: "1|a\tb;2|x\\y;3|AB\nC;4|qzr"},
		{name: "text null and empty", cols: "id int8, s text", data: "1\t\\N\n2\t\n3\t\\\\N\n",
			rows: "1|<null>;2|;3|\\N"},
		{name: "escaped delimiter", cols: "id int8, s text", data: "1\ta\\\tb\n", rows: "1|a\tb"},
		{name: "custom delimiter and null", cols: "id int8, s text", copy: "WITH (DELIMITER '|', NULL 'NIL')",
			data: "1|NIL\n2|a,b\n3|\\N\n", rows: "1|<null>;2|a,b;3|N"},
		{name: "text header and end marker", cols: "id int8, s text", copy: "WITH (HEADER true)",
			data: "id\ts\n1\tone\n\\.\n", rows: "1|one"},
		{name: "crlf lines", cols: "id int8, s text", data: "1\ta\r\n2\tb\r\n", rows: "1|a;2|b"},
		{name: "csv quoting", cols: "id int8, s text", copy: "WITH (FORMAT csv)",
			data: "1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n3,\"two\nlines\"\n4,\n5,\"\"\n",
			rows: "1|a,b;2|say \"hi\";3|two\nlines;4|<null>;5|"},
		{name: "csv options", cols: "id int8, s text", copy: "WITH (FORMAT csv, HEADER true, DELIMITER ';', QUOTE '''', ESCAPE '\\', NULL 'none')",
			data: "id;s\n1;'it\\'s'\n2;none\n3;'none'\n", rows: "1|it's;2|<null>;3|none"},
		{name: "integer spellings", cols: "a int2, b int4, c int8", data: "-32768\t+7\t 12 \n32767\t-0\t-9223372036854775808\n",
			rows: "-32768|7|12;32767|0|-9223372036854775808"},
		{name: "float spellings", cols: "id int8, f float8, r float4", data: "1\t-1.5e-3\t0.1\n2\tNaN\t-Infinity\n3\t.5\t1E2\n4\t1e308\t3.4e38\n",
			rows: "1|-0.0015|0.1;2|NaN|-Infinity;3|0.5|100;4|1e+308|3.4e+38"},
		{name: "other types through exec", cols: "id int8, d date, b bool, n numeric(5,2)", data: "1\t2024-02-29\tt\t3.14159\n2\t\\N\tno\t-1\n",
			rows: "1|2024-02-29|t|3.14;2|<null>|f|-1.00"},
		{name: "uuid canonical", cols: "id int8, u uuid", data: "1\tA0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\n2\t\\N\n",
			rows: "1|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11;2|<null>"},
		{name: "duplicate uuid key spelled twice", cols: "u uuid primary key", data: "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11\na0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\n", code: "23505"},
		// bytea and json(b) run their input functions, as INSERT does
		// (raw text used to be stored: \x4142 as six bytes)
		{name: "bytea hex and escape", cols: "id int8, b bytea", data: "1\t\\\\x4142\n2\tab\\\\\\\\c\n",
			rows: "1|\\x4142;2|\\x61625c63"},
		{name: "jsonb normalized", cols: "id int8, j jsonb, k json", data: "1\t{\"b\": 1,  \"a\": [1, 2]}\t{\"b\": 1,  \"a\": 2}\n",
			rows: "1|{\"a\": [1, 2], \"b\": 1}|{\"b\": 1,  \"a\": 2}"},
		{name: "invalid json", cols: "id int8, j json", data: "1\t{nope\n", code: "22P02"},
		{name: "invalid bytea", cols: "id int8, b bytea", data: "1\t\\\\xZZ\n", code: "22023"}, // PostgreSQL's hex_decode (as exec since d8e64e7)
		{name: "varchar and char", cols: "id int8, v varchar(3), c char(3)", data: "1\tab\tx\n2\tabc  \tyz\n",
			rows: "1|ab|x  ;2|abc|yz "},
		{name: "bad integer", cols: "id int8, s text", data: "1\ta\n2x\tb\n", code: "22P02", where: `COPY t, line 2, column id: "2x"`},
		{name: "int4 out of range", cols: "id int8, n int4", data: "1\t2147483648\n", code: "22003", where: `COPY t, line 1, column n: "2147483648"`},
		{name: "int8 out of range", cols: "id int8", data: "9223372036854775808\n", code: "22003"},
		{name: "bad float", cols: "id int8, f float8", data: "1\t1.2.3\n", code: "22P02"},
		{name: "float out of range", cols: "id int8, f float8", data: "1\t1e400\n", code: "22003"},
		{name: "bad date", cols: "id int8, d date", data: "1\t2024-02-30\n", code: "22008"},
		{name: "varchar too long", cols: "id int8, v varchar(3)", data: "1\tabcd\n", code: "22001"},
		{name: "missing column", cols: "id int8, s text", data: "1\n", code: "22P04"},
		{name: "extra column", cols: "id int8, s text", data: "1\ta\tb\n", code: "22P04"},
		{name: "bad value before a short row", cols: "id int8, s text", data: "1\ta\nx\tb\n2\n", code: "22P02", where: `COPY t, line 2, column id: "x"`},
		{name: "bad value after a header", cols: "id int8, s text", copy: "WITH (FORMAT csv, HEADER true)", data: "id,s\n1,a\nx,b\n", code: "22P02",
			where: `COPY t, line 3, column id: "x"`},
		{name: "short row before a bad value", cols: "id int8, s text", data: "1\ta\n2\nx\tb\n", code: "22P04"},
		{name: "bad value after csv multi-line field", cols: "id int8, s text", copy: "WITH (FORMAT csv)", data: "1,\"a\nb\"\n2,c\nz,d\n", code: "22P02",
			where: `COPY t, line 3, column id: "z"`},
		{name: "unterminated csv quote", cols: "id int8, s text", copy: "WITH (FORMAT csv)", data: "1,\"abc\n", code: "22P04"},
		{name: "duplicate key in batch", cols: "id int8 primary key, s text", data: "1\ta\n2\tb\n1\tc\n", code: "23505"},
		{name: "duplicate text key", cols: "k text primary key", data: "a\nb\na\n", code: "23505"},
		{name: "null key", cols: "id int8 primary key", data: "\\N\n", code: "23502"},
		{name: "not null", cols: "id int8, s text not null", data: "1\ta\n2\t\\N\n", code: "23502"},
		{name: "not null shows the row", cols: "id int8, s text, t text not null, u text", data: "1\ta\tb\tc\n2\tx\t\\N\tz\n", code: "23502",
			detail: "Failing row contains (2, x, null, z)."},
		{name: "check", cols: "id int8, n int4 check (n > 0)", data: "1\t1\n2\t0\n", code: "23514"},
		{name: "no rows", cols: "id int8, s text", data: "", rows: ""},
	}
	for i, tc := range cases {
		for _, inTx := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tx=%v", tc.name, inTx), func(t *testing.T) {
				if _, err := c.Exec(ctx, "drop table if exists t"); err != nil {
					t.Fatal(err)
				}
				if _, err := c.Exec(ctx, "create table t ("+tc.cols+")"); err != nil {
					t.Fatal(err)
				}
				if inTx {
					if _, err := c.Exec(ctx, "begin"); err != nil {
						t.Fatal(err)
					}
				}
				_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(tc.data), "COPY t FROM STDIN "+tc.copy)
				if inTx {
					end := "commit"
					if err != nil {
						end = "rollback"
					}
					if _, err := c.Exec(ctx, end); err != nil {
						t.Fatal(err)
					}
				}
				if tc.code != "" {
					if sqlState(err) != tc.code {
						t.Fatalf("case %d: got %v, want SQLSTATE %s", i, err, tc.code)
					}
					var pe *pgconn.PgError
					if tc.where != "" && (!errors.As(err, &pe) || pe.Where != tc.where) {
						t.Fatalf("case %d: %v: CONTEXT %+v, want %q", i, err, pe, tc.where)
					}
					if tc.detail != "" && (!errors.As(err, &pe) || pe.Detail != tc.detail) {
						t.Fatalf("case %d: %v: DETAIL %+v, want %q", i, err, pe, tc.detail)
					}
					if got := textRows(t, c, "select count(*) from t"); got != "0" {
						t.Fatalf("case %d: a rejected COPY left %s rows", i, got)
					}
					return
				}
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				if got := textRows(t, c, "select * from t order by 1"); got != tc.rows {
					t.Fatalf("case %d:\n got %q\nwant %q", i, got, tc.rows)
				}
			})
		}
	}
}

// TestCopyDefaultsAndColumnList: omitted columns get their defaults
// (constant, sequence) and a column list in another order lands in the
// right columns.
func TestCopyDefaultsAndColumnList(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table t (id bigserial primary key, s text default 'dflt', n int4, f float8)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader("1.5\t7\n\\N\t8\n"), "COPY t (f, n) FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	if got, want := textRows(t, c, "select id, s, n, f from t order by n"), "1|dflt|7|1.5;2|dflt|8|<null>"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestCopyNoLostOrDuplicatedRows: a COPY of several batches (autocommit
// and in a transaction) stores every row exactly once with its values:
// count, distinct keys, key sum and a per-row checksum of the text and
// float columns all match what was sent; a bad row in the last batch
// stores nothing.
func TestCopyNoLostOrDuplicatedRows(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	const n = 3*copyBatchRows + 123
	data := string(benchNodeText(n))
	var lenSum, scoreSum float64
	for id := range n {
		lenSum += float64(len(fmt.Sprintf("node-%d", id)))
		scoreSum += float64(id%1000) / 8
	}
	want := fmt.Sprintf("%d|%d|%d|%d|%s", n, n, n*(n-1)/2, int64(lenSum), strconv.FormatFloat(scoreSum, 'f', -1, 64))
	for _, inTx := range []bool{false, true} {
		name := fmt.Sprintf("nodes_tx_%v", inTx)
		if _, err := c.Exec(ctx, "create table "+name+" (id int8 primary key, name text not null, score float8, payload text)"); err != nil {
			t.Fatal(err)
		}
		if inTx {
			if _, err := c.Exec(ctx, "begin"); err != nil {
				t.Fatal(err)
			}
		}
		tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(data), "COPY "+name+" FROM STDIN")
		if err != nil || tag.RowsAffected() != n {
			t.Fatalf("tx=%v: %v %v", inTx, tag, err)
		}
		if inTx {
			if _, err := c.Exec(ctx, "commit"); err != nil {
				t.Fatal(err)
			}
		}
		got := textRows(t, c, "select count(*), count(distinct id), sum(id), sum(length(name)), sum(score) from "+name+
			" where name = 'node-' || id and payload = 'payload-' || to_hex((id * 2654435761) % 1000003)")
		if got != want {
			t.Fatalf("tx=%v: got %s, want %s", inTx, got, want)
		}
		// the same rows again collide with the stored ones: nothing added
		if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader("999999999\tx\t1\tp\n"+data), "COPY "+name+" FROM STDIN"); sqlState(err) != "23505" {
			t.Fatalf("tx=%v: second COPY: %v", inTx, err)
		}
		var bad strings.Builder // new keys, then a bad value in the last batch
		for id := n; id < n+2*copyBatchRows; id++ {
			fmt.Fprintf(&bad, "%d\tx\t1\tp\n", id)
		}
		bad.WriteString("-1\tx\tnot-a-float\tp\n")
		if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(bad.String()), "COPY "+name+" FROM STDIN"); sqlState(err) != "22P02" {
			t.Fatalf("tx=%v: bad last row: %v", inTx, err)
		}
		if got := textRows(t, c, "select count(*) from "+name); got != fmt.Sprint(n) {
			t.Fatalf("tx=%v: %s rows after rejected COPYs, want %d", inTx, got, n)
		}
	}
}

// TestCopyForeignKeys: edge rows whose endpoints exist load, one whose
// endpoint is missing (in any batch) rejects the COPY, and endpoints
// probed in the parent's key index see rows loaded by an earlier COPY.
func TestCopyForeignKeys(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	for _, sql := range []string{
		"create table nodes (id int8 primary key)",
		"create table edges (src int8 not null references nodes (id), dst int8 not null references nodes (id), w float8) with (graph.kind = edge)",
	} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	var nodes, edges strings.Builder
	const n = 2*copyBatchRows + 10
	for i := range n {
		fmt.Fprintf(&nodes, "%d\n", i)
		fmt.Fprintf(&edges, "%d\t%d\t0.5\n", i, (i+1)%n)
	}
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(nodes.String()), "COPY nodes FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	tag, err := c.PgConn().CopyFrom(ctx, strings.NewReader(edges.String()), "COPY edges FROM STDIN")
	if err != nil || tag.RowsAffected() != n {
		t.Fatalf("edges: %v %v", tag, err)
	}
	for _, bad := range []string{
		"0\t1\t1\n5\t" + fmt.Sprint(n) + "\t1\n",                  // missing dst in the first batch
		edges.String() + fmt.Sprint(n+7) + "\t0\t1\n",             // missing src in the last batch
		strings.Repeat("1\t2\t0\n", copyBatchRows) + "-1\t2\t0\n", // a later batch
	} {
		_, err := c.PgConn().CopyFrom(ctx, strings.NewReader(bad), "COPY edges FROM STDIN")
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "23503" || !strings.Contains(pe.Detail, "is not present in table \"nodes\"") {
			t.Fatalf("missing endpoint: %v", err)
		}
	}
	if got := textRows(t, c, "select count(*), sum(src), sum(dst) from edges"); got != fmt.Sprintf("%d|%d|%d", n, n*(n-1)/2, n*(n-1)/2) {
		t.Fatalf("edges after rejected COPYs: %s", got)
	}
}

// TestCopyBinaryFormat: pgx's binary COPY of every fast-path type plus
// one that goes through its text form, with NULLs.
func TestCopyBinaryFormat(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	if _, err := c.Exec(ctx, "create table b (a int2, b int4, c int8 primary key, d float4, e float8, f text, g varchar(5), h bool)"); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{int16(-3), int32(1 << 30), int64(math.MaxInt64), float32(1.5), math.Inf(-1), "tab\there", "abc", true},
		{nil, nil, int64(-1), nil, nil, nil, nil, nil},
		{int16(7), int32(-8), int64(0), float32(-0.25), 1e-300, "", "", false},
	}
	n, err := c.CopyFrom(ctx, pgx.Identifier{"b"}, []string{"a", "b", "c", "d", "e", "f", "g", "h"}, pgx.CopyFromRows(rows))
	if err != nil || n != 3 {
		t.Fatalf("binary: %d %v", n, err)
	}
	want := "<null>|<null>|-1|<null>|<null>|<null>|<null>|<null>;7|-8|0|-0.25|1e-300|||f;-3|1073741824|9223372036854775807|1.5|-Infinity|tab\there|abc|t"
	if got := textRows(t, c, "select * from b order by c"); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	_, err = c.CopyFrom(ctx, pgx.Identifier{"b"}, []string{"c"}, pgx.CopyFromRows([][]any{{int64(5)}, {int64(0)}}))
	if sqlState(err) != "23505" {
		t.Fatalf("binary duplicate: %v", err)
	}
	// several batches: every row once; a duplicate in the last batch
	// stores nothing
	const k = 2*copyBatchRows + 5
	many := func(count int, dup bool) pgx.CopyFromSource {
		return pgx.CopyFromSlice(count, func(i int) ([]any, error) {
			if dup && i == count-1 {
				return []any{int64(1000), "again"}, nil
			}
			return []any{int64(1000 + i), fmt.Sprint("r", i)}, nil
		})
	}
	if got, err := c.CopyFrom(ctx, pgx.Identifier{"b"}, []string{"c", "f"}, many(k, false)); err != nil || got != k {
		t.Fatalf("binary batches: %d %v", got, err)
	}
	if got, want := textRows(t, c, "select count(*), count(distinct c), sum(c), sum(length(f)) from b where c between 1000 and 1000000"),
		fmt.Sprintf("%d|%d|%d|%d", k, k, k*1000+k*(k-1)/2, binaryTextLen(k)); got != want {
		t.Fatalf("binary batches stored %s, want %s", got, want)
	}
	if _, err := c.Exec(ctx, "delete from b where c between 1000 and 1000000"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CopyFrom(ctx, pgx.Identifier{"b"}, []string{"c", "f"}, many(k, true)); sqlState(err) != "23505" {
		t.Fatalf("binary duplicate in a later batch: %v", err)
	}
	if got := textRows(t, c, "select count(*) from b"); got != "3" {
		t.Fatalf("after a rejected binary COPY: %s rows, want 3", got)
	}
}

// binaryTextLen is the total length of "r0" … "r<k-1>".
func binaryTextLen(k int) int {
	n := 0
	for i := range k {
		n += len(fmt.Sprint("r", i))
	}
	return n
}

// TestCopyPlainParsers: the in-place integer and float parsers either
// decline a spelling or agree with exec's input function on it.
func TestCopyPlainParsers(t *testing.T) {
	ints := []string{"0", "-0", "7", "-7", "+7", " 7", "007", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648",
		"-2147483648", "-2147483649", "999999999999999999", "9223372036854775807", "9223372036854775808", "-", "", "1e3", "0x10", "1_0"}
	for _, typ := range []exec.Type{exec.TInt2, exec.TInt4, exec.TInt8} {
		col := copyColumn{t: typ, name: "x", kind: copyInt}
		for _, s := range ints {
			v, ok := plainInt([]byte(s), typ)
			ref, err := col.parse([]byte(s))
			if ok && (err != nil || ref.I[0] != v) {
				t.Errorf("%s %q: fast %d, exec %v %v", typ, s, v, ref, err)
			}
		}
	}
	floats := []string{"0", "-0", "1.5", "-1.5e-3", ".5", "5.", "1e308", "1e309", "-1e400", "1e-400", "3.4e38", "3.5e38",
		"0.1", "123456789012345678901234567890", "1e", "e1", "--1", "+1", "1.2.3", "NaN", "inf", "1_0", " 1", "0x1p3", "-.e1",
		"0.000123", "123.456", "-987654.321", "9007199254740991", "9007199254740993", "0.1234567890123456789", "1.0000000000000002",
		"4.35", "2.675", "1.15", "0.3", ".", "-.", "5.", "-5.25", "1234567890123456.7", "0.0000000000000000000001",
		"1e-320", "1e-40", "1e-46", "-1e-400", "0e-400", "0.0e5"}
	for _, typ := range []exec.Type{exec.TFloat4, exec.TFloat8} {
		col := copyColumn{t: typ, name: "x", kind: copyFloat}
		for _, s := range floats {
			v, ok := plainFloat([]byte(s), typ)
			ref, err := col.parse([]byte(s))
			if ok && (err != nil || math.Float64bits(ref.F[0]) != math.Float64bits(v)) {
				t.Errorf("%s %q: fast %v, exec %v %v", typ, s, v, ref, err)
			}
		}
	}
}

// FuzzCopyPlainParsers: on any bytes the in-place parsers do not panic,
// and a value they accept is the one exec's input function reads.
func FuzzCopyPlainParsers(f *testing.F) {
	for _, s := range []string{"0", "-12", "+1", "1.5", "-0.001", "1e5", "9007199254740993", "3.4e38", "NaN", "", "-", "1.2.3"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, typ := range []exec.Type{exec.TInt2, exec.TInt4, exec.TInt8} {
			if v, ok := plainInt(in, typ); ok {
				col := copyColumn{t: typ, name: "x", kind: copyInt}
				ref, err := col.parse(in)
				if err != nil || ref.I[0] != v {
					t.Fatalf("%s %q: fast %d, exec %v %v", typ, in, v, ref, err)
				}
			}
		}
		for _, typ := range []exec.Type{exec.TFloat4, exec.TFloat8} {
			if v, ok := plainFloat(in, typ); ok {
				col := copyColumn{t: typ, name: "x", kind: copyFloat}
				ref, err := col.parse(in)
				if err != nil || math.Float64bits(ref.F[0]) != math.Float64bits(v) {
					t.Fatalf("%s %q: fast %v, exec %v %v", typ, in, v, ref, err)
				}
			}
		}
	})
}
