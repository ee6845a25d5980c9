package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestTimeZoneFollowsSettings: the session keeps the TimeZone setting's
// location between statements (loading a zone reads its file), so each
// change of the setting must reach the next statement's output, in
// autocommit, inside a transaction and after a rollback of SET.
func TestTimeZoneFollowsSettings(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	const q = "select '2024-01-01 12:00:00+00'::timestamptz::text"
	steps := []struct{ stmt, want string }{
		{"", "2024-01-01 12:00:00+00"},
		{"set timezone = 'America/New_York'", "2024-01-01 07:00:00-05"},
		{"", "2024-01-01 07:00:00-05"},
		{"set timezone = 'Asia/Tokyo'", "2024-01-01 21:00:00+09"},
		{"begin", "2024-01-01 21:00:00+09"},
		{"set local timezone = 'Europe/Berlin'", "2024-01-01 13:00:00+01"},
		{"rollback", "2024-01-01 21:00:00+09"},
		{"reset timezone", "2024-01-01 12:00:00+00"},
	}
	for _, st := range steps {
		if st.stmt != "" {
			if _, err := c.Exec(ctx, st.stmt); err != nil {
				t.Fatalf("%s: %v", st.stmt, err)
			}
		}
		var got string
		if err := c.QueryRow(ctx, q).Scan(&got); err != nil {
			t.Fatalf("after %q: %v", st.stmt, err)
		}
		if got != st.want {
			t.Errorf("after %q: %s, want %s", st.stmt, got, st.want)
		}
	}
}
