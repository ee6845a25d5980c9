package lance

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/pggraph/pggraph/lance/format"
)

// AddressMap translates row addresses across one compaction (a Rewrite
// version): the rows are unchanged, their addresses are not. A
// compaction group's new fragments hold the live rows of its old
// fragments in scan order (old fragments by id, rows by offset, deleted
// rows skipped: StageCompaction), so the k-th live row of the group's
// old fragments is the k-th row of its new fragments, in the order the
// commit assigned their ids. Callers with addresses read at an older
// version (a transaction's delete set, its row locks, its read set)
// rebase them onto the compacted version instead of treating the
// compaction as a change of every row.
type AddressMap struct {
	old    map[uint64]*rewrittenFragment
	groups []rewriteTarget
}

// rewrittenFragment is one old fragment of a group: its deleted offsets
// at the rewritten version and the group rank of its first live row.
type rewrittenFragment struct {
	deleted *roaring.Bitmap
	start   uint64
	group   int
}

// rewriteTarget is one group's new fragments, ids in commit order, with
// the group rank of each one's first row.
type rewriteTarget struct {
	ids    []uint64
	starts []uint64
}

// Map returns where the row at address a of the version before the
// compaction lives now. moved is false when a was not a live row of a
// rewritten fragment (its fragment was not compacted, or the row was
// already deleted): the address is then returned unchanged.
func (m *AddressMap) Map(a uint64) (uint64, bool) {
	if m == nil {
		return a, false
	}
	of := m.old[a>>32]
	if of == nil {
		return a, false
	}
	off := uint32(a)
	if of.deleted.Contains(off) {
		return a, false
	}
	rank := of.start + uint64(off) - of.deleted.Rank(off)
	g := &m.groups[of.group]
	j := sort.Search(len(g.starts), func(i int) bool { return g.starts[i] > rank }) - 1
	if j < 0 {
		return a, false
	}
	return g.ids[j]<<32 | (rank - g.starts[j]), true
}

// Rewritten reports whether fragment id was compacted away by the
// version (its rows moved).
func (m *AddressMap) Rewritten(id uint64) bool {
	return m != nil && m.old[id] != nil
}

// RewriteAddresses returns the address map of d's version when it is a
// compaction (a Rewrite) of prev, the version right before it; nil (and
// no error) for any other operation. A Rewrite whose fragments do not
// add up (its old fragments missing from prev or changed since the
// compaction read them, or new fragments whose row counts differ from
// the live rows they replace) is an error: the caller treats the
// version as a change of every row.
func (d *Dataset) RewriteAddresses(ctx context.Context, prev *Dataset) (*AddressMap, error) {
	if prev.version+1 != d.version {
		return nil, wrapf(ErrInvalidArgument, "rewrite addresses: version %d does not follow %d", d.version, prev.version)
	}
	before := make(map[uint64]*format.Fragment, len(prev.Fragments()))
	for i := range prev.Fragments() {
		before[prev.Fragments()[i].ID] = &prev.Fragments()[i]
	}
	now := make(map[uint64]bool, len(d.Fragments()))
	var added []*format.Fragment
	for i := range d.Fragments() {
		fr := &d.Fragments()[i]
		now[fr.ID] = true
		if before[fr.ID] == nil {
			added = append(added, fr)
		}
	}
	removed := false
	for id := range before {
		if !now[id] {
			removed = true
			break
		}
	}
	if !removed {
		return nil, nil // a compaction always removes fragments
	}
	txn, err := d.Transaction(ctx, d.version)
	if err != nil {
		return nil, err
	}
	op, ok := txn.Op.(*format.Rewrite)
	if !ok {
		return nil, nil
	}
	groups := op.Groups
	if len(op.OldFragments) > 0 || len(op.NewFragments) > 0 {
		groups = append([]format.RewriteGroup{{OldFragments: op.OldFragments, NewFragments: op.NewFragments}}, groups...)
	}
	// new fragment ids are assigned group by group, in order, and are
	// above every older id (rewriteFragments)
	slices.SortFunc(added, func(a, b *format.Fragment) int { return compareU64(a.ID, b.ID) })
	m := &AddressMap{old: map[uint64]*rewrittenFragment{}, groups: make([]rewriteTarget, len(groups))}
	next := 0
	for gi, g := range groups {
		var live uint64
		olds := slices.Clone(g.OldFragments)
		slices.SortFunc(olds, func(a, b format.Fragment) int { return compareU64(a.ID, b.ID) }) // scan order
		for i := range olds {
			fr := before[olds[i].ID]
			if fr == nil || now[fr.ID] || !sameDataFiles(fr, &olds[i]) || !sameDeletionFile(fr.DeletionFile, olds[i].DeletionFile) {
				return nil, errRewriteShape
			}
			dv, err := prev.deletionVector(ctx, fr)
			if err != nil {
				return nil, err
			}
			m.old[fr.ID] = &rewrittenFragment{deleted: dv, start: live, group: gi}
			live += fr.PhysicalRows - dv.GetCardinality()
		}
		t := &m.groups[gi]
		var rows uint64
		for i := range g.NewFragments {
			if next >= len(added) || added[next].PhysicalRows != g.NewFragments[i].PhysicalRows || added[next].DeletionFile != nil {
				return nil, errRewriteShape
			}
			t.ids = append(t.ids, added[next].ID)
			t.starts = append(t.starts, rows)
			rows += added[next].PhysicalRows
			next++
		}
		if rows != live {
			return nil, errRewriteShape
		}
	}
	if next != len(added) {
		return nil, errRewriteShape
	}
	for id := range before {
		if !now[id] && m.old[id] == nil {
			return nil, errRewriteShape // removed but not rewritten
		}
	}
	return m, nil
}

// errRewriteShape: a Rewrite version whose fragments do not add up.
var errRewriteShape = errors.New("lance: the compaction's fragments do not match its versions")

func compareU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
