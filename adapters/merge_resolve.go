package adapters

// resolveRows settles, by the merge's strategy, the rows of one table
// both sides changed (a table with a primary key; rows are identified
// by it):
//
//   - a row the source deleted or updated whose base version the target
//     no longer has (want entries left, wantPK their keys): the target
//     changed or deleted it too;
//   - a row the source added or updated whose key the target holds
//     (keptKeys found in keyAddr): the target added or changed that key.
//
// MergeOurs keeps the target's row and replays none of the source's
// changes to that key; MergeTheirs deletes the target's row with that key
// (when it has one) and replays the source's (its new row, or nothing
// when the source deleted it). kept and dels are the replay's rows to
// insert (source addresses, keptKeys their keys) and target rows to
// delete; the adjusted lists are returned. Constraints are checked on
// the result by the merge checks, as for any merge.
func (p *mergePlan) resolveRows(want map[string]int, wantPK map[string]string, kept []uint64, keptKeys []string, keyAddr map[string]uint64, dels []uint64) ([]uint64, []uint64) {
	conflicted := map[string]bool{}
	for k, n := range want {
		if n > 0 {
			conflicted[wantPK[k]] = true
		}
	}
	for _, k := range keptKeys {
		if _, ok := keyAddr[k]; ok {
			conflicted[k] = true
		}
	}
	if len(conflicted) == 0 {
		return kept, dels
	}
	if p.w.strategy == MergeOurs {
		var out []uint64
		for i, a := range kept {
			if !conflicted[keptKeys[i]] {
				out = append(out, a)
			}
		}
		return out, dels
	}
	for k := range conflicted {
		if a, ok := keyAddr[k]; ok {
			dels = append(dels, a)
		}
	}
	return kept, dels
}
