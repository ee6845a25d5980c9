package graphsql

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/wire"
)

// asOfGraph: main v1 init, v2 create, v3 insert 1-3 (then a pause),
// v4 insert 5; feature forked at v3 with v4 insert 4.
func asOfGraph(t *testing.T) (*adapters.Graph, *history, map[string]time.Time) {
	t.Helper()
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	h := &history{}
	head, _ := g.Root.Head(ctx, "main")
	h.create = head.Commit.ID
	time.Sleep(20 * time.Millisecond)
	h.ins123 = insertPeople(t, g, "main", "insert 1-3", 1, 2, 3)
	time.Sleep(20 * time.Millisecond)
	if _, err := g.CreateBranch(ctx, "feature", "main"); err != nil {
		t.Fatal(err)
	}
	h.ins4 = insertPeople(t, g, "feature", "insert 4", 4)
	time.Sleep(20 * time.Millisecond)
	h.ins5 = insertPeople(t, g, "main", "insert 5", 5)
	times := map[string]time.Time{}
	for _, b := range []string{"main", "feature"} {
		l, err := newLineage(ctx, g.Root, b, nil)
		if err != nil {
			t.Fatal(err)
		}
		for {
			sn, _, err := l.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if sn == nil {
				break
			}
			times[sn.Commit.ID] = sn.Commit.Time
		}
	}
	return g, h, times
}

// peopleAt reads the people ids of a snapshot.
func peopleAt(t *testing.T, g *adapters.Graph, sn *graph.Snapshot) string {
	t.Helper()
	if _, ok := sn.State.TableByName("people"); !ok {
		return "(no table)"
	}
	rows := query(t, catalogAt(t, g, sn, sn.Branch), "SELECT coalesce(string_agg(id::text, ',' ORDER BY id), '') FROM people")
	return rows[0]
}

func TestResolveAsOf(t *testing.T) {
	g, h, times := asOfGraph(t)
	ctx := context.Background()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	between := func(a, b string) time.Time { return times[a].Add(times[b].Sub(times[a]) / 2) }
	mid := between(h.ins123, h.ins5) // after insert 1-3 and the fork, before insert 5 on main
	cases := []struct {
		name, branch, value string
		tz                  *time.Location
		wantPeople          string
		wantVersion         uint64
		wantBranch          string
	}{
		{"version on main", "main", "3", nil, "1,2,3", 3, "main"},
		{"head version", "main", "4", nil, "1,2,3,5", 4, "main"},
		{"version with spaces", "main", " 2 ", nil, "", 2, "main"},
		{"version 1 has no tables", "main", "1", nil, "(no table)", 1, "main"},
		{"feature's own version", "feature", "4", nil, "1,2,3,4", 4, "feature"},
		{"feature version below the fork is main's", "feature", "2", nil, "", 2, "main"},
		{"fork version is main's", "feature", "3", nil, "1,2,3", 3, "main"},
		{"commit id", "main", h.ins123, nil, "1,2,3", 3, "main"},
		{"commit id lower case", "main", strings.ToLower(h.create), nil, "", 2, "main"},
		{"commit id of the root", "feature", g.Root.RootCommitID(), nil, "(no table)", 1, "main"},
		{"commit on feature", "feature", h.ins4, nil, "1,2,3,4", 4, "feature"},
		{"timestamp RFC 3339", "main", mid.Format(time.RFC3339Nano), nil, "1,2,3", 3, "main"},
		{"timestamp PG text with zone", "main", mid.In(ny).Format("2006-01-02 15:04:05.999999-07"), nil, "1,2,3", 3, "main"},
		{"zone-less timestamp in the session TimeZone", "main", mid.In(ny).Format("2006-01-02 15:04:05.999999"), ny, "1,2,3", 3, "main"},
		{"timestamp after the head", "main", "2999-01-01", nil, "1,2,3,5", 4, "main"},
		{"now is the head", "main", "now", nil, "1,2,3,5", 4, "main"},
		{"Go time.String form", "main", mid.In(ny).String(), nil, "1,2,3", 3, "main"},
		{"Go time.String form with monotonic clock", "main", mid.String() + " m=+0.046325564", nil, "1,2,3", 3, "main"},
		{"infinity is the head", "feature", "Infinity", nil, "1,2,3,4", 4, "feature"},
		{"tomorrow is the head", "main", "tomorrow", nil, "1,2,3,5", 4, "main"},
		{"timestamp on feature crosses the fork", "feature", between(h.create, h.ins123).Format(time.RFC3339Nano), nil, "", 2, "main"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sn, err := ResolveAsOf(ctx, g, c.branch, c.value, c.tz)
			if err != nil {
				t.Fatal(err)
			}
			if sn.Version != c.wantVersion || sn.Branch != c.wantBranch {
				t.Fatalf("resolved to %s v%d, want %s v%d", sn.Branch, sn.Version, c.wantBranch, c.wantVersion)
			}
			if sn.Branch == "feature" && sn.Incarnation == "" {
				t.Fatal("snapshot of feature without incarnation")
			}
			if got := peopleAt(t, g, sn); got != c.wantPeople {
				t.Fatalf("people %q, want %q", got, c.wantPeople)
			}
		})
	}
	// a zone-less text is read in the session zone: the same text in UTC
	// names a different instant (New York is behind UTC)
	local := mid.In(ny).Format("2006-01-02 15:04:05.999999")
	sn, err := ResolveAsOf(ctx, g, "main", local, time.UTC)
	if err == nil && sn.Version == 3 {
		t.Fatalf("zone-less %q read in UTC resolved like New York time", local)
	}
}

