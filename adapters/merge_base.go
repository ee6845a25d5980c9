package adapters

import (
	"context"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/protocol"
)

// mergeBase finds where the source and the target last agreed: walking
// the target's history newest first, the first version that is
//   - a commit of the source's history (the fork point: a branch's
//     first version carries its parent's commit): bases (that version,
//     the source at that commit);
//   - a merge whose merged parent is a commit of the source (the previous
//     merge of this source into the target): bases (the merge, the
//     source commit it merged);
//   - a target commit the source merged in (a merge the other way): the
//     source then holds that target state plus its own changes, so that
//     target version is the content base of both sides.
//
// Where one version is both (a merge of the source that the source then
// merged back: criss-cross), the last rule wins: that version is common
// to both sides, a later base than the source commit it merged, which
// would count the source's own merge of it as source changes and report
// rows only the target changed since as conflicts.
//
// A branch's history continues into its parent's up to the version it
// was forked from (and so on up to main), so a branch created from
// another branch merges into main like git merges a branch of a branch.
// It returns the target-side and source-side base snapshots of the
// three-way comparison (their table pins may lie on different lineages:
// deltaOf compares by file identity). History walks are O(history);
// merge is rare.
func (g *Graph) mergeBase(ctx context.Context, target, source *graph.Snapshot) (tb, sb *graph.Snapshot, err error) {
	src := map[string]*graph.Snapshot{}
	took := map[string]bool{} // target commits the source merged in
	sps, err := g.ancestry(ctx, source)
	if err != nil {
		return nil, nil, err
	}
	for _, hp := range sps {
		sn, err := g.snapshotOf(ctx, hp, source)
		if lance.IsNotFound(err) {
			continue // pruned meanwhile
		}
		if err != nil {
			return nil, nil, err
		}
		if _, ok := src[sn.Commit.ID]; !ok {
			src[sn.Commit.ID] = sn
		}
		if mp := sn.Commit.MergedParent; mp != "" {
			took[mp] = true
		}
	}
	tps, err := g.ancestry(ctx, target)
	if err != nil {
		return nil, nil, err
	}
	for _, hp := range tps {
		tn, err := g.snapshotOf(ctx, hp, target)
		if lance.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		if s, ok := src[tn.Commit.ID]; ok {
			return tn, s, nil
		}
		// a version the source took in is a common state of both sides;
		// it is a later base than the source commit the same version
		// merged (criss-cross merges: each branch merged the other)
		if took[tn.Commit.ID] {
			return tn, tn, nil
		}
		if s, ok := src[tn.Commit.MergedParent]; ok && tn.Commit.MergedParent != "" {
			return tn, s, nil
		}
	}
	return nil, nil, protocol.Errorf(protocol.KindInvalid, nil,
		"branches %q and %q have no common commit in their histories", source.Branch, target.Branch)
}

// histPoint is one __manifest version of one graph branch.
type histPoint struct {
	branch  string
	version uint64
}

func (g *Graph) snapshotOf(ctx context.Context, hp histPoint, head *graph.Snapshot) (*graph.Snapshot, error) {
	if hp.branch == head.Branch && hp.version == head.Version {
		return head, nil
	}
	return g.Root.SnapshotAt(ctx, hp.branch, hp.version)
}

// ancestry lists the existing __manifest versions of sn's history,
// newest first: its branch's versions up to sn, then its parent's up to
// the fork version, and so on up to main (a manifest retention may have
// pruned some versions; a parent branch cannot be deleted while it has
// children).
func (g *Graph) ancestry(ctx context.Context, sn *graph.Snapshot) ([]histPoint, error) {
	out := []histPoint{{sn.Branch, sn.Version}}
	branch, upto := sn.Branch, sn.Version
	for hops := 0; hops < 64; hops++ {
		vs, err := g.manifestVersions(ctx, branch)
		if err != nil {
			return nil, err
		}
		for i := len(vs) - 1; i >= 0; i-- {
			if vs[i] <= upto && !(branch == sn.Branch && vs[i] == sn.Version) {
				out = append(out, histPoint{branch, vs[i]})
			}
		}
		if branch == graph.MainBranch {
			break
		}
		ref, err := lance.GetBranch(ctx, g.Root.Store(), graph.ManifestRoot, branch)
		if err != nil {
			if lance.IsNotFound(err) {
				break // deleted meanwhile
			}
			return nil, err
		}
		parent := ref.ParentBranchName()
		if parent == "" {
			parent = graph.MainBranch
		}
		branch, upto = parent, ref.ParentVersion
	}
	return out, nil
}
