package exec

import (
	"slices"
	"sync/atomic"

	"github.com/cockroachdb/apd/v3"
)

// Parallel partial aggregation: an aggregate over a large pipeline (a
// plain scan under filters, projections and hash-join probes; see
// pipeline) runs on several workers, each folding the batches it
// produces into its own groups and accumulators. At the end the partial
// states are merged in worker order and the groups are put back in order
// of first appearance in the serial output, the order a serial run
// produces.
//
// Only aggregates whose partial states merge exactly enough are eligible
// (count, sum, avg, min, max, bool_and, bool_or, every); DISTINCT and
// ORDER BY aggregates, and any expression touching shared per-query state
// (see plainExpr), keep the serial path. Float sums add per-worker
// partial sums, so their last bits may differ from a serial run's, as in
// PostgreSQL's parallel plans; for a given worker count they are
// deterministic (units are assigned to workers by position, not by
// timing).

// parallelAggRuns counts aggregates that ran in parallel (tests check
// that a plan took the parallel path).
var parallelAggRuns atomic.Int64

// mergeableAcc is an accumulator whose partial states combine: merge
// folds src (another state of the same aggregate) into the receiver,
// src's group l becoming group gmap[l]; ng is the receiver's group count.
type mergeableAcc interface {
	accum
	merge(src accum, gmap []int32, ng int) error
}

// parallelPlan returns the pipeline under a and the worker count when a
// runs in parallel, else nil.
func (a *aggNode) parallelPlan() (*pipeline, int) {
	w := parallelWorkers()
	if w < 1 {
		return nil, 0
	}
	need := make([]bool, len(a.input.columns()))
	for _, g := range a.groups {
		if !plainExpr(g) {
			return nil, 0
		}
		markCols(g, need)
	}
	for _, c := range a.aggs {
		if c.distinct || len(c.order) > 0 || !allPlain(c.args) {
			return nil, 0
		}
		if c.filter != nil {
			if !plainExpr(c.filter) {
				return nil, 0
			}
			markCols(c.filter, need)
		}
		for _, x := range c.args {
			markCols(x, need)
		}
		if _, ok := c.newAcc().(mergeableAcc); !ok {
			return nil, 0
		}
	}
	pl := pipelineOf(a.input, need)
	if pl == nil {
		return nil, 0
	}
	return pl, w
}

// runParallel aggregates the pipeline's output on w workers and merges.
func (a *aggNode) runParallel(ec *evalCtx, pl *pipeline, w int, emit func(*Batch) error) error {
	parallelAggRuns.Add(1)
	states := make([]*aggState, w)
	sinks := make([]pipeSink, w)
	for i := range w {
		st := a.newState(true)
		states[i] = st
		sinks[i] = func(b *Batch, pos int64) error { return st.consume(ec, b, pos) }
	}
	if err := pl.run(ec, sinks); err != nil {
		return err
	}
	merged, perm, err := a.mergeStates(ec, states)
	if err != nil {
		return err
	}
	return merged.emit(perm, emit)
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
		newRows := m.assign(a.detKeys(p.keys.cols), allRows(p.ngroups), gm)
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
	slices.SortStableFunc(perm, func(x, y int32) int {
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
