package exec

import (
	"context"
	"strings"
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

// TestAdvisorySessions: locks taken through AdvisorySessions of one
// space — shared holds coexist, an exclusive one excludes, transaction
// holds end with ReleaseXact, session holds with ReleaseSession or
// Close, unlock of a lock not held warns — and two spaces are apart.
func TestAdvisorySessions(t *testing.T) {
	eng := &Engine{}
	space := NewAdvisoryLocks()
	var warned []string
	a, b := space.Session(), space.Session()
	a.Warn = func(m string) { warned = append(warned, m) }
	other := NewAdvisoryLocks().Session()
	q := func(s *AdvisorySession, sql string) string {
		t.Helper()
		r, err := eng.Query(context.Background(), &Session{Advisory: s}, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return oneText(t, r)
	}
	steps := []struct {
		s         *AdvisorySession
		sql, want string
	}{
		{a, "SELECT pg_try_advisory_lock_shared(1), pg_try_advisory_xact_lock(2)", "t,t"},
		{b, "SELECT pg_try_advisory_lock_shared(1), pg_try_advisory_lock(1), pg_try_advisory_lock(2)", "t,f,f"},
		{other, "SELECT pg_try_advisory_lock(1), pg_try_advisory_lock(2)", "t,t"},
		{a, "SELECT pg_advisory_unlock(2), pg_advisory_unlock(1)", "f,f"},
	}
	for _, st := range steps {
		if got := strings.ReplaceAll(q(st.s, st.sql), "|", ","); got != st.want {
			t.Fatalf("%s: got %q want %q", st.sql, got, st.want)
		}
	}
	if len(warned) != 2 || warned[0] != "you don't own a lock of type ExclusiveLock" {
		t.Fatalf("warnings %q", warned)
	}
	a.ReleaseXact() // the transaction ends: 2 is free, the shared hold on 1 stays
	if got := q(b, "SELECT pg_try_advisory_lock(2), pg_try_advisory_lock(1)"); got != "t,f" && got != "t|f" {
		t.Fatalf("after ReleaseXact: %q", got)
	}
	if a.Holds(1) != 1 || b.Holds(1) != 1 || b.Holds(2) != 1 {
		t.Fatalf("holds a1=%d b1=%d b2=%d", a.Holds(1), b.Holds(1), b.Holds(2))
	}
	a.Close()
	b.ReleaseSession()
	if a.Holds(1)+b.Holds(1)+b.Holds(2) != 0 {
		t.Fatal("holds left after Close / ReleaseSession")
	}
	// without a provider the sequence functions are 0A000 (the name must
	// resolve: a missing relation is 42P01 before anything runs)
	if _, err := eng.Query(context.Background(), &Session{}, "SELECT nextval('pg_class')"); Code(err) != CodeFeatureNotSupported {
		t.Fatalf("nextval without a session: %v", err)
	}
}
