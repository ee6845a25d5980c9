package lancesrc

import (
	"math"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/exec"
)

// orderedIn is what KeysInRange reads from an index: its base's and
// added keys in order, merged within [lo, hi].
func orderedIn(x *keyIndex, lo, hi int64, desc bool, limit int) []int64 {
	a := within(x.baseOrder.of(x.base), lo, hi)
	var b []int64
	if x.added.valid() {
		b = within(x.addedOrder.of(x.added), lo, hi)
	}
	return exec.MergeKeys(a, b, desc, limit)
}

// checkOrder says the index lists every live key in order, each once,
// for the whole range and for a few sub-ranges, both directions, and
// that a limit keeps the first keys of the full list.
func checkOrder(t *testing.T, label string, x *keyIndex, live map[string][]uint64) {
	t.Helper()
	var want []int64
	for k := range live {
		if v, ok := intKey(k); ok {
			want = append(want, v)
		}
	}
	slices.Sort(want)
	all := orderedIn(x, math.MinInt64, math.MaxInt64, false, 0)
	if !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != len(all) {
		t.Fatalf("%s: keys not ascending and distinct: %v", label, all)
	}
	for _, v := range want {
		if _, found := slices.BinarySearch(all, v); !found {
			t.Fatalf("%s: live key %d missing from the ordered keys", label, v)
		}
	}
	if len(want) < 2 {
		return
	}
	lo, hi := want[len(want)/4], want[3*len(want)/4]
	part := orderedIn(x, lo, hi, false, 0)
	for _, v := range want {
		_, found := slices.BinarySearch(part, v)
		if in := v >= lo && v <= hi; in != found {
			t.Fatalf("%s: key %d in [%d, %d] is %v, listed %v", label, v, lo, hi, in, found)
		}
	}
	down := orderedIn(x, lo, hi, true, 0)
	slices.Reverse(down)
	if !slices.Equal(down, part) {
		t.Fatalf("%s: descending keys are not the ascending ones reversed", label)
	}
	if got := orderedIn(x, lo, hi, true, 3); !slices.Equal(got, orderedIn(x, lo, hi, true, 0)[:min(3, len(part))]) {
		t.Fatalf("%s: limit 3 gave %v", label, got)
	}
}
