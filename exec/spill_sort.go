package exec

import "container/heap"

// External merge sort. A full sort buffers its input while the buffer
// stays within work_mem; past it the buffer is sorted (stably) into a run
// written to a spill file and buffering starts over. At the end the runs
// are merged: at most mergeFanIn at once, consecutive runs first, so a
// merge of many runs takes several passes with bounded open files and
// memory (one batch per run being read). Ties go to the earlier run, and
// each run holds rows in arrival order among equals, so the result is
// exactly the stable in-memory sort's.

// sortSpill is the state of one sort that may spill.
type sortSpill struct {
	s     *sortNode
	types []Type
	limit int64
	buf   *buffer
	runs  []*spillFile
	disk  int64 // bytes written to spill files
}

// add buffers b, spilling a run whenever the buffer passes the budget.
func (sp *sortSpill) add(ec *evalCtx, b *Batch) error {
	for _, piece := range chunkRows(b, spillChunkRows) {
		if err := sp.buf.add(ec.run, piece); err != nil {
			return err
		}
		if sp.buf.bytes > sp.limit || ec.run.budget.underPressure() {
			if err := sp.spillRun(ec); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkRows cuts the live rows of b into batches of at most n rows.
func chunkRows(b *Batch, n int) []*Batch {
	if b.Live() <= n {
		return []*Batch{b}
	}
	rows := b.Sel
	if rows == nil {
		rows = allRows(b.N)
	}
	var out []*Batch
	for lo := 0; lo < len(rows); lo += n {
		out = append(out, &Batch{Cols: b.Cols, N: b.N, Sel: rows[lo:min(lo+n, len(rows))]})
	}
	return out
}

// spillRun writes the buffer, sorted, as a new run.
func (sp *sortSpill) spillRun(ec *evalCtx) error {
	if sp.buf.n == 0 {
		return nil
	}
	f, err := newSpillFile()
	if err != nil {
		return err
	}
	sp.runs = append(sp.runs, f)
	full := sp.buf.batch()
	perm := allRows(full.N)
	sortPerm(perm, full.Cols, sp.s.keys)
	// rows per written batch: about a sixteenth of work_mem, so the
	// merge's one batch per run stays small next to the budget
	per := batchSize
	if avg := sp.buf.bytes / int64(full.N); avg > 0 {
		per = int(min(int64(batchSize), max(16, sp.limit/16/avg)))
	}
	for lo := 0; lo < len(perm); lo += per {
		part := perm[lo:min(lo+per, len(perm))]
		out := &Batch{N: len(part), Cols: make([]*Vec, len(full.Cols))}
		for i, c := range full.Cols {
			out.Cols[i] = c.Gather(part)
		}
		if err := f.write(out); err != nil {
			return err
		}
	}
	sp.disk += f.bytes
	sp.buf.free(ec.run)
	sp.buf = newBuffer(sp.types)
	return checkCancel(ec.run.ctx)
}

func (sp *sortSpill) close(ec *evalCtx) {
	for _, r := range sp.runs {
		r.close()
	}
	sp.runs = nil
	sp.buf.free(ec.run)
}

// finish emits the sorted rows: from memory when nothing was spilled,
// else by merging the runs.
func (sp *sortSpill) finish(ec *evalCtx, emit func(*Batch) error) error {
	defer sp.close(ec)
	if len(sp.runs) == 0 {
		full := sp.buf.batch()
		perm := allRows(full.N)
		sortPerm(perm, full.Cols, sp.s.keys)
		out := &Batch{N: full.N, Cols: make([]*Vec, len(full.Cols))}
		for i, c := range full.Cols {
			out.Cols[i] = c.Gather(perm)
		}
		return emitChunks(out, emit)
	}
	if err := sp.spillRun(ec); err != nil {
		return err
	}
	for len(sp.runs) > mergeFanIn {
		var next []*spillFile
		for lo := 0; lo < len(sp.runs); lo += mergeFanIn {
			group := sp.runs[lo:min(lo+mergeFanIn, len(sp.runs))]
			if len(group) == 1 {
				next = append(next, group[0])
				continue
			}
			f, err := newSpillFile()
			if err != nil {
				closeAll(next)
				return err
			}
			next = append(next, f)
			err = mergeRuns(ec, group, sp.s.keys, sp.types, f.write)
			closeAll(group)
			if err != nil {
				closeAll(next)
				closeAll(sp.runs[lo+len(group):])
				sp.runs = nil
				return err
			}
			sp.disk += f.bytes
		}
		sp.runs = next
	}
	return mergeRuns(ec, sp.runs, sp.s.keys, sp.types, emit)
}

func closeAll(fs []*spillFile) {
	for _, f := range fs {
		f.close()
	}
}

// runCursor is one run being merged: its current batch and row.
type runCursor struct {
	f   *spillFile
	b   *Batch
	row int
	idx int // run order: ties go to the lower index
}

func (c *runCursor) advance() error {
	c.row++
	for c.b == nil || c.row >= c.b.N {
		b, err := c.f.read()
		if err != nil {
			return err
		}
		c.b, c.row = b, 0
		if b == nil {
			return nil
		}
	}
	return nil
}

type runHeap struct {
	cs   []*runCursor
	keys []sortKey
}

func (h *runHeap) Len() int { return len(h.cs) }
func (h *runHeap) Less(i, j int) bool {
	a, b := h.cs[i], h.cs[j]
	if r := cmpKeysAcross(a.b.Cols, a.row, b.b.Cols, b.row, h.keys); r != 0 {
		return r < 0
	}
	return a.idx < b.idx
}
func (h *runHeap) Swap(i, j int) { h.cs[i], h.cs[j] = h.cs[j], h.cs[i] }
func (h *runHeap) Push(x any)    { h.cs = append(h.cs, x.(*runCursor)) }
func (h *runHeap) Pop() any {
	c := h.cs[len(h.cs)-1]
	h.cs = h.cs[:len(h.cs)-1]
	return c
}

// mergeRuns merges sorted runs into batches of up to batchSize rows
// passed to emit. Consecutive rows from one run are copied together.
func mergeRuns(ec *evalCtx, runs []*spillFile, keys []sortKey, types []Type, emit func(*Batch) error) error {
	h := &runHeap{keys: keys}
	for i, f := range runs {
		if err := f.rewind(); err != nil {
			return err
		}
		c := &runCursor{f: f, idx: i, row: -1}
		if err := c.advance(); err != nil {
			return err
		}
		if c.b != nil {
			h.cs = append(h.cs, c)
		}
	}
	heap.Init(h)
	newOut := func() []*Vec {
		cols := make([]*Vec, len(types))
		for i, t := range types {
			cols[i] = NewVec(t, 0)
		}
		return cols
	}
	out, n := newOut(), 0
	var cur *runCursor
	var sel []int32
	flush := func() {
		if cur != nil && len(sel) > 0 {
			for i, c := range out {
				c.appendVec(cur.b.Cols[i], sel)
			}
			n += len(sel)
		}
		sel = sel[:0]
	}
	for rows := 0; h.Len() > 0; rows++ {
		c := h.cs[0]
		if c != cur {
			flush()
			cur = c
		}
		sel = append(sel, int32(c.row))
		if n+len(sel) >= batchSize {
			flush()
			if err := emit(&Batch{Cols: out, N: n}); err != nil {
				return err
			}
			out, n = newOut(), 0
		}
		if c.row+1 >= c.b.N {
			// the batch sel points into is about to be replaced
			flush()
			cur = nil
		}
		if err := c.advance(); err != nil {
			return err
		}
		if c.b == nil {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
		if rows&1023 == 1023 {
			if err := checkCancel(ec.run.ctx); err != nil {
				return err
			}
		}
	}
	flush()
	if n > 0 {
		return emit(&Batch{Cols: out, N: n})
	}
	return nil
}
