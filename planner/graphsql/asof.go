package graphsql

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
)

// asOfHint lists what graph.as_of accepts.
const asOfHint = "graph.as_of takes a commit id (see graph.commits), a manifest version number, or a timestamp such as '2026-11-29 17:30:00+00'."

// ResolveAsOf turns a graph.as_of value into the read-only snapshot of
// branch's history it names (SET graph.as_of, graph.create_branch's at):
//
//   - digits only: a manifest version — the branch's own version above
//     its fork point, else the ancestor's version it inherited;
//   - a ULID (26 Crockford base-32 characters, any case): a commit id;
//   - anything else: a timestamp in PostgreSQL's timestamptz input
//     format (also now, today, yesterday, tomorrow, ±infinity, and Go's
//     time.Time.String() form that Go drivers send), read in
//     tz (the session TimeZone; nil = UTC), naming the newest commit at
//     or before it.
//
// The history walked is the lineage of the branch head (its own commits,
// then those of the branch it was forked from, …): by version and by
// ancestry the cost is one manifest read per level, by commit id or time
// one per commit newer than the target.
//
// Errors: 3D000 unknown branch; 22023 (IsUnknownSnapshot) for a commit id
// not in the history, a version beyond the head or no longer stored, and
// a timestamp before the first commit; 22007 (IsMalformedAsOf) for text
// that is none of the three.
func ResolveAsOf(ctx context.Context, g *adapters.Graph, branch, value string, tz *time.Location) (*graph.Snapshot, error) {
	if branch == "" {
		branch = graph.MainBranch
	}
	spec := strings.TrimSpace(value)
	if spec == "" {
		return nil, errf(CodeInvalidParameterValue, "graph.as_of must not be empty").WithHint(asOfHint)
	}
	if isDigits(spec) {
		if v, err := strconv.ParseUint(spec, 10, 64); err == nil {
			return snapshotByVersion(ctx, g, branch, v)
		}
	}
	if _, err := ulid.ParseStrict(spec); err == nil {
		return snapshotByCommit(ctx, g, branch, spec)
	}
	t, err := parseTimestamptz(ctx, spec, tz)
	if err != nil {
		return nil, err
	}
	return snapshotByTime(ctx, g, branch, t, tz)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func snapshotByVersion(ctx context.Context, g *adapters.Graph, branch string, v uint64) (*graph.Snapshot, error) {
	sn, head, ok, err := snapshotAtVersion(ctx, g.Root, branch, v)
	if err != nil {
		return nil, sqlError("graph.as_of", branch, err)
	}
	if !ok {
		e := errf(CodeInvalidParameterValue, "manifest version %d is not in the history of branch %q", v, branch)
		if head != nil {
			e = e.WithDetail("The head of branch \"" + branch + "\" is version " + strconv.FormatUint(head.Version, 10) + "; older versions may have been reclaimed.")
		}
		return nil, e
	}
	return sn, nil
}

func snapshotByCommit(ctx context.Context, g *adapters.Graph, branch, id string) (*graph.Snapshot, error) {
	l, err := newLineage(ctx, g.Root, branch, nil)
	if err != nil {
		return nil, sqlError("graph.as_of", branch, err)
	}
	for {
		sn, b, err := l.Next(ctx)
		if err != nil {
			return nil, sqlError("graph.as_of", b, err)
		}
		if sn == nil {
			return nil, errf(CodeInvalidParameterValue, "commit %q is not in the history of branch %q", id, branch).
				WithHint("graph.commits lists the commits of the session's branch.")
		}
		if sn.Commit.Names(id) {
			return sn, nil
		}
	}
}

func snapshotByTime(ctx context.Context, g *adapters.Graph, branch string, t time.Time, tz *time.Location) (*graph.Snapshot, error) {
	l, err := newLineage(ctx, g.Root, branch, nil)
	if err != nil {
		return nil, sqlError("graph.as_of", branch, err)
	}
	var oldest *graph.Snapshot
	for {
		sn, b, err := l.Next(ctx)
		if err != nil {
			return nil, sqlError("graph.as_of", b, err)
		}
		if sn == nil {
			break
		}
		if !sn.Commit.Time.After(t) {
			return sn, nil
		}
		oldest = sn
	}
	if tz == nil {
		tz = time.UTC
	}
	e := errf(CodeInvalidParameterValue, "timestamp %s is before the first commit of branch %q", formatTime(t, tz), branch)
	if oldest != nil {
		e = e.WithDetail("The oldest commit in its history is " + oldest.Commit.ID + " at " + formatTime(oldest.Commit.Time, tz) + ".")
	}
	return nil, e
}

// formatTime renders t the way PostgreSQL prints a timestamptz (ISO).
func formatTime(t time.Time, tz *time.Location) string {
	v := exec.NewVec(exec.TTimestamptz, 1)
	v.I[0] = t.UnixMicro()
	s, _ := exec.FormatText(v, 0, tz)
	return s
}

// parseTimestamptz reads s as PostgreSQL timestamptz input through the
// executor (so every input form it accepts works here), zone-less text in
// tz. A value that is not a timestamp is 22007.
func parseTimestamptz(ctx context.Context, s string, tz *time.Location) (time.Time, error) {
	if t, ok := specialTimestamp(s, tz, time.Now()); ok {
		return t, nil
	}
	if t, ok := goTimeString(s); ok {
		return t, nil
	}
	eng := &exec.Engine{Catalog: exec.NewMemCatalog()}
	res, err := eng.Query(ctx, &exec.Session{TimeZone: tz}, "SELECT CAST($1 AS timestamptz)", s)
	if err != nil {
		if ctx.Err() != nil {
			return time.Time{}, ctx.Err()
		}
		e := errf(CodeInvalidDatetimeFormat, "invalid value for graph.as_of: %q is not a commit id, a manifest version or a timestamp", s).WithHint(asOfHint)
		if c := exec.Code(err); c == exec.CodeDatetimeFieldOverflow {
			e.Code = c
			e.Detail = pgerr.Message(err)
		}
		e.Cause = err
		return time.Time{}, e
	}
	if res.NumRows() != 1 || res.Batches[0].Cols[0].IsNull(0) {
		return time.Time{}, errf(CodeInvalidDatetimeFormat, "invalid value for graph.as_of: %q", s).WithHint(asOfHint)
	}
	return time.UnixMicro(res.Batches[0].Cols[0].I[0]).UTC(), nil
}

// specialTimestamp reads PostgreSQL's special timestamptz inputs (now,
// today, yesterday, tomorrow, infinity, -infinity; the day names at
// midnight in tz).
func specialTimestamp(s string, tz *time.Location, now time.Time) (time.Time, bool) {
	if tz == nil {
		tz = time.UTC
	}
	local := now.In(tz)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, tz)
	switch strings.ToLower(s) {
	case "now":
		return now, true
	case "today":
		return midnight, true
	case "yesterday":
		return midnight.AddDate(0, 0, -1), true
	case "tomorrow":
		return midnight.AddDate(0, 0, 1), true
	case "infinity", "+infinity":
		return time.Date(294276, 12, 31, 23, 59, 59, 0, time.UTC), true
	case "-infinity":
		return time.Date(-4713, 11, 24, 0, 0, 0, 0, time.UTC), true
	}
	return time.Time{}, false
}

// goTimeString reads Go's time.Time.String() form ("2006-01-02
// 15:04:05.999999999 -0700 MST", with an optional monotonic " m=±…"
// suffix): Go drivers send a time.Time bound to a text parameter that
// way.
func goTimeString(s string) (time.Time, bool) {
	if i := strings.Index(s, " m="); i > 0 {
		s = s[:i]
	}
	t, err := time.Parse("2006-01-02 15:04:05.999999999 -0700 MST", s)
	return t, err == nil
}
