package exec

// A hash join on one integer key (or several packed into one,
// join_packkeys.go) keeps its build side in compressed-sparse-row form:
// every distinct key gets a slot, and the rows of slot i are the
// contiguous range start[i] .. start[i+1]-1 of a permutation that lists
// the build rows by key (a stable counting sort, so rows with the same
// key keep their input order and the join's output order is that of the
// chained table it replaced). Slots come from the key itself when the
// keys span a dense range (no hashing at all), else from a hash table
// (int_slots.go).
//
// The layout is for memory, not arithmetic: a probe reads two adjacent
// offsets instead of walking a chain of row links scattered over the
// build side, and when the build side is physically put in key order
// (reorderBuild) the rows one probe key matches are adjacent too, so
// gathering them touches one cache line per column instead of one per
// row — and a probe side that arrives in key order (an edge table
// probed by node ids read in id order, as graph-wide queries do) reads
// the build side sequentially.

// maxDenseSpan bounds the direct slot table of dense keys.
const maxDenseSpan = 1 << 26

// reorderBuild reports whether the build side may be physically put in
// key order: not for right and full joins (their unmatched build rows
// are emitted in input order at the end) and not when the probe side is
// known to be much smaller than the build side (the copy would cost more
// than it saves).
func (j *joinNode) reorderBuild() bool {
	if j.kind == joinRight || j.kind == joinFull {
		return false
	}
	if n := estimateRows(j.left); n >= 0 && n < estimateRows(j.right)/4 {
		return false
	}
	return true
}

// indexInt indexes the build side by the integer key k (NULL keys never
// match and get no slot); reorder allows reordering jt.right by key.
func (jt *joinTable) indexInt(ec *evalCtx, k *Vec, reorder bool) error {
	n := jt.right.N
	lo, hi, any := int64(0), int64(0), false
	for r := 0; r < n; r++ {
		if k.IsNull(r) {
			continue
		}
		v := k.I[r]
		if !any || v < lo {
			lo = v
		}
		if !any || v > hi {
			hi = v
		}
		any = true
	}
	// slot of every row (-1: NULL key)
	slot := make([]int32, n)
	var nslots int
	if span := uint64(hi - lo); any && span < maxDenseSpan && span <= 16*uint64(n) {
		jt.dense, jt.denseLo = true, lo
		nslots = int(span) + 1
		for r := 0; r < n; r++ {
			if k.IsNull(r) {
				slot[r] = -1
				continue
			}
			slot[r] = int32(k.I[r] - lo)
		}
	} else {
		jt.itable = newIntSlots(n)
		for r := 0; r < n; r++ {
			if k.IsNull(r) {
				slot[r] = -1
				continue
			}
			slot[r] = jt.itable.slotOf(k.I[r])
		}
		nslots = jt.itable.len()
	}
	// counting sort: start[s+1] counts slot s, then prefix sums; filling
	// advances start[s] to the end of slot s, and a shift by one puts the
	// starts back
	start := make([]int32, nslots+1)
	for _, s := range slot {
		if s >= 0 {
			start[s+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	perm := make([]int32, start[nslots])
	identity := len(perm) == n
	for r, s := range slot {
		if s < 0 {
			continue
		}
		p := start[s]
		perm[p] = int32(r)
		start[s] = p + 1
		identity = identity && p == int32(r)
	}
	copy(start[1:], start[:nslots])
	start[0] = 0
	jt.start = start
	bytes := int64(len(start))*4 + int64(len(perm))*4
	if jt.itable != nil {
		bytes += jt.itable.bytes()
	}
	switch {
	case identity:
		// already in key order (a table read in key order)
	case reorder:
		for c, v := range jt.right.Cols {
			jt.right.Cols[c] = v.Gather(perm)
		}
		jt.right.N = len(perm)
		bytes += batchBytes(jt.right)
	default:
		jt.perm = perm
	}
	jt.reserved += bytes
	return ec.run.budget.reserve(bytes)
}

// probeInt appends to li, ri the pairs of lb's live rows (integer keys
// k) with their matching build rows.
func (jt *joinTable) probeInt(k *Vec, lb *Batch, li, ri []int32) ([]int32, []int32) {
	start, perm, lo := jt.start, jt.perm, jt.denseLo
	nslots := uint64(len(start) - 1)
	one := func(l int) {
		var s uint64
		if jt.dense {
			s = uint64(k.I[l] - lo)
			if s >= nslots {
				return
			}
		} else {
			x := jt.itable.get(k.I[l])
			if x < 0 {
				return
			}
			s = uint64(x)
		}
		a, b := start[s], start[s+1]
		if perm == nil {
			for r := a; r < b; r++ {
				li = append(li, int32(l))
				ri = append(ri, r)
			}
			return
		}
		for _, r := range perm[a:b] {
			li = append(li, int32(l))
			ri = append(ri, r)
		}
	}
	switch {
	case k.Nulls != nil:
		forEach(lb.N, lb.Sel, func(l int) {
			if !k.Nulls[l] {
				one(l)
			}
		})
	case lb.Sel == nil:
		for l := 0; l < lb.N; l++ {
			one(l)
		}
	default:
		for _, l := range lb.Sel {
			one(int(l))
		}
	}
	return li, ri
}
