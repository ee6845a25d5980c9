package exec

import (
	"context"
	"testing"
)

// sqlCase is a statement and what it answers: its rows joined by oneText,
// or the SQLSTATE it fails with.
type sqlCase struct {
	sql  string
	want string
	code string
}

// runSQLCases runs each case through eng for sess (nil: no session).
func runSQLCases(t *testing.T, eng *Engine, sess *Session, cases []sqlCase) {
	t.Helper()
	for _, c := range cases {
		p, err := eng.PrepareFor(sess, c.sql, nil)
		var res *Result
		if err == nil {
			res, err = p.Execute(context.Background(), sess, nil)
		}
		if c.code != "" {
			if Code(err) != c.code {
				t.Errorf("%s: want %s, got %v", c.sql, c.code, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.sql, err)
			continue
		}
		if got := oneText(t, res); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.sql, got, c.want)
		}
	}
}
