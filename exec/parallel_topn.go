package exec

import (
	"slices"
	"sync/atomic"
)

// Parallel top-N: ORDER BY ... LIMIT over a large pipeline (see
// pipeline) keeps a top-N collector per worker; each worker sees its rows
// in serial order, so its collector's ties keep arrival order as a serial
// run's do. The collectors' rows are then sorted together by the sort
// keys and, for ties, by their position in the serial order, and the
// first N are emitted: exactly the rows and order of a serial run.

// parallelTopNRuns counts top-N sorts that ran in parallel (tests check
// that a plan took the parallel path).
var parallelTopNRuns atomic.Int64

// parallelPlan returns the pipeline under s and the worker count when
// the top-N runs in parallel, else nil.
func (s *sortNode) parallelPlan() (*pipeline, int) {
	w := parallelWorkers()
	if w < 1 {
		return nil, 0
	}
	pl := pipelineOf(s.input, nil)
	if pl == nil {
		return nil, 0
	}
	return pl, w
}

// runParallelTopN collects the top N rows on w workers and merges.
func (s *sortNode) runParallelTopN(ec *evalCtx, pl *pipeline, w int, emit func(*Batch) error) error {
	parallelTopNRuns.Add(1)
	tops := make([]*topN, w)
	sinks := make([]pipeSink, w)
	for i := range w {
		t := s.newTopN(true)
		tops[i] = t
		sinks[i] = func(b *Batch, pos int64) error { return t.add(ec, b, pos) }
	}
	defer func() {
		for _, t := range tops {
			t.buf.free(ec.run)
		}
	}()
	if err := pl.run(ec, sinks); err != nil {
		return err
	}
	all := newBuffer(typesOf(s.input.columns()))
	defer all.free(ec.run)
	var pos []int64
	for _, t := range tops {
		if err := all.add(ec.run, t.buf.batch()); err != nil {
			return err
		}
		pos = append(pos, t.pos...)
	}
	full := all.batch()
	if full.N == 0 {
		return nil
	}
	cols := append(slices.Clone(full.Cols), &Vec{T: TInt8, N: len(pos), I: pos})
	keys := append(slices.Clone(s.keys), sortKey{col: len(full.Cols)})
	perm := allRows(full.N)
	sortPerm(perm, cols, keys)
	perm = perm[:min(len(perm), int(s.topN))]
	out := &Batch{N: len(perm), Cols: make([]*Vec, len(full.Cols))}
	for i, c := range full.Cols {
		out.Cols[i] = c.Gather(perm)
	}
	return emitChunks(out, emit)
}
