package wire

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTextRows: rows of a Result that offers them as text are sent from
// NextText when every column travels as text (simple and extended
// protocol, COPY TO in text and csv), and from Next when a column is
// binary.
func TestTextRows(t *testing.T) {
	ts := startServer(t, nil)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, ts.url(testUser, testPassword, "d", ""))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeExec} {
		rows, err := c.Query(ctx, "select textgen(3)", mode)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			vals := rows.RawValues()
			for _, v := range vals {
				if v == nil {
					got = append(got, "NULL")
				} else {
					got = append(got, string(v))
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if want := "t1|text\trow 1|t2|text\trow 2|t3|NULL"; strings.Join(got, "|") != want {
			t.Errorf("mode %v: %q, want %q", mode, strings.Join(got, "|"), want)
		}
	}
	// a binary column: the values come from Next
	rr := c.PgConn().ExecParams(ctx, "select textgen(2)", nil, nil, nil, []int16{1, 0})
	var binary []string
	for rr.NextRow() {
		binary = append(binary, string(rr.Values()[1]))
	}
	if _, err := rr.Close(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(binary, "|") != "row-1|row-2" {
		t.Errorf("binary rows: %q", binary)
	}
	for _, c2 := range []struct{ sql, want string }{
		{"copy (select textgen(3)) to stdout", "t1\ttext\\trow 1\nt2\ttext\\trow 2\nt3\t\\N\n"},
		{"copy (select textgen(3)) to stdout with (format csv)", "t1,text\trow 1\nt2,text\trow 2\nt3,\n"},
	} {
		var out bytes.Buffer
		if _, err := c.PgConn().CopyTo(ctx, &out, c2.sql); err != nil {
			t.Fatal(err)
		}
		if out.String() != c2.want {
			t.Errorf("%s: %q, want %q", c2.sql, out.String(), c2.want)
		}
	}
}
