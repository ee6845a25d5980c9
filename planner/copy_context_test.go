package planner

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
	"github.com/pggraph/pggraph/wire"
)

// copyOutcome runs one COPY FROM STDIN on a fresh table t (in a
// transaction block when inTx: pgproxy then checks the rows as pending
// state instead of streaming them) and renders its error as the client
// sees it, CONTEXT included.
func copyOutcome(ctx context.Context, t *testing.T, c *pgconn.PgConn, cols, opts string, data []byte, inTx bool) string {
	t.Helper()
	if _, err := c.Exec(ctx, "drop table if exists t; create table t ("+cols+")").ReadAll(); err != nil {
		t.Fatal(err)
	}
	if inTx {
		if _, err := c.Exec(ctx, "begin").ReadAll(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if _, err := c.Exec(ctx, "rollback").ReadAll(); err != nil {
				t.Fatal(err)
			}
		}()
	}
	tag, err := c.CopyFrom(ctx, bytes.NewReader(data), "COPY t FROM STDIN "+opts)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return fmt.Sprintf("ERROR %s: %s | DETAIL %s | CONTEXT %s", pe.Code, pe.Message, pe.Detail, pe.Where)
	}
	if err != nil {
		return "ERROR " + err.Error()
	}
	return tag.String()
}

// binaryCopy builds a binary COPY stream of int4 rows (nil = NULL).
func binaryCopy(rows ...[][]byte) []byte {
	b := append([]byte("PGCOPY\n\xff\r\n\x00"), 0, 0, 0, 0, 0, 0, 0, 0)
	for _, r := range rows {
		b = binary.BigEndian.AppendUint16(b, uint16(len(r)))
		for _, f := range r {
			if f == nil {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(f)))
			b = append(b, f...)
		}
	}
	return binary.BigEndian.AppendUint16(b, 0xffff)
}

// TestCopyErrorContextDifferential compares COPY FROM's errors with
// PostgreSQL 15's: SQLSTATE, message, DETAIL and CONTEXT (the line, and
// the column and value where one is at fault).
func TestCopyErrorContextDifferential(t *testing.T) {
	pg := pgtest.Shared(t)
	ctx := context.Background()
	want := freshPGDatabase(ctx, t, pg, "copyctx")
	ts := startServer(t, nil)
	got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)

	long := strings.Repeat("x", 99) + "éé" // 103 bytes: byte 100 is inside a character
	int4 := func(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
	cases := []struct {
		name, cols, opts string
		data             []byte
	}{
		{"text bad integer", "id int4, s text", "", []byte("1\ta\nx\tb\n")},
		{"text out of range", "id int4, s text", "", []byte("1\ta\n99999999999\tb\n")},
		{"text missing data", "id int4, s text, u text", "", []byte("1\ta\tb\n2\tc\n")},
		{"text missing data, null field", "id int4, s text, u text", "", []byte("1\t\\N\n")},
		{"text extra data", "id int4, s text", "", []byte("1\ta\n2\tb\tc\n")},
		{"text extra data, escaped field", "id int4, s text", "", []byte("1\ta\\\\b\tc\n")},
		{"text long value", "id int4, s text", "", []byte("1\ta\n" + long + "\tb\n")},
		{"text long line", "id int4", "", []byte("1\n2\t" + long + "\n")},
		{"text null in a not-null column", "id int4 not null", "", []byte("\\N\n")},
		{"text empty value", "id int4, s text", "", []byte("\tb\n")},
		{"text delimiter option", "id int4, s text", "WITH (DELIMITER '|')", []byte("1|a\n2|b|c\n")},
		{"csv bad integer", "id int4, s text", "WITH (FORMAT csv)", []byte("1,a\nx,b\n")},
		{"csv missing data", "id int4, s text", "WITH (FORMAT csv)", []byte("1,a\n2\n")},
		{"csv extra data", "id int4, s text", "WITH (FORMAT csv)", []byte("1,a\n2,b,c\n")},
		{"csv extra data, quoted field", "id int4, s text", "WITH (FORMAT csv)", []byte("1,\"a,b\",c\n")},
		{"csv bad value after a header", "id int4, s text", "WITH (FORMAT csv, HEADER true)", []byte("id,s\n1,a\ny,b\n")},
		{"text unique", "id int4 primary key", "", []byte("1\n2\n1\n")},
		{"text check", "id int4 check (id > 0)", "", []byte("1\n0\n")},
		{"text foreign key", "id int4 references p", "", []byte("1\n2\n")},
		{"binary bad int4 size", "id int4", "WITH (FORMAT binary)", binaryCopy([][]byte{{0, 0, 0, 0, 0, 0, 0, 1}})},
		{"binary short int4", "id int4", "WITH (FORMAT binary)", binaryCopy([][]byte{{0, 1}})},
		{"binary short int8", "id int8", "WITH (FORMAT binary)", binaryCopy([][]byte{int4(7)})},
		{"binary bad float8 size", "f float8", "WITH (FORMAT binary)", binaryCopy([][]byte{{1, 2, 3, 4, 5, 6, 7, 8, 9}})},
		{"binary not null", "id int4 not null", "WITH (FORMAT binary)", binaryCopy([][]byte{int4(1)}, [][]byte{nil})},
		{"binary wrong field count", "id int4, n int4", "WITH (FORMAT binary)", binaryCopy([][]byte{int4(1), int4(2)}, [][]byte{int4(3)})},
	}
	for _, c := range []*pgconn.PgConn{want.PgConn(), got.PgConn()} {
		if _, err := c.Exec(ctx, "drop table if exists t; drop table if exists p; create table p (id int4 primary key); insert into p values (1)").ReadAll(); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range cases {
		for _, inTx := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/tx=%v", tc.name, inTx), func(t *testing.T) {
				w := copyOutcome(ctx, t, want.PgConn(), tc.cols, tc.opts, tc.data, inTx)
				g := copyOutcome(ctx, t, got.PgConn(), tc.cols, tc.opts, tc.data, inTx)
				if !strings.HasPrefix(w, "ERROR") {
					t.Fatalf("PostgreSQL accepted the case: %s", w)
				}
				if w != g {
					t.Errorf("\n  postgres: %s\n  pgproxy:  %s", w, g)
				}
			})
		}
	}
}

