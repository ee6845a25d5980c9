package lancesrc

import "encoding/binary"

// addrMap maps key bytes to row addresses. Most keys (all of a primary
// key's) have one address, stored inline in one; keys with more live in
// more (and not in one). Compared with a map to slices this saves a
// slice header and an allocation per key.
//
// Integer key columns (exec's int64 kind: int2/4/8, dates, times) are
// kept in maps keyed by the int64 value instead (ione, imore): no string
// per key, about half the memory, and no pointers in the large map, so
// the garbage collector does not scan millions of entries on every
// cycle. Keys are still passed in exec's encoding (AppendKey: a 1 byte
// then the 8 value bytes) and converted; addInt and eachInt skip that.
type addrMap struct {
	one  map[string]uint64
	more map[string][]uint64

	ints  bool
	ione  map[int64]uint64
	imore map[int64][]uint64
}

func newAddrMap(n int, ints bool) addrMap {
	if ints {
		return addrMap{ints: true, ione: make(map[int64]uint64, n), imore: map[int64][]uint64{}}
	}
	return addrMap{one: make(map[string]uint64, n), more: map[string][]uint64{}}
}

// valid reports a map that was made (the zero addrMap is not).
func (m addrMap) valid() bool { return m.one != nil || m.ione != nil }

// intKey decodes exec's encoding of a non-NULL integer key.
func intKey(k string) (int64, bool) {
	if len(k) != 9 || k[0] != 1 {
		return 0, false
	}
	var v uint64
	for i := 8; i >= 1; i-- {
		v = v<<8 | uint64(k[i])
	}
	return int64(v), true
}

func encodeInt(v int64) string {
	var b [9]byte
	b[0] = 1
	binary.LittleEndian.PutUint64(b[1:], uint64(v))
	return string(b[:]) // exec.AppendKey's form
}

// intEntryBytes approximates one integer entry with one address.
const intEntryBytes = 24

// add records address a for key k and returns the estimated bytes it
// added. Slices in more are never appended to in place: the maps of a
// published index are read by other sessions without locks.
func (m addrMap) add(k string, a uint64) int64 {
	if m.ints {
		v, ok := intKey(k)
		if !ok {
			return 0 // not an integer key: never looked up either
		}
		return m.addInt(v, a)
	}
	if s, ok := m.more[k]; ok {
		m.more[k] = append(s[:len(s):len(s)], a)
		return 8
	}
	if first, ok := m.one[k]; ok {
		delete(m.one, k)
		m.more[k] = []uint64{first, a}
		return 40
	}
	m.one[k] = a
	return entryBytes(k)
}

// addInt is add for an integer key map.
func (m addrMap) addInt(v int64, a uint64) int64 {
	if s, ok := m.imore[v]; ok {
		m.imore[v] = append(s[:len(s):len(s)], a)
		return 8
	}
	if first, ok := m.ione[v]; ok {
		delete(m.ione, v)
		m.imore[v] = []uint64{first, a}
		return 40
	}
	m.ione[v] = a
	return intEntryBytes
}

// each calls fn with every address of k.
func (m addrMap) each(k string, fn func(uint64)) {
	if m.ints {
		if v, ok := intKey(k); ok {
			m.eachInt(v, fn)
		}
		return
	}
	if a, ok := m.one[k]; ok {
		fn(a)
		return
	}
	for _, a := range m.more[k] {
		fn(a)
	}
}

// eachInt is each for an integer key map.
func (m addrMap) eachInt(v int64, fn func(uint64)) {
	if a, ok := m.ione[v]; ok {
		fn(a)
		return
	}
	for _, a := range m.imore[v] {
		fn(a)
	}
}

// all calls fn with every key (encoded) and address.
func (m addrMap) all(fn func(string, uint64)) {
	if m.ints {
		for v, a := range m.ione {
			fn(encodeInt(v), a)
		}
		for v, s := range m.imore {
			k := encodeInt(v)
			for _, a := range s {
				fn(k, a)
			}
		}
		return
	}
	for k, a := range m.one {
		fn(k, a)
	}
	for k, s := range m.more {
		for _, a := range s {
			fn(k, a)
		}
	}
}

// allInt calls fn with every key and address of an integer key map.
func (m addrMap) allInt(fn func(int64, uint64)) {
	for v, a := range m.ione {
		fn(v, a)
	}
	for v, s := range m.imore {
		for _, a := range s {
			fn(v, a)
		}
	}
}

// intKeyed reports a made integer key map (sortedKeys).
func (m addrMap) intKeyed() bool { return m.valid() && m.ints }

// eachKey calls fn with every distinct key of an integer key map.
func (m addrMap) eachKey(fn func(int64)) {
	for v := range m.ione {
		fn(v)
	}
	for v := range m.imore {
		fn(v)
	}
}
