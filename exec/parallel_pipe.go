package exec

import (
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// A pipeline is a chain of per-batch operators over a table scan that can
// run in several workers at once: filters, projections and the probe
// side of hash joins (inner and left) whose build side is built once,
// before the workers start, and then only read. Every expression in it
// must be plain (see plainExpr): the workers share the evalCtx.
//
// The calling goroutine reads the source and cuts its records into units
// of at most parallelUnitRows rows; unit k goes to worker k mod W (a
// fixed assignment, so what each worker sees does not depend on
// scheduling). A worker converts its units a batch at a time, pushes
// them through the operators and hands the results to its own sink with
// their position in the serial output order (unit k's rows come before
// unit k+1's), so a consumer can restore the serial order after merging.
//
// Join probes materialize only the columns the operators above read
// (need); the others are NULL placeholders.
type pipeline struct {
	scan   *scanNode
	stages []pipeStage // bottom-up
}

// pipeStage is one operator of a pipeline: exactly one of pred, exprs
// and join is set.
type pipeStage struct {
	pred  Expr       // filter
	exprs []Expr     // projection
	join  *joinNode  // hash join probe (left input is the pipeline)
	need  []bool     // projection, join: output columns read above (nil = all)
	jt    *joinTable // join: the build side during a run
}

// parallelUnitRows is the row count of one unit of work.
const parallelUnitRows = 16 * batchSize

// parallelQueue bounds the units queued per worker.
const parallelQueue = 4

// maxParallel caps the workers of one pipeline.
const maxParallel = 8

// parallelMinRows is the estimated table size from which a pipeline runs
// in parallel: below it the workers' setup and merge cost more than they
// save (and small results keep the serial order of float additions). A
// variable so tests can run small tables in parallel.
var parallelMinRows int64 = 1 << 18

// parallelWorkers is the worker count for large scans; a variable so
// tests can force a worker count (0 = serial).
var parallelWorkers = func() int { return min(runtime.GOMAXPROCS(0), maxParallel) }

// unitShift places a unit's sequence number above the row offsets inside
// it in an output position. An offset beyond 2^36-2^31 (a join probe
// with an enormous fan-out) saturates: such rows may tie with others of
// the same unit, and since consumers sort positions stably and a unit is
// one worker's, they keep their order.
const unitShift = 36

// scanUnit is rows [lo, hi) of a source record, the seq-th unit of a scan.
type scanUnit struct {
	rec    arrow.RecordBatch
	addrs  []uint64
	lo, hi int
	seq    int64
}

// pipelineOf returns p as a pipeline when it is one, given the columns of
// p's output its consumer reads (nil = all); nil when it is not or the
// scanned table is too small to be worth it.
func pipelineOf(p plan, need []bool) *pipeline {
	pl := buildPipeline(p, need)
	if pl == nil || pl.scan.table.Source.RowCount() < parallelMinRows {
		return nil
	}
	return pl
}

func buildPipeline(p plan, need []bool) *pipeline {
	switch x := p.(type) {
	case *scanNode:
		if x.keyVals != nil {
			return nil
		}
		return &pipeline{scan: x}
	case *filterNode:
		if !plainExpr(x.pred) {
			return nil
		}
		below := orCols(need, len(x.input.columns()), x.pred)
		pl := buildPipeline(x.input, below)
		if pl != nil {
			pl.stages = append(pl.stages, pipeStage{pred: x.pred})
		}
		return pl
	case *projectNode:
		if !allPlain(x.exprs) {
			return nil
		}
		below := make([]bool, len(x.input.columns()))
		for i, e := range x.exprs {
			if need == nil || need[i] {
				markCols(e, below)
			}
		}
		pl := buildPipeline(x.input, below)
		if pl != nil {
			pl.stages = append(pl.stages, pipeStage{exprs: x.exprs, need: need})
		}
		return pl
	case *joinNode:
		if (x.kind != joinInner && x.kind != joinLeft) || len(x.leftKeys) == 0 || !allPlain(x.leftKeys) {
			return nil
		}
		if x.residual != nil && !plainExpr(x.residual) {
			return nil
		}
		nl := len(x.left.columns())
		jneed := orCols(need, len(x.cols), x.residual)
		left := make([]bool, nl)
		copy(left, jneed[:nl])
		for _, k := range x.leftKeys {
			markCols(k, left)
		}
		pl := buildPipeline(x.left, left)
		if pl != nil {
			pl.stages = append(pl.stages, pipeStage{join: x, need: jneed})
		}
		return pl
	}
	return nil
}

func allPlain(es []Expr) bool {
	for _, e := range es {
		if !plainExpr(e) {
			return false
		}
	}
	return true
}

// orCols is need (nil = all of n) plus the columns e reads.
func orCols(need []bool, n int, e Expr) []bool {
	out := make([]bool, n)
	if need == nil {
		for i := range out {
			out[i] = true
		}
	} else {
		copy(out, need)
	}
	if e != nil {
		markCols(e, out)
	}
	return out
}

// pipeSink consumes a worker's output batches; pos is the serial-order
// position of the batch's row 0 (row r is at pos+r).
type pipeSink func(b *Batch, pos int64) error

// run executes the pipeline on w workers, worker i feeding sinks[i]. It
// returns the error of the earliest failing unit (as a serial run would
// meet it first), else the source's error.
func (pl *pipeline) run(ec *evalCtx, sinks []pipeSink) error {
	w := len(sinks)
	defer func() {
		for k := range pl.stages {
			if jt := pl.stages[k].jt; jt != nil {
				jt.free(ec.run)
			}
		}
	}()
	for k := range pl.stages {
		if j := pl.stages[k].join; j != nil {
			// a build past work_mem ends the pipeline (parallel_spill.go)
			jt, err := pl.buildStage(ec, j)
			if err != nil {
				return err
			}
			pl.stages[k].jt = jt
		}
	}
	req, conv := pl.scan.prepare()
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	defer stop()
	chans := make([]chan scanUnit, w)
	errs := make([]error, w)
	errSeq := make([]int64, w)
	var wg sync.WaitGroup
	for i := range w {
		ch := make(chan scanUnit, parallelQueue)
		chans[i] = ch
		wk := &pipeWorker{pl: pl, conv: conv.fork(), sels: make([][]int32, len(pl.stages)),
			scratch: make([]probeScratch, len(pl.stages)), sink: sinks[i]}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = internalPanic(r)
					stop()
				}
				for u := range ch { // drain so the producer never blocks
					u.rec.Release()
				}
			}()
			for u := range ch {
				if errs[i] == nil {
					if err := wk.unit(ec, u); err != nil {
						errs[i], errSeq[i] = err, u.seq
						stop()
					}
				}
				u.rec.Release()
			}
		}()
	}
	var seq int64
	perr := func() error {
		defer func() {
			for _, ch := range chans {
				close(ch)
			}
		}()
		return pl.scan.read(ec, req, func(rec arrow.RecordBatch, addrs []uint64) error {
			if err := checkCancel(ec.run.ctx); err != nil {
				return err
			}
			n := int(rec.NumRows())
			for lo := 0; lo < n; lo += parallelUnitRows {
				u := scanUnit{rec: rec, lo: lo, hi: min(lo+parallelUnitRows, n), seq: seq}
				if req.NeedAddrs && addrs != nil {
					// the source may reuse its address buffer
					u.addrs = make([]uint64, n)
					copy(u.addrs[u.lo:u.hi], addrs[u.lo:u.hi])
				}
				rec.Retain()
				select {
				case chans[seq%int64(w)] <- u:
				case <-done:
					rec.Release()
					return errStop
				}
				seq++
			}
			return nil
		})
	}()
	wg.Wait()
	first := -1
	for i, err := range errs {
		if err != nil && (first < 0 || errSeq[i] < errSeq[first]) {
			first = i
		}
	}
	if first >= 0 {
		return errs[first]
	}
	if perr != nil && perr != errStop {
		return perr
	}
	return nil
}

