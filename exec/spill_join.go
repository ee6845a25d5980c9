package exec

import "hash/maphash"

// Hash join with a partitioned (grace) spill of the build side. The build
// side is collected in memory while it fits in work_mem. When it does not,
// its rows — those buffered so far and the rest as they arrive — are
// written to joinSpillPartitions spill files by a hash of their join
// keys, and the probe side's rows are written to the same number of files
// by the same hash of theirs. Rows that can join have equal keys and so
// meet in the same partition pair; each pair is then joined in memory by
// the ordinary hash join (unmatched rows of outer joins included, NULL
// keys too: a NULL key never matches, whatever partition it lands in).
// One partition's build side must fit under the statement's hard cap.
// The result rows are those of the in-memory join, partition by
// partition rather than in probe order.

const joinSpillPartitions = 32

var joinSpillSeed = maphash.MakeSeed()

// graceJoin is a hash join whose build side went to disk.
type graceJoin struct {
	right, left [joinSpillPartitions]*spillFile
	kb          []byte
}

func (g *graceJoin) close() {
	closeAll(g.right[:])
	closeAll(g.left[:])
}

// graceable reports whether the join may spill: equi-keys whose left and
// right values encode alike (the same kind per key), so equal keys hash
// to the same partition.
func (j *joinNode) graceable() bool {
	if len(j.rightKeys) == 0 || len(j.leftKeys) != len(j.rightKeys) {
		return false
	}
	for i := range j.leftKeys {
		if j.leftKeys[i].Type().Kind() != j.rightKeys[i].Type().Kind() {
			return false
		}
		if volatileCalls(j.leftKeys[i]) > 0 || volatileCalls(j.rightKeys[i]) > 0 {
			return false
		}
	}
	return true
}

// buildOrSpill collects the build side; it returns a built table, or
// (past work_mem) a graceJoin holding the build side in partitions.
func (j *joinNode) buildOrSpill(ec *evalCtx) (*joinTable, *graceJoin, error) {
	if !j.graceable() {
		jt, err := j.build(ec)
		return jt, nil, err
	}
	limit := workMem(ec.run)
	rbuf := newBuffer(typesOf(j.right.columns()))
	var g *graceJoin
	err := j.right.run(ec, func(b *Batch) error {
		if g != nil {
			return g.route(ec, j.rightKeys, b, g.right[:])
		}
		for _, piece := range chunkRows(b, spillChunkRows) {
			if g != nil {
				if err := g.route(ec, j.rightKeys, piece, g.right[:]); err != nil {
					return err
				}
				continue
			}
			if err := rbuf.add(ec.run, piece); err != nil {
				return err
			}
			if rbuf.bytes > limit || ec.run.budget.underPressure() {
				g = &graceJoin{}
				err := g.route(ec, j.rightKeys, rbuf.batch(), g.right[:])
				rbuf.free(ec.run)
				rbuf = newBuffer(rbuf.types)
				if err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		rbuf.free(ec.run)
		if g != nil {
			g.close()
		}
		return nil, nil, err
	}
	if g != nil {
		return nil, g, nil
	}
	jt, err := j.index(ec, rbuf)
	return jt, nil, err
}

// route writes the live rows of b to the partitions their keys hash to.
func (g *graceJoin) route(ec *evalCtx, keys []Expr, b *Batch, parts []*spillFile) error {
	if b.Live() == 0 {
		return nil
	}
	kv := make([]*Vec, len(keys))
	for i, k := range keys {
		v, err := k.Eval(ec, b, b.Sel)
		if err != nil {
			return err
		}
		kv[i] = v
	}
	var rows [joinSpillPartitions][]int32
	var h maphash.Hash
	h.SetSeed(joinSpillSeed)
	forEach(b.N, b.Sel, func(i int) {
		g.kb, _ = rowKey(g.kb[:0], kv, i)
		h.Reset()
		_, _ = h.Write(g.kb)
		p := h.Sum64() % joinSpillPartitions
		rows[p] = append(rows[p], int32(i))
	})
	if err := writePartitions(parts, b, rows[:]); err != nil {
		return err
	}
	return checkCancel(ec.run.ctx)
}

// runGrace partitions the probe side and joins partition pairs.
func (j *joinNode) runGrace(ec *evalCtx, g *graceJoin, emit func(*Batch) error) error {
	err := j.left.run(ec, func(b *Batch) error {
		return g.routeChunks(ec, j.leftKeys, b, g.left[:])
	})
	if err != nil {
		g.close()
		return err
	}
	return j.joinPartitions(ec, g, emit)
}

// routeChunks routes b to the partitions in pieces of spillChunkRows.
func (g *graceJoin) routeChunks(ec *evalCtx, keys []Expr, b *Batch, parts []*spillFile) error {
	for _, piece := range chunkRows(b, spillChunkRows) {
		if err := g.route(ec, keys, piece, parts); err != nil {
			return err
		}
	}
	return nil
}

// joinPartitions joins the partition pairs of a grace join whose both
// sides are partitioned, and closes it.
func (j *joinNode) joinPartitions(ec *evalCtx, g *graceJoin, emit func(*Batch) error) error {
	defer g.close()
	for p := range g.right {
		if g.left[p] == nil && (g.right[p] == nil || (j.kind != joinRight && j.kind != joinFull)) {
			// no probe rows: only a right or full join emits anything
			continue
		}
		rbuf := newBuffer(typesOf(j.right.columns()))
		if f := g.right[p]; f != nil {
			if err := readAll(f, func(b *Batch) error { return rbuf.add(ec.run, b) }); err != nil {
				rbuf.free(ec.run)
				return err
			}
			f.close()
			g.right[p] = nil
		}
		jt, err := j.index(ec, rbuf)
		if err != nil {
			return err
		}
		hr := j.hashRunOf(jt)
		if f := g.left[p]; f != nil {
			err = readAll(f, func(lb *Batch) error { return hr.probe(ec, lb, emit) })
			f.close()
			g.left[p] = nil
		}
		if err == nil {
			err = hr.finish(ec, emit)
		}
		hr.free(ec)
		if err != nil {
			return err
		}
	}
	return nil
}

// readAll passes every batch of a spill file to fn.
func readAll(f *spillFile, fn func(*Batch) error) error {
	if err := f.rewind(); err != nil {
		return err
	}
	for {
		b, err := f.read()
		if err != nil || b == nil {
			return err
		}
		if err := fn(b); err != nil {
			return err
		}
	}
}
