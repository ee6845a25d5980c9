package lancesrc

import (
	"slices"
	"testing"
)

// TestAddedLayersStayLogarithmic pushes one-row layers as 1-row commits
// do and checks that the stack stays O(log n) deep, that layers a
// derivation shares are never changed by a later push, and that every
// address is still found, in push order.
func TestAddedLayersStayLogarithmic(t *testing.T) {
	var a addedLayers
	var snapshots []addedLayers
	for i := range 1000 {
		m := newAddrMap(1, true)
		m.addInt(int64(i%700), uint64(i)) // keys 0..299 twice
		a = a.push(m, 1)
		snapshots = append(snapshots, a)
		if depth, max := len(a.layers), 11; depth > max {
			t.Fatalf("after %d pushes: %d layers, want at most %d", i+1, depth, max)
		}
	}
	for i, s := range snapshots {
		n := 0
		for _, l := range s.layers {
			n += l.n
		}
		if n != i+1 {
			t.Fatalf("snapshot %d holds %d addresses, want %d (a later push changed it)", i, n, i+1)
		}
	}
	for v := range int64(700) {
		var got []uint64
		a.eachInt(v, func(addr uint64) { got = append(got, addr) })
		want := []uint64{uint64(v)}
		if v < 300 {
			want = append(want, uint64(v+700))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("key %d → %v, want %v", v, got, want)
		}
	}
}
