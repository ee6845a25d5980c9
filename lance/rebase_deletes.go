package lance

import (
	"context"
	"slices"

	"github.com/pggraph/pggraph/lance/format"
)

// Lance rebases a Delete/Update over a committed Delete/Update that
// touched the same fragments when those fragments only got new deletion
// files: the two deletion vectors are merged. These helpers do the same.

// deletesOnly reports whether a committed operation changed the given
// fragments only by giving them new deletion files (not removing them).
func deletesOnly(theirs format.Operation, ids map[uint64]bool) bool {
	var updated []format.Fragment
	var removed []uint64
	switch o := theirs.(type) {
	case *format.Delete:
		updated, removed = o.UpdatedFragments, o.DeletedFragmentIDs
	case *format.Update:
		if o.Mode != format.UpdateRewriteRows {
			return false
		}
		updated, removed = o.UpdatedFragments, o.RemovedFragmentIDs
	default:
		return false
	}
	for _, id := range removed {
		if ids[id] {
			return false
		}
	}
	for i := range updated {
		if ids[updated[i].ID] && updated[i].DeletionFile == nil {
			return false
		}
	}
	return true
}

// rebasableOverlap reports whether mine (Delete/Update) can be rebased
// over committed by merging deletion vectors.
func rebasableOverlap(mine format.Operation, committed *format.Transaction) bool {
	k := mine.Kind()
	if (k != format.OpDelete && k != format.OpUpdate) || committed.Op == nil {
		return false
	}
	return deletesOnly(committed.Op, touchedFragments(mine))
}

// mergeDeletions returns orig rebased onto cur: each fragment orig
// updates gets the union of cur's deletion vector and orig's; fragments
// whose rows are then all deleted move to the removed list. It returns
// orig itself when no fragment changed since the read version. A data
// file change or a vanished fragment is a retryable conflict.
func (s *Staged) mergeDeletions(ctx context.Context, cur *Dataset, orig *format.Transaction) (*format.Transaction, error) {
	var updated []format.Fragment
	var removed *[]uint64
	var op format.Operation
	switch o := orig.Op.(type) {
	case *format.Delete:
		c := *o
		updated = cloneFragments(o.UpdatedFragments)
		c.DeletedFragmentIDs = slices.Clone(o.DeletedFragmentIDs)
		c.UpdatedFragments = updated
		removed = &c.DeletedFragmentIDs
		op = &c
	case *format.Update:
		c := *o
		updated = cloneFragments(o.UpdatedFragments)
		c.RemovedFragmentIDs = slices.Clone(o.RemovedFragmentIDs)
		c.UpdatedFragments = updated
		removed = &c.RemovedFragmentIDs
		op = &c
	default:
		return orig, nil
	}
	readFrags := map[uint64]*format.Fragment{}
	for i := range s.ds.Fragments() {
		readFrags[s.ds.Fragments()[i].ID] = &s.ds.Fragments()[i]
	}
	curFrags := map[uint64]*format.Fragment{}
	for i := range cur.Fragments() {
		curFrags[cur.Fragments()[i].ID] = &cur.Fragments()[i]
	}
	changed := false
	kept := updated[:0]
	for i := range updated {
		mine := &updated[i]
		now, ok := curFrags[mine.ID]
		if !ok || !sameFiles(now, readFrags[mine.ID]) {
			return nil, &ConflictError{Kind: ConflictRetryable, ReadVersion: s.ReadVersion, Version: cur.version,
				Err: wrapf(ErrConflict, "fragment %d was removed or rewritten", mine.ID)}
		}
		if sameDeletion(now.DeletionFile, readFrags[mine.ID].DeletionFile) {
			kept = append(kept, *mine)
			continue
		}
		changed = true
		theirs, err := cur.deletionVector(ctx, now)
		if err != nil {
			return nil, err
		}
		ours, err := cur.deletionVector(ctx, mine)
		if err != nil {
			return nil, err
		}
		theirs.Or(ours)
		if theirs.GetCardinality() >= now.PhysicalRows {
			*removed = append(*removed, mine.ID)
			continue
		}
		del, err := s.ds.writeDeletionFile(ctx, mine.ID, theirs)
		if err != nil {
			return nil, err
		}
		nf := now.Clone()
		nf.DeletionFile = del
		kept = append(kept, nf)
	}
	if !changed {
		return orig, nil
	}
	switch o := op.(type) {
	case *format.Delete:
		o.UpdatedFragments = kept
	case *format.Update:
		o.UpdatedFragments = kept
	}
	t := *orig
	t.Op = op
	return &t, nil
}

func sameFiles(a, b *format.Fragment) bool {
	if a == nil || b == nil || len(a.Files) != len(b.Files) || a.PhysicalRows != b.PhysicalRows {
		return false
	}
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path {
			return false
		}
	}
	return true
}

func sameDeletion(a, b *format.DeletionFile) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.FileType == b.FileType && a.ReadVersion == b.ReadVersion && a.ID == b.ID
}
