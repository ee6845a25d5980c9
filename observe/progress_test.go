package observe

import (
	"testing"
	"time"
)

func TestProgressRegistry(t *testing.T) {
	a := StartProgress(&Progress{Command: "COPY FROM", Relation: "a"})
	b := StartProgress(&Progress{Command: "MERGE", Database: "main"})
	a.AddRows(10, 2)
	a.AddBytes(100)
	a.SetPhase("receiving")
	b.SetUnits(1, 3)
	got := RunningProgress()
	if len(got) != 2 || got[0].Command != "COPY FROM" || got[1].Command != "MERGE" {
		t.Fatalf("running = %+v", got)
	}
	if s := got[0]; s.Rows != 10 || s.Excluded != 2 || s.Bytes != 100 || s.Phase != "receiving" {
		t.Fatalf("snapshot = %+v", s)
	}
	if s := got[1]; s.UnitsDone != 1 || s.UnitsTotal != 3 {
		t.Fatalf("snapshot = %+v", s)
	}
	a.Done()
	b.Done()
	if got := RunningProgress(); len(got) != 0 {
		t.Fatalf("after Done: %+v", got)
	}
}

func TestProgressNoticeDue(t *testing.T) {
	start := time.Unix(1000, 0)
	p := &Progress{Started: start}
	for _, c := range []struct {
		at       time.Duration
		interval time.Duration
		want     bool
	}{
		{time.Second, 0, false},                      // not opted in
		{500 * time.Millisecond, time.Second, false}, // too early
		{time.Second, time.Second, true},             // one interval after the start
		{1500 * time.Millisecond, time.Second, false},
		{2 * time.Second, time.Second, true},
	} {
		if got := p.NoticeDue(start.Add(c.at), c.interval); got != c.want {
			t.Errorf("at %v every %v: due %v, want %v", c.at, c.interval, got, c.want)
		}
	}
}
