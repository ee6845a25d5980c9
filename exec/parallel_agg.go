package exec

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/cockroachdb/apd/v3"
)

// Parallel partial aggregation: an aggregate over a large plain scan
// (optionally under filters) runs on several workers. The calling
// goroutine reads the source and cuts its records into units of at most
// parallelUnitRows rows; unit k goes to worker k mod W (a fixed
// assignment, so a run's partial states, and hence float sums, do not
// depend on scheduling). Each worker converts, filters and aggregates its
// units into its own groups and accumulators; at the end the partial
// states are merged in worker order and the groups are put back in order
// of first appearance in the scan, the order a serial run produces.
//
// Only aggregates whose partial states merge exactly enough are eligible
// (count, sum, avg, min, max, bool_and, bool_or, every); DISTINCT and
// ORDER BY aggregates, and any expression touching shared per-query state
// (see plainExpr), keep the serial path. Float sums add per-worker
// partial sums, so their last bits may differ from a serial run's, as in
// PostgreSQL's parallel plans; for a given worker count they are
// deterministic.

// parallelMinRows is the estimated table size from which an aggregate
// runs in parallel: below it the workers' setup and merge cost more than
// they save (and small results keep the serial order of float
// additions). A variable so tests can run small tables in parallel.
var parallelMinRows int64 = 1 << 18

// parallelAggRuns counts aggregates that ran in parallel (tests check
// that a plan took the parallel path).
var parallelAggRuns atomic.Int64

// parallelUnitRows is the row count of one unit of work.
const parallelUnitRows = 16 * batchSize

// parallelQueue bounds the units queued per worker.
const parallelQueue = 4

// maxParallel caps the workers of one aggregate.
const maxParallel = 8

// parallelWorkers is the worker count for large scans; a variable so
// tests can force a parallel run on a single CPU.
var parallelWorkers = func() int { return min(runtime.GOMAXPROCS(0), maxParallel) }

// mergeableAcc is an accumulator whose partial states combine: merge
// folds src (another state of the same aggregate) into the receiver,
// src's group l becoming group gmap[l]; ng is the receiver's group count.
type mergeableAcc interface {
	accum
	merge(src accum, gmap []int32, ng int) error
}

// scanUnit is rows [lo, hi) of a source record, the seq-th unit of a scan.
type scanUnit struct {
	rec    arrow.RecordBatch
	addrs  []uint64
	lo, hi int
	seq    int64
}

// scanWithFilters returns the scan under a chain of filters and the
// filter predicates, innermost first; nil when p is not of that shape.
func scanWithFilters(p plan) (*scanNode, []Expr) {
	var preds []Expr
	for {
		switch x := p.(type) {
		case *filterNode:
			preds = append(preds, x.pred)
			p = x.input
		case *scanNode:
			slices.Reverse(preds)
			return x, preds
		default:
			return nil, nil
		}
	}
}

// parallelism returns how many workers aggregate a, 1 meaning serial.
func (a *aggNode) parallelism() int {
	w := parallelWorkers()
	if w < 2 {
		return 1
	}
	scan, preds := scanWithFilters(a.input)
	if scan == nil || scan.keyVals != nil || scan.table.Source.RowCount() < parallelMinRows {
		return 1
	}
	plain := func(es []Expr) bool {
		for _, e := range es {
			if !plainExpr(e) {
				return false
			}
		}
		return true
	}
	if !plain(preds) || !plain(a.groups) {
		return 1
	}
	for _, c := range a.aggs {
		if c.distinct || len(c.order) > 0 || !plain(c.args) {
			return 1
		}
		if c.filter != nil && !plainExpr(c.filter) {
			return 1
		}
		if _, ok := c.newAcc().(mergeableAcc); !ok {
			return 1
		}
	}
	return w
}

