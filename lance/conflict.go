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

// configKeys returns the config keys an operation upserts and deletes
// (Overwrite.config_upsert_values; UpdateConfig's config updates).
func configKeys(op format.Operation) (upsert, del map[string]bool) {
	upsert, del = map[string]bool{}, map[string]bool{}
	switch o := op.(type) {
	case *format.Overwrite:
		for k := range o.ConfigUpsert {
			upsert[k] = true
		}
	case *format.UpdateConfig:
		for _, k := range o.ConfigUpsertKeys() {
			upsert[k] = true
		}
		for _, k := range o.ConfigDeleteKeys() {
			del[k] = true
		}
	}
	return upsert, del
}

// upsertKeyConflict is Lance's rule: one operation upserts a config key
// the other upserts or deletes.
func upsertKeyConflict(a, b format.Operation) bool {
	au, ad := configKeys(a)
	bu, bd := configKeys(b)
	for k := range au {
		if bu[k] || bd[k] {
			return true
		}
	}
	for k := range bu {
		if ad[k] {
			return true
		}
	}
	return false
}

// replacedFragments returns the fragments a DataReplacement rewrites.
func replacedFragments(op format.Operation) map[uint64]bool {
	ids := map[uint64]bool{}
	if o, ok := op.(*format.DataReplacement); ok {
		for _, id := range o.FragmentIDs() {
			ids[id] = true
		}
	}
	return ids
}

// compatible applies Lance 8's conflict rules (conflict_resolver: the
// check_*_txn of our operation against one committed transaction) for
// the operations we commit. It returns ok, or the kind of conflict. An
// operation kind Lance 8 does not define for the pair is a retryable
// conflict (the caller re-reads and redoes its work).
func compatible(mine format.Operation, committed *format.Transaction) (bool, ConflictKind) {
	theirs := committed.Op
	if theirs == nil {
		return false, ConflictRetryable
	}
	ok := func() (bool, ConflictKind) { return true, 0 }
	retry := func() (bool, ConflictKind) { return false, ConflictRetryable }
	incompatible := func() (bool, ConflictKind) { return false, ConflictIncompatible }
	tk := theirs.Kind()
	switch mine.Kind() {
	case format.OpRestore:
		switch tk {
		case format.OpUpdateMemWalState:
			return incompatible()
		case format.OpAppend, format.OpDelete, format.OpOverwrite, format.OpCreateIndex, format.OpRewrite,
			format.OpDataReplacement, format.OpMerge, format.OpRestore, format.OpReserveFragments,
			format.OpUpdateBases, format.OpUpdate, format.OpProject, format.OpClone, format.OpUpdateConfig:
			return ok()
		}
		return retry()
	case format.OpOverwrite:
		switch tk {
		case format.OpOverwrite:
			// concurrent overwrites: retryable so the caller decides
			// whether to overwrite again; same config key: incompatible
			if upsertKeyConflict(mine, theirs) {
				return incompatible()
			}
			return retry()
		case format.OpUpdateConfig:
			if upsertKeyConflict(mine, theirs) {
				return incompatible()
			}
			return ok()
		case format.OpUpdateMemWalState:
			return incompatible()
		case format.OpAppend, format.OpClone, format.OpDelete, format.OpCreateIndex, format.OpRewrite,
			format.OpDataReplacement, format.OpMerge, format.OpRestore, format.OpReserveFragments,
			format.OpUpdate, format.OpProject, format.OpUpdateBases:
			return ok()
		}
		return retry()
	case format.OpAppend:
		switch tk {
		case format.OpOverwrite, format.OpRestore, format.OpUpdateMemWalState:
			return incompatible()
		case format.OpAppend, format.OpRewrite, format.OpCreateIndex, format.OpDelete, format.OpUpdate,
			format.OpReserveFragments, format.OpProject, format.OpUpdateBases, format.OpMerge,
			format.OpUpdateConfig, format.OpClone, format.OpDataReplacement:
			return ok()
		}
		return retry()
	case format.OpReserveFragments:
		switch tk {
		case format.OpOverwrite, format.OpRestore:
			return incompatible()
		case format.OpAppend, format.OpDelete, format.OpCreateIndex, format.OpRewrite, format.OpDataReplacement,
			format.OpMerge, format.OpReserveFragments, format.OpUpdate, format.OpProject, format.OpClone,
			format.OpUpdateConfig, format.OpUpdateMemWalState, format.OpUpdateBases:
			return ok()
		}
		return retry()
	case format.OpRewrite:
		// compaction: rewritten fragments must be untouched since the
		// read version; anything that only adds is fine
		switch tk {
		case format.OpOverwrite, format.OpRestore:
			return incompatible()
		case format.OpAppend, format.OpReserveFragments, format.OpUpdateConfig, format.OpProject, format.OpClone,
			format.OpUpdateBases:
			return ok()
		case format.OpDelete, format.OpUpdate, format.OpRewrite:
			if overlaps(touchedFragments(mine), touchedFragments(theirs)) {
				return retry()
			}
			return ok()
		case format.OpDataReplacement:
			if overlaps(touchedFragments(mine), replacedFragments(theirs)) {
				return retry()
			}
			return ok()
		}
		// Merge, CreateIndex (index remapping we do not do), MemWAL, unknown
		return retry()
	case format.OpDelete, format.OpUpdate:
		switch tk {
		case format.OpOverwrite, format.OpRestore:
			return incompatible()
		case format.OpUpdateMemWalState:
			if mine.Kind() == format.OpDelete {
				return incompatible()
			}
			// Lance compares the MemWAL sstables both sides compacted;
			// we cannot see them, so the caller redoes its work
			return retry()
		case format.OpCreateIndex, format.OpReserveFragments, format.OpClone, format.OpProject,
			format.OpAppend, format.OpUpdateConfig, format.OpUpdateBases:
			return ok()
		case format.OpRewrite, format.OpDelete, format.OpUpdate:
			if overlaps(touchedFragments(mine), touchedFragments(theirs)) {
				// Delete/Update overlaps are rebased by merging deletion
				// vectors when possible (rebasableOverlap), else retried.
				return retry()
			}
			return ok()
		case format.OpDataReplacement:
			if overlaps(touchedFragments(mine), replacedFragments(theirs)) {
				return retry()
			}
			return ok()
		case format.OpMerge:
			return retry()
		}
		return retry()
	}
	return retry()
}
