package planner

import (
	"bytes"
	"context"
	"testing"
)

// TestCopyToStdout: COPY … TO STDOUT runs its query through exec and wire
// frames the rows in the requested format.
func TestCopyToStdout(t *testing.T) {
	ts := startServer(t, createPeople(t))
	c := ts.connect(t, modes[0].mode)
	cases := []struct{ sql, want, tag, code string }{
		{sql: "COPY people TO STDOUT", want: "1\tada\t1.5\n2\t\\N\t2.25\n3\tbob\t0.1\n", tag: "COPY 3"},
		{sql: "copy people (name, id) to stdout with (format csv, header)", want: "name,id\nada,1\n,2\nbob,3\n", tag: "COPY 3"},
		{sql: "copy (select g, 'a(b)' from generate_series(1, 2) g) to stdout", want: "1\ta(b)\n2\ta(b)\n", tag: "COPY 2"},
		{sql: "copy nope to stdout", code: "42P01"},
		{sql: "copy people from '/etc/passwd'", code: "0A000"},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		tag, err := c.PgConn().CopyTo(context.Background(), &buf, tc.sql)
		if tc.code != "" {
			if sqlState(err) != tc.code {
				t.Errorf("%s: %v, want %s", tc.sql, err, tc.code)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if buf.String() != tc.want || tag.String() != tc.tag {
			t.Errorf("%s: %q %s, want %q %s", tc.sql, buf.String(), tag, tc.want, tc.tag)
		}
	}
}

func TestInnerParens(t *testing.T) {
	cases := map[string]string{
		"copy (select 1) to stdout":                    "select 1",
		"copy (select ')' || \"a(\" from t) to stdout": "select ')' || \"a(\" from t",
		"copy (select 'it''s (x)') to stdout":          "select 'it''s (x)'",
		"copy /* ( */ (select (1)) to stdout":          "select (1)",
		"copy (select 1 to stdout":                     "",
	}
	for in, want := range cases {
		if got := innerParens(in); got != want {
			t.Errorf("innerParens(%q) = %q, want %q", in, got, want)
		}
	}
}
