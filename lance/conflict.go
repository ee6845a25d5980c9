package lance

import (
	"github.com/pggraph/pggraph/lance/format"
)

// touchedFragments returns the ids of existing fragments an operation
// modifies or removes (nil for operations that only add).
func touchedFragments(op format.Operation) map[uint64]bool {
	ids := map[uint64]bool{}
	add := func(frs []format.Fragment) {
		for i := range frs {
			ids[frs[i].ID] = true
		}
	}
	switch o := op.(type) {
	case *format.Delete:
		add(o.UpdatedFragments)
		for _, id := range o.DeletedFragmentIDs {
			ids[id] = true
		}
	case *format.Update:
		add(o.UpdatedFragments)
		for _, id := range o.RemovedFragmentIDs {
			ids[id] = true
		}
	case *format.Rewrite:
		add(o.OldFragments)
		for i := range o.Groups {
			add(o.Groups[i].OldFragments)
		}
	}
	return ids
}

func overlaps(a, b map[uint64]bool) bool {
	for id := range a {
		if b[id] {
			return true
		}
	}
	return false
}

func configKeys(op format.Operation) map[string]bool {
	keys := map[string]bool{}
	if o, ok := op.(*format.Overwrite); ok {
		for k := range o.ConfigUpsert {
			keys[k] = true
		}
	}
	return keys
}

// compatible applies Lance's compatibility rules for our operations
// (mine, pending) against one committed transaction. It returns ok, or
// the kind of conflict.
func compatible(mine format.Operation, committed *format.Transaction) (bool, ConflictKind) {
	theirs := committed.Op
	if theirs == nil {
		return false, ConflictRetryable
	}
	tk := theirs.Kind()
	switch mine.Kind() {
	case format.OpRestore:
		return true, 0
	case format.OpOverwrite:
		if tk == format.OpOverwrite || tk == format.OpUpdateConfig {
			if tk == format.OpUpdateConfig {
				// we cannot see UpdateConfig's keys; be conservative
				return false, ConflictIncompatible
			}
			mk, ck := configKeys(mine), configKeys(theirs)
			for k := range mk {
				if ck[k] {
					return false, ConflictIncompatible
				}
			}
		}
		return true, 0
	}
	// Every remaining operation of ours builds on the existing data, so
	// a committed Overwrite or Restore invalidates it.
	if tk == format.OpOverwrite || tk == format.OpRestore {
		return false, ConflictIncompatible
	}
	switch mine.Kind() {
	case format.OpAppend, format.OpReserveFragments:
		switch tk {
		case format.OpAppend, format.OpDelete, format.OpUpdate, format.OpRewrite, format.OpMerge,
			format.OpReserveFragments, format.OpCreateIndex, format.OpUpdateConfig, format.OpProject,
			format.OpClone:
			return true, 0
		}
		return false, ConflictRetryable
	case format.OpDelete, format.OpUpdate:
		switch tk {
		case format.OpAppend, format.OpReserveFragments, format.OpCreateIndex, format.OpUpdateConfig,
			format.OpProject, format.OpClone:
			return true, 0
		case format.OpDelete, format.OpUpdate, format.OpRewrite:
			if overlaps(touchedFragments(mine), touchedFragments(theirs)) {
				// Lance can merge deletion vectors here; we hand the
				// decision back to the caller instead.
				return false, ConflictRetryable
			}
			return true, 0
		}
		return false, ConflictRetryable
	}
	return false, ConflictRetryable
}
