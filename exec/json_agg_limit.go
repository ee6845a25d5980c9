package exec

// maxJSONBContainer is PostgreSQL's JENTRY_OFFLENMASK: the total size of
// one jsonb array's or object's elements, past which converting it to
// jsonb answers 54000 (jsonb_util.c). A variable so tests can lower it.
var maxJSONBContainer = 1<<28 - 1

// jsonAggSlot is what the engine holds per aggregated value beyond its
// text (an interface in the group's slice and the value's header).
const jsonAggSlot = 32

// jsonAggBytes estimates what the value of row i adds to a json_agg,
// jsonb_agg or *_object_agg result: its text for strings and json (the
// bulk of any large aggregate), its items for arrays and records, a few
// bytes for the rest. It drives both the value limit and the charge to
// the statement's memory budget, as string_agg's length does.
func jsonAggBytes(v *Vec, i int) int {
	if v.IsNull(i) {
		return 4
	}
	switch v.T.Kind() {
	case KStr:
		return len(v.S[i]) + 2
	case KArray:
		n := 2
		if a := v.A[i]; a != nil && a.Items != nil {
			for k := 0; k < a.Items.N; k++ {
				n += jsonAggBytes(a.Items, k) + 2
			}
		}
		return n
	}
	return 16
}

// growJSONAgg accounts for add more bytes of an aggregated json or jsonb
// value that has have bytes: past PostgreSQL's limits it answers 54000 as
// PostgreSQL does (json builds text in a string buffer limited to 1 GB;
// jsonb fails when the container is converted, past JENTRY_OFFLENMASK),
// and the bytes count against the statement's memory budget (53200) like
// string_agg's and array_agg's values (docs/operations.md). The ordered
// and window forms pass no evaluation context: they get the value limit
// only (their input rows are buffered against the budget).
func growJSONAgg(ec *evalCtx, jsonb, object bool, have, add int) error {
	if jsonb {
		if have+add > maxJSONBContainer {
			kind := "array"
			if object {
				kind = "object"
			}
			return errf(CodeProgramLimitExceeded, "total size of jsonb %s elements exceeds the maximum of %d bytes", kind, maxJSONBContainer)
		}
	} else if err := checkValueGrowth(have, add); err != nil {
		return err
	}
	if ec != nil && ec.run != nil && ec.run.budget != nil {
		return ec.run.budget.reserve(int64(add + jsonAggSlot))
	}
	return nil
}
