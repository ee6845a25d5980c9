package graph

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Resolve turns an as-of specification — a manifest version number, a
// commit id, or a timestamp (RFC 3339, or "2006-01-02 15:04:05[.999999][-07]")
// — into a read-only snapshot of branch (SET graph.as_of).
func (r *Root) Resolve(ctx context.Context, branch, spec string) (*Snapshot, error) {
	spec = strings.TrimSpace(spec)
	if v, err := strconv.ParseUint(spec, 10, 64); err == nil {
		return r.SnapshotAt(ctx, branch, v)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, spec); err == nil {
			return r.SnapshotAsOf(ctx, branch, t)
		}
	}
	if spec == "" {
		return nil, fmt.Errorf("%w: empty as-of specification", ErrSnapshotNotFound)
	}
	return r.SnapshotByCommit(ctx, branch, spec)
}
