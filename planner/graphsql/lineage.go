package graphsql

import (
	"context"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
)

// A branch's history is a chain of segments. A branch forked from P at
// manifest version F owns versions F+1 … head of its own __manifest
// chain (its version F is a Clone of P's version F); everything at or
// below F is P's history, read on P (where the commit was published).
// main owns versions 1 … head. Walking newest first therefore costs one
// manifest read per commit returned, never a listing of history.

// segment is the part of one branch's chain that belongs to it.
type segment struct {
	branch      string
	incarnation string    // "main" or the branch ref's id
	floor       uint64    // lowest version owned (fork version + 1; 1 for main)
	parent      string    // branch forked from ("" for main: no parent)
	forkVersion uint64    // parent's version the branch was forked at
	created     time.Time // when the branch ref was created (zero for main)
}

// segmentOf reads a branch's fork point from its ref (one small Get).
func segmentOf(ctx context.Context, root *graph.Root, branch string) (segment, error) {
	if branch == "" || branch == graph.MainBranch {
		return segment{branch: graph.MainBranch, incarnation: graph.MainBranch, floor: 1}, nil
	}
	ref, err := lance.GetBranch(ctx, root.Store(), graph.ManifestRoot, branch)
	if err != nil {
		if lance.IsNotFound(err) {
			return segment{}, &graph.BranchError{Branch: branch, Err: graph.ErrUnknownBranch}
		}
		return segment{}, err
	}
	parent := ref.ParentBranchName()
	if parent == "" {
		parent = graph.MainBranch
	}
	seg := segment{branch: branch, incarnation: ref.ID(), floor: ref.ParentVersion + 1, parent: parent, forkVersion: ref.ParentVersion}
	if ref.CreateAt > 0 {
		seg.created = time.Unix(ref.CreateAt, 0).UTC()
	}
	return seg, nil
}

// lineage iterates the snapshots reachable from a starting snapshot,
// newest first, crossing fork points into the parent branch.
type lineage struct {
	root  *graph.Root
	seg   segment
	first *graph.Snapshot // returned by the first Next, unread
	next  uint64          // next version of seg to read; below seg.floor: go to the parent
	done  bool
}

// newLineage starts at the head of branch (start == nil) or at start, a
// snapshot of branch.
func newLineage(ctx context.Context, root *graph.Root, branch string, start *graph.Snapshot) (*lineage, error) {
	if branch == "" {
		branch = graph.MainBranch
	}
	seg, err := segmentOf(ctx, root, branch)
	if err != nil {
		return nil, err
	}
	if start == nil {
		if start, err = root.Head(ctx, branch); err != nil {
			return nil, err
		}
	}
	l := &lineage{root: root, seg: seg, first: start}
	if start.Version > 0 {
		l.next = start.Version - 1
	}
	// a snapshot at or below a fork point (a branch without commits of
	// its own yet) was published on an ancestor: label and walk it there
	for start.Version < l.seg.floor && !l.done {
		if err := l.toParent(ctx); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// toParent moves the walk to the parent segment, at the fork version.
func (l *lineage) toParent(ctx context.Context) error {
	if l.seg.parent == "" {
		l.done = true
		return nil
	}
	fork := l.seg.forkVersion
	seg, err := segmentOf(ctx, l.root, l.seg.parent)
	if err != nil {
		if graph.IsUnknownBranch(err) {
			// cannot happen while the child exists (a parent with children
			// cannot be deleted); end the history here rather than fail
			l.done = true
			return nil
		}
		return err
	}
	l.seg, l.next = seg, min(l.next, fork)
	return nil
}

// Next returns the next snapshot, newest first, and the branch whose
// chain published it; nil at the end of the history.
func (l *lineage) Next(ctx context.Context) (sn *graph.Snapshot, branch string, err error) {
	if l.first != nil {
		sn, l.first = l.first, nil
		return withIncarnation(sn, l.seg), l.seg.branch, nil
	}
	for !l.done {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		if l.next == 0 {
			l.done = true
			break
		}
		if l.next < l.seg.floor {
			if err := l.toParent(ctx); err != nil {
				return nil, "", err
			}
			continue
		}
		v := l.next
		l.next--
		sn, err := l.root.SnapshotAt(ctx, l.seg.branch, v)
		if err != nil {
			if lance.IsNotFound(err) {
				// older versions were reclaimed: history ends here
				l.done = true
				break
			}
			return nil, "", err
		}
		return withIncarnation(sn, l.seg), l.seg.branch, nil
	}
	return nil, "", nil
}

// withIncarnation returns sn labelled with its segment's branch and
// incarnation (SnapshotAt leaves a branch's incarnation unset). sn is
// copied: snapshots may be shared with the root's cache.
func withIncarnation(sn *graph.Snapshot, seg segment) *graph.Snapshot {
	if sn.Incarnation == seg.incarnation && sn.Branch == seg.branch {
		return sn
	}
	c := *sn
	c.Branch, c.Incarnation = seg.branch, seg.incarnation
	return &c
}

// snapshotAtVersion returns the snapshot at manifest version v of
// branch's history: on the branch itself above its fork point, else on
// the ancestor that published v. ok is false when v is beyond the head or
// no longer stored.
func snapshotAtVersion(ctx context.Context, root *graph.Root, branch string, v uint64) (sn *graph.Snapshot, head *graph.Snapshot, ok bool, err error) {
	seg, err := segmentOf(ctx, root, branch)
	if err != nil {
		return nil, nil, false, err
	}
	if head, err = root.Head(ctx, seg.branch); err != nil {
		return nil, nil, false, err
	}
	if v == 0 || v > head.Version {
		return nil, head, false, nil
	}
	for depth := 0; depth < 1024; depth++ {
		if v >= seg.floor {
			sn, err := root.SnapshotAt(ctx, seg.branch, v)
			if err != nil {
				if lance.IsNotFound(err) {
					return nil, head, false, nil
				}
				return nil, head, false, err
			}
			return withIncarnation(sn, seg), head, true, nil
		}
		if seg.parent == "" {
			return nil, head, false, nil
		}
		if seg, err = segmentOf(ctx, root, seg.parent); err != nil {
			return nil, head, false, err
		}
	}
	return nil, head, false, nil
}

// CommitsSince returns the snapshots of branch's history from the commit
// since (included) up to the head, oldest first, crossing fork points as
// graph.commits does; ok is false when since is not in that history (or
// was reclaimed). One manifest read per commit returned.
func CommitsSince(ctx context.Context, root *graph.Root, branch, since string) (out []*graph.Snapshot, ok bool, err error) {
	l, err := newLineage(ctx, root, branch, nil)
	if err != nil {
		return nil, false, err
	}
	for {
		sn, _, err := l.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		if sn == nil {
			return nil, false, nil
		}
		out = append(out, sn)
		if sn.Commit.ID == since {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, true, nil
}

// CommitsFrom lists branch's history from the newest snapshot below
// floor (the base the first listed commit is compared with) to start
// (the head when nil), oldest first. ok is false when the history has
// no snapshot below floor (it begins at or after floor): then the list
// starts with the oldest snapshot.
func CommitsFrom(ctx context.Context, root *graph.Root, branch string, start *graph.Snapshot, floor uint64) (out []*graph.Snapshot, ok bool, err error) {
	l, err := newLineage(ctx, root, branch, start)
	if err != nil {
		return nil, false, err
	}
	for {
		sn, _, err := l.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		if sn == nil {
			break
		}
		out = append(out, sn)
		if sn.Version < floor {
			ok = true
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, ok, nil
}