// pipeWorker is one worker's state: its converter, selection buffers and
// probe scratch per stage, and its sink.
type pipeWorker struct {
	pl      *pipeline
	conv    *scanConv
	sels    [][]int32
	scratch []probeScratch
	sink    pipeSink
	base    int64 // the current unit's first position
	off     int64 // offset of the next output row in the unit
}

// unit converts one unit and pushes it through the stages a batch at a
// time.
func (wk *pipeWorker) unit(ec *evalCtx, u scanUnit) error {
	if err := checkCancel(ec.run.ctx); err != nil {
		return err
	}
	cols, err := wk.conv.columns(u.rec, u.addrs, u.lo, u.hi)
	if err != nil {
		return err
	}
	wk.base, wk.off = u.seq<<unitShift, 0
	// the unit's batches share three allocations
	n := u.hi - u.lo
	nb := (n + batchSize - 1) / batchSize
	batches, ptrs, vecs := make([]Batch, nb), make([]*Vec, nb*len(cols)), make([]Vec, nb*len(cols))
	for k := range nb {
		lo, hi := k*batchSize, min((k+1)*batchSize, n)
		b := &batches[k]
		b.N, b.Cols = hi-lo, ptrs[k*len(cols):(k+1)*len(cols):(k+1)*len(cols)]
		for i, c := range cols {
			v := &vecs[k*len(cols)+i]
			c.sliceInto(v, lo, hi)
			b.Cols[i] = v
		}
		if err := wk.push(ec, 0, b); err != nil {
			return err
		}
	}
	return nil
}

// push runs stage k and those above it on b.
func (wk *pipeWorker) push(ec *evalCtx, k int, b *Batch) error {
	if k == len(wk.pl.stages) {
		// batch rows are int32-indexed, so pos+r stays inside the unit
		pos := wk.base + min(wk.off, 1<<unitShift-1<<31)
		wk.off += int64(b.N)
		return wk.sink(b, pos)
	}
	st := &wk.pl.stages[k]
	switch {
	case st.pred != nil:
		v, err := st.pred.Eval(ec, b, b.Sel)
		if err != nil {
			return err
		}
		if wk.sels[k] == nil {
			wk.sels[k] = make([]int32, batchSize+1)
		}
		// the buffer is free again once the stages above return
		sel := selectTrueInto(wk.sels[k], v, b.N, b.Sel)
		if len(sel) == 0 {
			wk.off += int64(b.N)
			return nil
		}
		return wk.push(ec, k+1, &Batch{Cols: b.Cols, N: b.N, Sel: sel})
	case st.exprs != nil:
		// only the columns read above are computed
		out := &Batch{N: b.Live(), Cols: make([]*Vec, len(st.exprs))}
		for i, e := range st.exprs {
			if st.need != nil && !st.need[i] {
				out.Cols[i] = wk.scratch[k].placeholder(i, e.Type(), out.N)
				continue
			}
			v, err := e.Eval(ec, b, b.Sel)
			if err != nil {
				return err
			}
			if b.Sel != nil {
				v = v.Gather(b.Sel)
			}
			out.Cols[i] = v
		}
		return wk.push(ec, k+1, out)
	default:
		return st.join.probe(ec, st.jt, b, &wk.scratch[k], st.need, nil, func(pb *Batch) error {
			return wk.push(ec, k+1, pb)
		})
	}
}
