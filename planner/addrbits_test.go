package planner

import (
	"slices"
	"testing"
)

// TestAddrBits: the bitmap set of row addresses answers membership,
// size and ascending iteration as a map of addresses would, across
// fragments, word boundaries and pending addresses (top bit set), and a
// clone is independent.
func TestAddrBits(t *testing.T) {
	cases := []struct {
		name  string
		addrs []uint64
	}{
		{"empty", nil},
		{"one", []uint64{5}},
		{"word boundaries", []uint64{0, 63, 64, 127, 128, 1 << 20}},
		{"fragments out of order", []uint64{3<<32 | 7, 1<<32 | 9, 1<<32 | 8, 0, 2<<32 | 64}},
		{"repeats", []uint64{9, 9, 1<<32 | 9, 9}},
		{"pending addresses", []uint64{pendingAddrBit | 3, pendingAddrBit | 70000, 12}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &addrBits{}
			want := map[uint64]bool{}
			for _, a := range tc.addrs {
				if s.add(a) == want[a] {
					t.Fatalf("add(%#x) reported new=%v with %v", a, !want[a], want)
				}
				want[a] = true
			}
			if s.len() != len(want) {
				t.Fatalf("len %d, want %d", s.len(), len(want))
			}
			var sorted []uint64
			for a := range want {
				sorted = append(sorted, a)
				if !s.has(a) {
					t.Fatalf("has(%#x) false", a)
				}
				for _, near := range []uint64{a + 1, a - 1, a ^ 1<<32} {
					if s.has(near) != want[near] {
						t.Fatalf("has(%#x) = %v", near, s.has(near))
					}
				}
			}
			slices.Sort(sorted)
			if got := slices.Collect(s.all()); !slices.Equal(got, sorted) {
				t.Fatalf("all() = %#x, want %#x", got, sorted)
			}
			c := s.clone()
			c.add(1<<40 | 1)
			if s.has(1<<40|1) || c.len() != s.len()+1 {
				t.Fatal("the clone shares the set")
			}
		})
	}
	var none *addrBits
	if none.has(1) || none.len() != 0 || none.clone() != nil || len(slices.Collect(none.all())) != 0 {
		t.Fatal("a nil set is not empty")
	}
	// a fragment's million deleted rows take a bit each
	s := &addrBits{}
	for i := range uint64(1 << 20) {
		s.add(7<<32 | i)
	}
	if b := s.bytes(); b > 1<<17+64 {
		t.Fatalf("1M addresses of one fragment take %d bytes", b)
	}
}