// runParallel is run with w workers (see the comment at the top).
func (a *aggNode) runParallel(ec *evalCtx, w int, emit func(*Batch) error) error {
	parallelAggRuns.Add(1)
	scan, preds := scanWithFilters(a.input)
	req, conv := scan.prepare()
	done := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(done) }) }
	defer stop()
	chans := make([]chan scanUnit, w)
	states := make([]*aggState, w)
	errs := make([]error, w)
	errSeq := make([]int64, w)
	var wg sync.WaitGroup
	for i := range w {
		ch := make(chan scanUnit, parallelQueue)
		chans[i] = ch
		st := a.newState(true)
		states[i] = st
		wc := conv.fork()
		sels := make([][]int32, len(preds))
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: %v", r)}
					stop()
				}
				for u := range ch { // drain so the producer never blocks
					u.rec.Release()
				}
			}()
			for u := range ch {
				if errs[i] == nil {
					if err := consumeUnit(ec, st, wc, preds, sels, u); err != nil {
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
		return scan.read(ec, req, func(rec arrow.RecordBatch, addrs []uint64) error {
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
	// the error of the earliest failing unit, as a serial run would see it
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
	merged, perm, err := a.mergeStates(ec, states)
	if err != nil {
		return err
	}
	return merged.emit(perm, emit)
}

// consumeUnit converts, filters and aggregates one unit; sels holds a
// reusable selection buffer per predicate.
func consumeUnit(ec *evalCtx, st *aggState, conv *scanConv, preds []Expr, sels [][]int32, u scanUnit) error {
	if err := checkCancel(ec.run.ctx); err != nil {
		return err
	}
	cols, err := conv.columns(u.rec, u.addrs, u.lo, u.hi)
	if err != nil {
		return err
	}
	for lo := 0; lo < u.hi-u.lo; lo += batchSize {
		b := sliceBatch(cols, lo, min(lo+batchSize, u.hi-u.lo))
		empty := false
		for k, p := range preds {
			v, err := p.Eval(ec, b, b.Sel)
			if err != nil {
				return err
			}
			if sels[k] == nil {
				sels[k] = make([]int32, batchSize+1)
			}
			sel := selectTrueInto(sels[k], v, b.N, b.Sel)
			if len(sel) == 0 {
				empty = true
				break
			}
			b = &Batch{Cols: b.Cols, N: b.N, Sel: sel}
		}
		if empty {
			continue
		}
		if err := st.consume(ec, b, u.seq<<32|int64(lo)); err != nil {
			return err
		}
	}
	return nil
}

// mergeStates folds the workers' partial states, in worker order, into
// one; perm orders its groups by first appearance (nil when they already
// are).
func (a *aggNode) mergeStates(ec *evalCtx, parts []*aggState) (*aggState, []int32, error) {
	m := a.newState(false)
	gmaps := make([][]int32, len(parts))
	var firstOf []int64
	for i, p := range parts {
		gm := make([]int32, p.ngroups)
		gmaps[i] = gm
		if len(a.groups) == 0 {
			continue // one group everywhere: gm is all zeros
		}
		if p.ngroups == 0 {
			continue
		}
		newRows := m.assign(p.keys.cols, allRows(p.ngroups), gm)
		if len(newRows) > 0 {
			if err := m.keys.add(ec.run, &Batch{Cols: p.keys.cols, N: p.ngroups, Sel: newRows}); err != nil {
				return nil, nil, err
			}
		}
		// new groups are numbered in increasing order along gm
		for l, g := range gm {
			switch {
			case int(g) == len(firstOf):
				firstOf = append(firstOf, p.first[l])
			case p.first[l] < firstOf[g]:
				firstOf[g] = p.first[l]
			}
		}
	}
	for k := range a.aggs {
		dst := m.accs[k].(mergeableAcc)
		for i, p := range parts {
			if err := dst.merge(p.accs[k], gmaps[i], m.ngroups); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, p := range parts {
		p.keys.free(ec.run)
	}
	if slices.IsSorted(firstOf) {
		return m, nil, nil
	}
	perm := allRows(m.ngroups)
	slices.SortFunc(perm, func(x, y int32) int {
		switch {
		case firstOf[x] < firstOf[y]:
			return -1
		case firstOf[x] > firstOf[y]:
			return 1
		}
		return 0
	})
	return m, perm, nil
}

func (c *countAcc) merge(src accum, gmap []int32, ng int) error {
	s := src.(*countAcc)
	c.n = growTo(c.n, ng)
	for l, v := range s.n {
		c.n[gmap[l]] += v
	}
	return nil
}

func (s *sumAcc) merge(src accum, gmap []int32, ng int) error {
	o := src.(*sumAcc)
	s.has, s.cnt = growTo(s.has, ng), growTo(s.cnt, ng)
	s.i, s.f, s.d, s.big = growTo(s.i, ng), growTo(s.f, ng), growTo(s.d, ng), growTo(s.big, ng)
	for l := range o.cnt {
		if !o.has[l] && o.cnt[l] == 0 {
			continue
		}
		g := gmap[l]
		s.has[g] = true
		s.cnt[g] += o.cnt[l]
		switch s.in.Kind() {
		case KInt:
			if l >= len(o.i) {
				continue
			}
			if o.big[l] || s.big[g] {
				var t apd.Decimal
				if !s.big[g] {
					s.d[g].SetInt64(s.i[g])
					s.big[g] = true
				}
				if o.big[l] {
					t.Set(&o.d[l])
				} else {
					t.SetInt64(o.i[l])
				}
				if err := numAdd(&s.d[g], &s.d[g], &t); err != nil {
					return err
				}
				continue
			}
			a, b := s.i[g], o.i[l]
			v := a + b
			if (a^v)&(b^v) < 0 {
				var t apd.Decimal
				s.big[g] = true
				s.d[g].SetInt64(a)
				t.SetInt64(b)
				if err := numAdd(&s.d[g], &s.d[g], &t); err != nil {
					return err
				}
				continue
			}
			s.i[g] = v
		case KFloat:
			if l < len(o.f) {
				s.f[g] += o.f[l]
			}
		case KNum:
			if l < len(o.d) {
				if err := numAdd(&s.d[g], &s.d[g], &o.d[l]); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (m *minMaxAcc) merge(src accum, gmap []int32, ng int) error {
	o := src.(*minMaxAcc)
	if m.st == nil {
		m.st = NewVec(m.t, 0)
	}
	m.st.grow(ng)
	m.has = growTo(m.has, ng)
	for l, h := range o.has {
		if !h {
			continue
		}
		g := int(gmap[l])
		if !m.has[g] {
			m.has[g] = true
			m.st.copyRow(g, o.st, l)
			continue
		}
		// NaN sorts above every number, as in update
		c := cmpRows(o.st, l, m.st, g)
		if (m.max && c > 0) || (!m.max && c < 0) {
			m.st.copyRow(g, o.st, l)
		}
	}
	return nil
}

func (b *boolAcc) merge(src accum, gmap []int32, ng int) error {
	o := src.(*boolAcc)
	b.has, b.v = growTo(b.has, ng), growTo(b.v, ng)
	for l, h := range o.has {
		if !h {
			continue
		}
		g := gmap[l]
		switch {
		case !b.has[g]:
			b.has[g], b.v[g] = true, o.v[l]
		case b.and:
			b.v[g] = b.v[g] && o.v[l]
		default:
			b.v[g] = b.v[g] || o.v[l]
		}
	}
	return nil
}
