package exec

import "hash/maphash"

// Hash aggregation with partition spill. A serial hash aggregate folds
// rows into its groups while its groups fit in work_mem. Once they do
// not, it stops creating groups: rows of a group it already has still
// fold in, and every other row is written (whole, as it arrived) to one
// of aggSpillPartitions spill files chosen by a hash of its group key.
// When the input ends the groups in memory are emitted and released,
// then each partition is aggregated the same way — a group's rows are all
// in one partition, so every group is complete when it is emitted. A
// partition that itself overflows splits again with another hash seed,
// up to aggSpillDepth levels; below that the statement's hard memory
// cap is what bounds it. The groups come out in a different order than
// the in-memory aggregate's first-appearance order; SQL gives an
// aggregate's output no order without ORDER BY.

const (
	aggSpillPartitions = 16
	aggSpillDepth      = 4
)

var aggSpillSeed = maphash.MakeSeed()

// spillable reports whether the aggregate may spill: it has group keys
// and computing them twice (once to route a row, once to fold it) is not
// observable.
func (a *aggNode) spillable() bool {
	if len(a.groups) == 0 {
		return false
	}
	for _, g := range a.groups {
		if volatileCalls(g) > 0 {
			return false
		}
	}
	return true
}

// runSerial is the serial hash aggregate, spilling under work_mem.
func (a *aggNode) runSerial(ec *evalCtx, emit func(*Batch) error) error {
	feed := func(fn func(*Batch) error) error { return withPrefetch(a.input).run(ec, fn) }
	return a.aggregatePass(ec, feed, 0, a.spillable(), emit)
}

// memBytes is what the state's groups hold, as reserved in the budget.
func (st *aggState) memBytes() int64 {
	return st.keys.bytes + int64(st.ngroups)*int64(64+16*len(st.a.aggs))
}

// free returns the state's reservations (its groups were emitted).
func (st *aggState) free(rc *runCtx) {
	rc.budget.release(int64(st.ngroups) * int64(64+16*len(st.a.aggs)))
	st.keys.free(rc)
}

func (a *aggNode) aggregatePass(ec *evalCtx, feed func(func(*Batch) error) error, depth int, canSpill bool, emit func(*Batch) error) error {
	st := a.newState(false)
	limit := workMem(ec.run)
	var parts []*spillFile
	defer func() { closeAll(parts) }()
	chunk := batchSize
	if canSpill {
		chunk = spillChunkRows
	}
	err := feed(func(in *Batch) error {
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
		for _, b := range chunkRows(in, chunk) {
			if parts == nil {
				if err := st.consume(ec, b, 0); err != nil {
					return err
				}
				if canSpill && depth < aggSpillDepth && (st.memBytes() > limit || ec.run.budget.underPressure()) {
					parts = make([]*spillFile, aggSpillPartitions)
				}
				continue
			}
			if err := st.route(ec, b, depth, parts); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := st.emit(nil, emit); err != nil {
		return err
	}
	st.free(ec.run)
	for i, p := range parts {
		if p == nil {
			continue
		}
		if err := p.rewind(); err != nil {
			return err
		}
		feedPart := func(fn func(*Batch) error) error {
			for {
				b, err := p.read()
				if err != nil || b == nil {
					return err
				}
				if err := fn(b); err != nil {
					return err
				}
			}
		}
		if err := a.aggregatePass(ec, feedPart, depth+1, canSpill, emit); err != nil {
			return err
		}
		p.close()
		parts[i] = nil
	}
	return nil
}

// route folds the rows of b whose group exists and writes the others to
// the partition their group key hashes to.
func (st *aggState) route(ec *evalCtx, b *Batch, depth int, parts []*spillFile) error {
	kv := make([]*Vec, len(st.a.groups))
	for i, g := range st.a.groups {
		v, err := g.Eval(ec, b, b.Sel)
		if err != nil {
			return err
		}
		kv[i] = v
	}
	kv = st.a.detKeys(kv)
	var hit []int32
	var miss [aggSpillPartitions][]int32
	var h maphash.Hash
	h.SetSeed(aggSpillSeed)
	forEach(b.N, b.Sel, func(i int) {
		if st.lookup(kv, int32(i)) {
			hit = append(hit, int32(i))
			return
		}
		st.kb, _ = rowKey(st.kb[:0], kv, i)
		h.Reset()
		h.WriteByte(byte(depth))
		_, _ = h.Write(st.kb)
		p := h.Sum64() % aggSpillPartitions
		miss[p] = append(miss[p], int32(i))
	})
	if len(hit) > 0 {
		if err := st.consume(ec, &Batch{Cols: b.Cols, N: b.N, Sel: hit}, 0); err != nil {
			return err
		}
	}
	return writePartitions(parts, b, miss[:])
}

// lookup reports whether row r's group exists, by the indexes assign
// fills (the same choice of index for the same key shape).
func (st *aggState) lookup(kv []*Vec, r int32) bool {
	if len(kv) == 1 && kv[0].T.Kind() == KInt {
		if kv[0].IsNull(int(r)) {
			return st.nullGroup >= 0
		}
		v := kv[0].I[r]
		if v >= 0 && v < denseKeys {
			return st.dense != nil && st.dense[v] >= 0
		}
		_, ok := st.intIndex[v]
		return ok
	}
	if hashKeyable(kv) {
		return st.findHashed(kv, r)
	}
	st.kb, _ = rowKey(st.kb[:0], kv, int(r))
	_, ok := st.index[string(st.kb)]
	return ok
}
