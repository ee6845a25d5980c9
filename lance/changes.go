package lance

import (
	"context"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/pggraph/pggraph/lance/format"
)

// RowChanges is what happened to a dataset's rows between two versions
// of one ref, computed from their manifests and deletion vectors alone:
// the addresses of rows live in the older version and gone in the newer
// one, and the fragments the newer one added (their live rows are the
// inserted rows; read them with Scan and a FragmentFilter).
type RowChanges struct {
	Deleted      []uint64 // sorted row addresses
	NewFragments []uint64 // sorted fragment ids
}

// ChangesSince compares d with old (an earlier version of the same
// ref). A fragment present in both whose data files changed is reported
// as all its old rows deleted and the fragment new, so the result is
// always a sound over-approximation of the row-level difference.
func (d *Dataset) ChangesSince(ctx context.Context, old *Dataset) (RowChanges, error) {
	var rc RowChanges
	prev := map[uint64]*format.Fragment{}
	for i := range old.Fragments() {
		fr := &old.Fragments()[i]
		prev[fr.ID] = fr
	}
	liveAll := func(fr *format.Fragment) error {
		dv, err := old.deletionVector(ctx, fr)
		if err != nil {
			return err
		}
		for off := uint64(0); off < fr.PhysicalRows; off++ {
			if !dv.Contains(uint32(off)) {
				rc.Deleted = append(rc.Deleted, fr.ID<<32|off)
			}
		}
		return nil
	}
	cur := d.Fragments()
	seen := make(map[uint64]bool, len(cur))
	for i := range cur {
		fr := &cur[i]
		seen[fr.ID] = true
		was, ok := prev[fr.ID]
		if !ok {
			rc.NewFragments = append(rc.NewFragments, fr.ID)
			continue
		}
		if !sameDataFiles(was, fr) {
			if err := liveAll(was); err != nil {
				return rc, err
			}
			rc.NewFragments = append(rc.NewFragments, fr.ID)
			continue
		}
		if sameDeletionFile(was.DeletionFile, fr.DeletionFile) {
			continue
		}
		before, err := old.deletionVector(ctx, was)
		if err != nil {
			return rc, err
		}
		after, err := d.deletionVector(ctx, fr)
		if err != nil {
			return rc, err
		}
		gone := roaring.AndNot(after, before)
		it := gone.Iterator()
		for it.HasNext() {
			rc.Deleted = append(rc.Deleted, fr.ID<<32|uint64(it.Next()))
		}
	}
	for id, fr := range prev {
		if !seen[id] {
			if err := liveAll(fr); err != nil {
				return rc, err
			}
		}
	}
	slices.Sort(rc.Deleted)
	slices.Sort(rc.NewFragments)
	return rc, nil
}

func sameDataFiles(a, b *format.Fragment) bool {
	if len(a.Files) != len(b.Files) || a.PhysicalRows != b.PhysicalRows {
		return false
	}
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path {
			return false
		}
	}
	return true
}

func sameDeletionFile(a, b *format.DeletionFile) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.ID == b.ID && a.ReadVersion == b.ReadVersion && a.NumDeletedRows == b.NumDeletedRows && a.FileType == b.FileType
}
