package graph

import (
	"context"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
)

// ManifestVersionKeys maps every existing __manifest version of a graph
// branch to its manifest object key, from one listing of the branch's
// _versions/ directory (no manifest is read). Both Lance naming schemes
// are understood: V1 "<version>.manifest" and V2 "<u64 max - version,
// 20 digits>.manifest". Versions may be missing in the middle when a
// manifest retention pruned them.
func (r *Root) ManifestVersionKeys(ctx context.Context, branch string) (map[uint64]string, error) {
	dir := ManifestRoot
	if lb := lanceBranch(branch); lb != "" {
		dir += "/tree/" + lb
	}
	dir += "/_versions"
	objs, err := r.store.List(ctx, dir+"/")
	if err != nil {
		return nil, err
	}
	out := map[uint64]string{}
	for _, o := range objs {
		if path.Dir(o.Key) != dir {
			continue
		}
		stem, ok := strings.CutSuffix(path.Base(o.Key), ".manifest")
		if !ok || stem == "" || stem[0] < '0' || stem[0] > '9' {
			continue
		}
		n, err := strconv.ParseUint(stem, 10, 64)
		if err != nil {
			continue
		}
		if len(stem) == 20 {
			n = math.MaxUint64 - n
		}
		out[n] = o.Key
	}
	return out, nil
}

// ManifestVersions lists the existing __manifest versions of a graph
// branch, ascending (see ManifestVersionKeys).
func (r *Root) ManifestVersions(ctx context.Context, branch string) ([]uint64, error) {
	keys, err := r.ManifestVersionKeys(ctx, branch)
	if err != nil {
		return nil, err
	}
	vs := make([]uint64, 0, len(keys))
	for v := range keys {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return vs[i] < vs[j] })
	return vs, nil
}
