package wire

import "testing"

// TestMaySignal: PostgreSQL's permission rules for pg_cancel_backend and
// pg_terminate_backend.
func TestMaySignal(t *testing.T) {
	cases := []struct {
		from       string
		fromSuper  bool
		to         string
		toSuper    bool
		terminate  bool
		wantMessge string
	}{
		{"alice", false, "alice", false, false, ""},
		{"alice", false, "alice", false, true, ""},
		{"root", true, "alice", false, true, ""},
		{"root", true, "other", true, false, ""},
		{"alice", false, "bob", false, false, "must be a member of the role whose query is being canceled or member of pg_signal_backend"},
		{"alice", false, "bob", false, true, "must be a member of the role whose process is being terminated or member of pg_signal_backend"},
		{"alice", false, "root", true, false, "must be a superuser to cancel superuser query"},
		{"alice", false, "root", true, true, "must be a superuser to terminate superuser process"},
	}
	for _, c := range cases {
		err := maySignal(c.from, c.fromSuper, c.to, c.toSuper, c.terminate)
		switch {
		case c.wantMessge == "" && err != nil:
			t.Errorf("%+v: %v", c, err)
		case c.wantMessge != "" && (err == nil || err.Code != CodeInsufficientPrivilege || err.Message != c.wantMessge):
			t.Errorf("%+v: got %v", c, err)
		}
	}
}