// TestCopyLineText pins how a line is rebuilt from decoded fields (the
// canonical COPY TO form) and cut for a CONTEXT.
func TestCopyLineText(t *testing.T) {
	text := wire.CopyOptions{Format: wire.CopyText, Delimiter: '\t', Null: `\N`}
	csv := wire.CopyOptions{Format: wire.CopyCSV, Delimiter: ',', Null: "", Quote: '"', Escape: '"'}
	cases := []struct {
		name   string
		o      wire.CopyOptions
		fields [][]byte
		want   string
	}{
		{"text plain", text, [][]byte{[]byte("1"), []byte("a")}, "1\ta"},
		{"text null and escapes", text, [][]byte{nil, []byte("a\\b\tc\nd"), []byte(`\N`)}, "\\N\ta\\\\b\\\tc\\nd\t\\\\N"},
		{"csv plain and null", csv, [][]byte{[]byte("1"), nil}, "1,"},
		{"csv empty string is quoted", csv, [][]byte{{}}, `""`},
		{"csv quotes what needs it", csv, [][]byte{[]byte("a,b"), []byte(`say "hi"`), []byte("x\ny")}, "\"a,b\",\"say \"\"hi\"\"\",\"x\ny\""},
	}
	for _, tc := range cases {
		if got := copyLineText(tc.fields, &tc.o); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{strings.Repeat("a", 100), strings.Repeat("a", 100)},
		{strings.Repeat("a", 101), strings.Repeat("a", 100) + "..."},
		{strings.Repeat("a", 99) + "é", strings.Repeat("a", 99) + "..."},
		{strings.Repeat("a", 98) + "éé", strings.Repeat("a", 98) + "é..."},
	} {
		if got := clipCopyText(tc.in); got != tc.want {
			t.Errorf("clipCopyText(%d bytes) = %q, want %q", len(tc.in), got, tc.want)
		}
	}
}
