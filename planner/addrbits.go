package planner

import (
	"iter"
	"maps"
	"math/bits"
	"slices"
)

// addrBits is a set of base-table row addresses ((fragment << 32) |
// offset, lance.RowAddress): one bitmap of offsets per fragment. A
// statement deleting or updating millions of rows records their
// addresses in a bit each (a fragment's offsets are dense: they number
// its rows), where a map of addresses took some 40 bytes a row. A nil
// set is empty.
type addrBits struct {
	frags map[uint32][]uint64
	n     int
}

// addrBitsOf is the set of addrs.
func addrBitsOf(addrs []uint64) *addrBits {
	s := &addrBits{}
	for _, a := range addrs {
		s.add(a)
	}
	return s
}

// has reports a in the set.
func (s *addrBits) has(a uint64) bool {
	if s == nil || s.n == 0 {
		return false
	}
	b := s.frags[uint32(a>>32)]
	w := int(uint32(a) >> 6)
	return w < len(b) && b[w]&(1<<(a&63)) != 0
}

// add puts a in the set and reports whether it was new.
func (s *addrBits) add(a uint64) bool {
	if s.frags == nil {
		s.frags = map[uint32][]uint64{}
	}
	f := uint32(a >> 32)
	w := int(uint32(a) >> 6)
	b := s.frags[f]
	if w >= len(b) {
		b = append(b, make([]uint64, w+1-len(b))...)
	}
	bit := uint64(1) << (a & 63)
	if b[w]&bit != 0 {
		return false
	}
	b[w] |= bit
	s.frags[f] = b
	s.n++
	return true
}

// len is the number of addresses.
func (s *addrBits) len() int {
	if s == nil {
		return 0
	}
	return s.n
}

// clone is an independent copy (nil for nil).
func (s *addrBits) clone() *addrBits {
	if s == nil {
		return nil
	}
	c := &addrBits{frags: make(map[uint32][]uint64, len(s.frags)), n: s.n}
	for f, b := range s.frags {
		c.frags[f] = slices.Clone(b)
	}
	return c
}

// all yields the addresses in ascending order.
func (s *addrBits) all() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		if s == nil {
			return
		}
		for _, f := range slices.Sorted(maps.Keys(s.frags)) {
			for w, word := range s.frags[f] {
				for word != 0 {
					i := bits.TrailingZeros64(word)
					word &^= 1 << i
					if !yield(uint64(f)<<32 | uint64(w)<<6 | uint64(i)) {
						return
					}
				}
			}
		}
	}
}

// bytes is the memory the set takes (its bitmaps).
func (s *addrBits) bytes() int64 {
	if s == nil {
		return 0
	}
	var n int64
	for _, b := range s.frags {
		n += int64(cap(b)) * 8
	}
	return n
}