func TestResolveAsOfErrors(t *testing.T) {
	g, h, times := asOfGraph(t)
	ctx := context.Background()
	var first time.Time
	for _, tm := range times {
		if first.IsZero() || tm.Before(first) {
			first = tm
		}
	}
	unknown := ulid.Make().String()
	cases := []struct {
		name, branch, value, code, msg string
	}{
		{"unknown commit", "main", unknown, CodeInvalidParameterValue, "is not in the history of branch"},
		{"a feature commit is not in main's history", "main", h.ins4, CodeInvalidParameterValue, "is not in the history of branch \"main\""},
		{"empty", "main", "  ", CodeInvalidParameterValue, "must not be empty"},
		{"version beyond the head", "main", "99", CodeInvalidParameterValue, "manifest version 99 is not in the history"},
		{"version zero", "main", "0", CodeInvalidParameterValue, "manifest version 0"},
		{"before the first commit", "main", first.Add(-time.Hour).Format(time.RFC3339Nano), CodeInvalidParameterValue, "before the first commit"},
		{"year 2000", "feature", "2000-01-01 00:00:00", CodeInvalidParameterValue, "before the first commit"},
		{"-infinity", "main", "-infinity", CodeInvalidParameterValue, "before the first commit"},
		{"yesterday", "main", "yesterday", CodeInvalidParameterValue, "before the first commit"},
		{"malformed", "main", "yesterday-ish", CodeInvalidDatetimeFormat, "is not a commit id, a manifest version or a timestamp"},
		{"malformed date", "main", "2026-13-45", "", ""},
		{"unknown branch", "nope", "1", CodeInvalidCatalogName, `branch "nope" does not exist`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ResolveAsOf(ctx, g, c.branch, c.value, nil)
			if c.code == "" {
				if !IsMalformedAsOf(err) && !wire.IsCode(err, "22008") {
					t.Fatalf("err %v; want 22007 or 22008", err)
				}
				return
			}
			wantCode(t, err, c.code)
			if !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("message %q lacks %q", err.Error(), c.msg)
			}
		})
	}
}

// The time graph.commits displays for a commit names that commit: the
// displayed text (microseconds, as PostgreSQL prints a timestamptz) is the
// stored precision, so as_of by it includes the commit.
func TestAsOfDisplayedCommitTimeIncludesTheCommit(t *testing.T) {
	g, _, times := asOfGraph(t)
	ctx := context.Background()
	for id, tm := range times {
		if id == g.Root.RootCommitID() {
			continue
		}
		shown := formatTime(tm, time.UTC)
		for _, b := range []string{"main", "feature"} {
			sn, err := ResolveAsOf(ctx, g, b, shown, nil)
			if err != nil {
				continue // the commit may be on the other branch only
			}
			if sn.Commit.Time.Equal(tm) && sn.Commit.ID != id {
				t.Fatalf("as_of %s on %s resolved to %s, not the commit %s shown at that time", shown, b, sn.Commit.ID, id)
			}
			if sn.Commit.Time.Before(tm) && onBranch(t, g, b, id) {
				t.Fatalf("as_of %s (displayed time of %s) on %s resolved to the older commit %s", shown, id, b, sn.Commit.ID)
			}
		}
	}
}

// onBranch reports whether commit id is in the lineage of branch.
func onBranch(t *testing.T, g *adapters.Graph, branch, id string) bool {
	t.Helper()
	l, err := newLineage(context.Background(), g.Root, branch, nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		sn, _, err := l.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if sn == nil {
			return false
		}
		if sn.Commit.ID == id {
			return true
		}
	}
}
