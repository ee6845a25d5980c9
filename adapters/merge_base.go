package adapters

import (
	"context"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// mergeBase finds where the source and the target last agreed: walking
// the target's history newest first, the first version that is
//   - a commit of the source's own history (the fork point: a branch's
//     first version carries its parent's commit): bases (that version,
//     the source at that commit);
//   - a merge whose merged parent is a commit of the source (the previous
//     merge of this source into the target): bases (the merge, the
//     source commit it merged);
//   - a target commit the source merged in (a merge the other way): the
//     source then holds that target state plus its own changes, so that
//     target version is the content base of both sides.
//
// It returns the target-side and source-side base snapshots of the
// three-way comparison (their table pins may lie on different lineages:
// deltaOf compares by file identity). History walks are O(history);
// merge is rare.
func (g *Graph) mergeBase(ctx context.Context, target, source *graph.Snapshot) (tb, sb *graph.Snapshot, err error) {
	src := map[string]*graph.Snapshot{}
	took := map[string]bool{} // target commits the source merged in
	svs, err := g.versionsDesc(ctx, source)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range svs {
		sn := source
		if v != source.Version {
			sn, err = g.Root.SnapshotAt(ctx, source.Branch, v)
			if lance.IsNotFound(err) {
				continue // pruned meanwhile
			}
			if err != nil {
				return nil, nil, err
			}
		}
		if _, ok := src[sn.Commit.ID]; !ok {
			src[sn.Commit.ID] = sn
		}
		if mp := sn.Commit.MergedParent; mp != "" {
			took[mp] = true
		}
	}
	tvs, err := g.versionsDesc(ctx, target)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range tvs {
		tn := target
		if v != target.Version {
			tn, err = g.Root.SnapshotAt(ctx, target.Branch, v)
			if lance.IsNotFound(err) {
				continue
			}
			if err != nil {
				return nil, nil, err
			}
		}
		if s, ok := src[tn.Commit.ID]; ok {
			return tn, s, nil
		}
		if s, ok := src[tn.Commit.MergedParent]; ok && tn.Commit.MergedParent != "" {
			return tn, s, nil
		}
		if took[tn.Commit.ID] {
			return tn, tn, nil
		}
	}
	return nil, nil, protocol.Errorf(protocol.KindInvalid, nil,
		"branches %q and %q have no common commit in their own histories; merge each into the branch they were created from", source.Branch, target.Branch)
}

// versionsDesc lists the existing __manifest versions of sn's branch up
// to sn's version, newest first (a manifest retention may have pruned
// some; a branch's versions start at its fork).
func (g *Graph) versionsDesc(ctx context.Context, sn *graph.Snapshot) ([]uint64, error) {
	vs, err := g.manifestVersions(ctx, sn.Branch)
	if err != nil {
		return nil, err
	}
	out := []uint64{sn.Version}
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i] < sn.Version {
			out = append(out, vs[i])
		}
	}
	return out, nil
}
