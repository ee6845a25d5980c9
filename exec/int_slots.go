package exec

import "math/bits"

// intSlots maps int64 keys to dense slot numbers (0, 1, … in order of
// first insertion): an open-addressing table with linear probing at a
// load of at most one half. Hash joins look up every probe row's key in
// it, most of them absent in selective joins; against Go's map it saves
// the hashing of a generic key and, on a miss, usually touches a single
// cache line.
type intSlots struct {
	ents  []intSlotEnt
	shift uint8
	n     int
}

// intSlotEnt is one table entry; slot+1 (0 = empty) so that a fresh
// table is empty.
type intSlotEnt struct {
	key  int64
	slot int32
}

// newIntSlots sizes a table for up to n keys.
func newIntSlots(n int) *intSlots {
	size := 16
	if n > 4 {
		size = 1 << bits.Len(uint(2*n-1))
	}
	return &intSlots{ents: make([]intSlotEnt, size), shift: uint8(64 - bits.TrailingZeros(uint(size)))}
}

// home is key's first probe position (Fibonacci hashing: the top bits
// of a multiplication spread runs of consecutive keys).
func (t *intSlots) home(key int64) uint64 {
	return (uint64(key) * 0x9E3779B97F4A7C15) >> t.shift
}

// slotOf returns key's slot, adding it with the next slot number when it
// is new. The table never fills: it holds at most the n keys it was
// sized for.
func (t *intSlots) slotOf(key int64) int32 {
	mask := uint64(len(t.ents) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		e := &t.ents[i]
		if e.slot == 0 {
			t.n++
			e.key, e.slot = key, int32(t.n)
			return int32(t.n - 1)
		}
		if e.key == key {
			return e.slot - 1
		}
	}
}

// get returns key's slot, or -1 when it has none.
func (t *intSlots) get(key int64) int32 {
	mask := uint64(len(t.ents) - 1)
	for i := t.home(key); ; i = (i + 1) & mask {
		e := &t.ents[i]
		if e.slot == 0 {
			return -1
		}
		if e.key == key {
			return e.slot - 1
		}
	}
}

// len is the number of keys.
func (t *intSlots) len() int { return t.n }

// bytes is the table's size.
func (t *intSlots) bytes() int64 { return int64(len(t.ents)) * 16 }
