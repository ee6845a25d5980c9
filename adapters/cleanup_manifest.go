package adapters

import (
	"context"
	"fmt"
	"sort"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/recovery"
	"github.com/pggraph/pggraph/replication"
)

// __manifest version retention (CleanupOptions.KeepManifestVersions > 0;
// off by default, since every manifest version is a graph commit that
// time travel can reach). Per graph branch, the newest
// KeepManifestVersions versions are kept, and so is every version that
// something still needs:
//   - the first version of a branch (its shallow clone of the parent)
//     and every version a child branch was forked from (a branch's first
//     state is read through its parent's version);
//   - every version newer than the base version of a pending recovery
//     intent on the branch (recovery looks for the intent's commit and
//     rollback commit ids above its base);
//   - every merge commit, and every commit some branch merged in (merge
//     bases are found through them);
//   - every tagged version;
//   - every version a replication slot on the branch may still stream
//     (from the commit before its first unconfirmed one; through fork
//     points into the parent branches its history reads).
//
// Deleting a version removes its manifest file only; the data and
// transaction files it alone referenced become unreferenced and are
// reclaimed by the same run (the __manifest dataset is cleaned after its
// versions). Time travel to a deleted version answers "snapshot not
// found", and history walks stop at the oldest kept version.

// manifestHistory is what the retention needs from the whole graph
// history: per branch its versions and commits.
type manifestHistory struct {
	versions map[string][]uint64          // graph branch → versions, ascending
	commits  map[string]map[uint64]string // graph branch → version → commit id
	merged   map[string]bool              // commit ids some commit merged in
	mergeAt  map[string]map[uint64]bool   // graph branch → versions that are merge commits
}

func (h *manifestHistory) add(branch string, v uint64, c graph.Commit) {
	if h.commits[branch] == nil {
		h.commits[branch] = map[uint64]string{}
		h.mergeAt[branch] = map[uint64]bool{}
	}
	h.versions[branch] = append(h.versions[branch], v)
	h.commits[branch][v] = c.ID
	if c.MergedParent != "" {
		h.merged[c.MergedParent] = true
		h.mergeAt[branch][v] = true
	}
}

// pruneManifest deletes the __manifest versions the retention lets go.
func (g *Graph) pruneManifest(ctx context.Context, h *manifestHistory, keep int, pend []*recovery.Sidecar, dry bool, rep *CleanupReport) error {
	mds, err := lance.Open(ctx, g.Root.Store(), graph.ManifestRoot, g.Root.DatasetOptions(graph.ManifestRoot, "", 0))
	if err != nil {
		return err
	}
	refs, err := mds.ListBranches(ctx)
	if err != nil {
		return err
	}
	tags, err := mds.ListTags(ctx)
	if err != nil {
		return err
	}
	protect := map[string]map[uint64]bool{}
	mark := func(b string, v uint64) {
		if protect[b] == nil {
			protect[b] = map[uint64]bool{}
		}
		protect[b][v] = true
	}
	for _, r := range refs {
		parent := r.ParentBranchName()
		if parent == "" {
			parent = graph.MainBranch
		}
		mark(parent, r.ParentVersion)
		if vs := h.versions[r.Name]; len(vs) > 0 {
			mark(r.Name, vs[0])
		}
	}
	for _, t := range tags {
		b := graph.MainBranch
		if t.Branch != nil && *t.Branch != "" {
			b = *t.Branch
		}
		mark(b, t.Version)
	}
	floor := map[string]uint64{} // keep every version above the lowest pending base
	for _, sc := range pend {
		b := sc.Branch
		if f, ok := floor[b]; !ok || sc.Write.Base.ManifestVersion < f {
			floor[b] = sc.Write.Base.ManifestVersion
		}
	}
	// a replication slot streams its branch from the commit before its
	// first unconfirmed one: keep every version from there on, through
	// the fork points into the parents whose versions its history reads
	slots, err := replication.ManifestFloors(ctx, g.Root.Store())
	if err != nil {
		return err
	}
	refByName := map[string]int{}
	for i, r := range refs {
		refByName[r.Name] = i
	}
	for b, keepFrom := range slots {
		for depth := 0; depth <= len(refs); depth++ {
			f := uint64(0)
			if keepFrom > 0 {
				f = keepFrom - 1 // versions above f are kept
			}
			if cur, ok := floor[b]; !ok || f < cur {
				floor[b] = f
			}
			i, ok := refByName[b]
			if !ok || keepFrom > refs[i].ParentVersion {
				break
			}
			parent := refs[i].ParentBranchName()
			if parent == "" {
				parent = graph.MainBranch
			}
			b = parent
		}
	}
	var branches []string
	for b := range h.versions {
		branches = append(branches, b)
	}
	sort.Strings(branches)
	for _, b := range branches {
		vs := h.versions[b]
		sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
		if len(vs) <= keep {
			continue
		}
		keys, err := g.Root.ManifestVersionKeys(ctx, b)
		if err != nil {
			return err
		}
		f, hasFloor := floor[b]
		for _, v := range vs[:len(vs)-keep] {
			switch {
			case protect[b][v], h.mergeAt[b][v], h.merged[h.commits[b][v]], hasFloor && v > f:
				continue
			}
			key, ok := keys[v]
			if !ok {
				return fmt.Errorf("cleanup: no manifest file for version %d of branch %s", v, b)
			}
			if !dry {
				if err := g.Root.Store().Delete(ctx, key); err != nil {
					return err
				}
			}
			rep.ManifestVersionsDeleted++
			rep.Deleted = append(rep.Deleted, key)
		}
	}
	return nil
}
