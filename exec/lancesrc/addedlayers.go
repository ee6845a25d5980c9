package lancesrc

// addedLayers holds the keys of the rows a key index added since its
// base was built, as a stack of immutable maps (oldest first) shared by
// every index derived along the same chain of versions.
//
// Every commit makes a new table version and so a new index. Copying
// one map of everything added since the base (as derive did) cost
// O(rows added) per commit — up to deltaMinRows, or a sixteenth of a
// large table, map entries copied for a 1-row INSERT. A derivation now
// pushes a layer holding only its own new rows; layers merge like a
// binary counter (a layer is merged into its predecessor while it is at
// least as large), so each address is copied O(log n) times over its
// life and a lookup probes O(log n) maps.
type addedLayers struct {
	layers []*addedLayer
}

type addedLayer struct {
	m addrMap
	n int // addresses in m
}

// valid reports that any rows were added.
func (a addedLayers) valid() bool { return len(a.layers) > 0 }

// push returns a with a layer of n addresses in m on top; a itself and
// its layers are unchanged (other indexes share them).
func (a addedLayers) push(m addrMap, n int) addedLayers {
	if n == 0 {
		return a
	}
	out := make([]*addedLayer, len(a.layers), len(a.layers)+1)
	copy(out, a.layers)
	out = append(out, &addedLayer{m: m, n: n})
	for len(out) >= 2 && out[len(out)-1].n >= out[len(out)-2].n {
		older, newer := out[len(out)-2], out[len(out)-1]
		out = append(out[:len(out)-2], mergeLayers(older, newer))
	}
	return addedLayers{layers: out}
}

// mergeLayers is a fresh layer with older's addresses, then newer's
// (the order lookups report them in).
func mergeLayers(older, newer *addedLayer) *addedLayer {
	m := newAddrMap(older.n+newer.n, older.m.ints)
	for _, l := range []*addedLayer{older, newer} {
		if m.ints {
			l.m.allInt(func(v int64, a uint64) { m.addInt(v, a) })
		} else {
			l.m.all(func(k string, a uint64) { m.add(k, a) })
		}
	}
	return &addedLayer{m: m, n: older.n + newer.n}
}

// each calls fn with every address of k, oldest layer first.
func (a addedLayers) each(k string, fn func(uint64)) {
	for _, l := range a.layers {
		l.m.each(k, fn)
	}
}

// eachInt is each for integer keys.
func (a addedLayers) eachInt(v int64, fn func(uint64)) {
	for _, l := range a.layers {
		l.m.eachInt(v, fn)
	}
}

// all calls fn with every key (encoded) and address.
func (a addedLayers) all(fn func(string, uint64)) {
	for _, l := range a.layers {
		l.m.all(fn)
	}
}

// allInt is all for integer keys.
func (a addedLayers) allInt(fn func(int64, uint64)) {
	for _, l := range a.layers {
		l.m.allInt(fn)
	}
}

// intKeyed reports integer keys (sortedKeys).
func (a addedLayers) intKeyed() bool { return a.valid() && a.layers[0].m.ints }

// eachKey calls fn with every key of an integer index, a key as often
// as layers hold it (sortedKeys removes repeats).
func (a addedLayers) eachKey(fn func(int64)) {
	for _, l := range a.layers {
		l.m.eachKey(fn)
	}
}
