package lancesrc

import (
	"cmp"
	"reflect"
	"slices"
	"sync"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/objstore"
)

// ANALYZE statistics are kept process-wide per dataset (store, root,
// Lance branch), by the version they were computed from; a version sees
// the newest statistics computed from it or an older version, as
// PostgreSQL's statistics stay until the next ANALYZE. They live in
// memory only: a restart forgets them (ANALYZE again).
type statsKey struct {
	store        objstore.Store
	root, branch string
}

type versionedStats struct {
	version uint64
	stats   *exec.TableStats
}

var (
	statsMu  sync.Mutex
	statsMap = map[statsKey][]versionedStats{}
)

// statsVersions bounds the versions kept per dataset.
const statsVersions = 4

var _ exec.StatsSource = (*Source)(nil)

func (s *Source) statsKey() (statsKey, bool) {
	st := s.ds.Store()
	if st == nil || !reflect.TypeOf(st).Comparable() {
		return statsKey{}, false
	}
	return statsKey{store: st, root: s.ds.Root(), branch: s.ds.Branch()}, true
}

// TableStats implements exec.StatsSource.
func (s *Source) TableStats() *exec.TableStats {
	k, ok := s.statsKey()
	if !ok {
		return nil
	}
	statsMu.Lock()
	defer statsMu.Unlock()
	var best *versionedStats
	for i, vs := range statsMap[k] {
		if vs.version <= s.ds.Version() && (best == nil || vs.version >= best.version) {
			best = &statsMap[k][i]
		}
	}
	if best == nil {
		return nil
	}
	return best.stats
}

// SetTableStats implements exec.StatsSource.
func (s *Source) SetTableStats(st *exec.TableStats) {
	k, ok := s.statsKey()
	if !ok {
		return
	}
	statsMu.Lock()
	defer statsMu.Unlock()
	l := slices.DeleteFunc(statsMap[k], func(vs versionedStats) bool { return vs.version == s.ds.Version() })
	l = append(l, versionedStats{version: s.ds.Version(), stats: st})
	slices.SortFunc(l, func(a, b versionedStats) int { return cmp.Compare(a.version, b.version) })
	if len(l) > statsVersions {
		l = l[len(l)-statsVersions:]
	}
	statsMap[k] = l
}
