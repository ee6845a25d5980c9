package exec

import (
	"context"
	"testing"
	"time"
)

func TestAdvisoryLocks(t *testing.T) {
	eng := &Engine{}
	a, b := &Session{PID: 9101}, &Session{PID: 9102}
	defer ReleaseAdvisoryLocks(a.PID)
	defer ReleaseAdvisoryLocks(b.PID)
	q := func(s *Session, sql string) string {
		t.Helper()
		r, err := eng.Query(context.Background(), s, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return oneText(t, r)
	}
	steps := []struct {
		s         *Session
		sql, want string
	}{
		{a, "SELECT pg_try_advisory_lock(7)", "t"},
		{a, "SELECT pg_try_advisory_lock(7)", "t"}, // re-entrant
		{b, "SELECT pg_try_advisory_lock(7)", "f"},
		{b, "SELECT pg_try_advisory_lock(0, 7)", "t"}, // the two-key space is separate
		{a, "SELECT pg_advisory_unlock(7)", "t"},
		{b, "SELECT pg_try_advisory_lock(7)", "f"}, // still held once
		{a, "SELECT pg_advisory_unlock(7)", "t"},
		{a, "SELECT pg_advisory_unlock(7)", "f"},
		{b, "SELECT pg_try_advisory_lock(7)", "t"},
		{b, "SELECT pg_advisory_unlock_all()", ""},
		{a, "SELECT pg_try_advisory_lock(0, 7)", "t"},
	}
	for _, st := range steps {
		if got := q(st.s, st.sql); got != st.want {
			t.Fatalf("pid %d %s: got %q want %q", st.s.PID, st.sql, got, st.want)
		}
	}
	// a blocking lock waits for the holder and is cancellable
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := eng.Query(ctx, b, "SELECT pg_advisory_lock(0, 7)"); Code(err) != CodeQueryCanceled {
		t.Fatalf("blocked lock: want 57014, got %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := eng.Query(context.Background(), b, "SELECT pg_advisory_lock(0, 7)")
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	ReleaseAdvisoryLocks(a.PID) // the session ends
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter not woken when the holder's session ended")
	}
	if got := q(a, "SELECT pg_try_advisory_lock(0, 7)"); got != "f" {
		t.Fatalf("lock not taken over by the waiter: %s", got)
	}
}
