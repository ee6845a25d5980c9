package lancesrc

// addrMap maps key bytes to row addresses. Most keys (all of a primary
// key's) have one address, stored inline in one; keys with more live in
// more (and not in one). Compared with a map to slices this saves a
// slice header and an allocation per key.
type addrMap struct {
	one  map[string]uint64
	more map[string][]uint64
}

func newAddrMap(n int) addrMap {
	return addrMap{one: make(map[string]uint64, n), more: map[string][]uint64{}}
}

// add records address a for key k and returns the estimated bytes it
// added. Slices in more may be shared with other maps (clone), so they
// are never appended to in place.
func (m addrMap) add(k string, a uint64) int64 {
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

// each calls fn with every address of k.
func (m addrMap) each(k string, fn func(uint64)) {
	if a, ok := m.one[k]; ok {
		fn(a)
		return
	}
	for _, a := range m.more[k] {
		fn(a)
	}
}

// all calls fn with every key and address.
func (m addrMap) all(fn func(string, uint64)) {
	for k, a := range m.one {
		fn(k, a)
	}
	for k, s := range m.more {
		for _, a := range s {
			fn(k, a)
		}
	}
}

// clone copies the maps (addresses shared: add never writes them).
func (m addrMap) clone(extra int) addrMap {
	c := addrMap{one: make(map[string]uint64, len(m.one)+extra), more: make(map[string][]uint64, len(m.more))}
	for k, a := range m.one {
		c.one[k] = a
	}
	for k, s := range m.more {
		c.more[k] = s
	}
	return c
}
