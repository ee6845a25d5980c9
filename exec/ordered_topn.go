package exec

import (
	"errors"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

// ORDER BY … LIMIT in index order. PostgreSQL answers
// `SELECT … FROM e JOIN p ON p.id = e.src ORDER BY e.src DESC LIMIT 2`
// by walking e's btree backwards and stopping after a few rows; a top-N
// sort over the whole join reads every row instead. When the first sort
// key of a top-N sort is an integer or text column with an ordered key index
// (KeyRangeSource) and the rows reach the sort through operators that
// keep their order — filters, projections, inner and semi joins run as
// lookup joins driven by that side — the sort runs over a copy of its
// input whose scan reads the keys in order, a growing number of keys at
// a time (orderedScan), and whose joins look up each batch as it comes
// (orderedJoin). The sort stops pulling rows once limit rows have
// arrived and a row's first key is past the limit-th row's: every later
// row sorts after those limit rows. Since a step emits every row of its
// keys, the scan does not read another step once limit rows have arrived
// (orderedScan.enough). A scan that reads a range of another key column
// is not walked in order. The rows it holds are then sorted
// by all keys as before, so ties and later keys are ordered exactly.

// The walk is a guess that few rows are needed; a selective filter or
// join above may make it read much of the table through the index. An
// ordered scan that has read more than a sixteenth of its table's rows
// (at least orderedGiveUpMin) gives up, and the sort starts over the
// ordinary way (its inputs have no side effects: plainExpr).
const orderedGiveUpMin = 10000

var errOrderedGiveUp = errors.New("exec: ordered scan gives up")

// orderedKeysMax caps the keys one step of an ordered scan reads.
const orderedKeysMax = 1024

// orderedInput returns a copy of p yielding its rows in the order of
// key (over p's column col) from an index, or nil when p cannot.
func orderedInput(rc *runCtx, p plan, col int, key sortKey) plan {
	switch x := p.(type) {
	case *instrNode:
		in := orderedInput(rc, x.input, col, key)
		if in == nil {
			return nil
		}
		return &instrNode{input: in, st: x.st}
	case *filterNode:
		if !plainExpr(x.pred) {
			return nil
		}
		in := orderedInput(rc, x.input, col, key)
		if in == nil {
			return nil
		}
		c := *x
		c.input = in
		return &c
	case *projectNode:
		for _, e := range x.exprs {
			if !plainExpr(e) {
				return nil
			}
		}
		ref, ok := x.exprs[col].(*colRef)
		if !ok || ref.idx < 0 || ref.idx >= len(x.input.columns()) || ref.t.OID != x.cols[col].t.OID {
			return nil
		}
		in := orderedInput(rc, x.input, ref.idx, key)
		if in == nil {
			return nil
		}
		c := *x
		c.input = in
		return &c
	case *joinNode:
		if (x.kind != joinInner && x.kind != joinSemi) || col >= len(x.left.columns()) || !joinMethodSetting(rc, "enable_nestloop") {
			return nil
		}
		ip := x.lookupTarget()
		if ip == nil || (x.residual != nil && !plainExpr(x.residual)) {
			return nil
		}
		for _, f := range ip.filters {
			if !plainExpr(f) {
				return nil
			}
		}
		in := orderedInput(rc, x.left, col, key)
		if in == nil {
			return nil
		}
		return &orderedJoin{j: x, ip: ip, left: in}
	case *scanNode:
		if x.keyVals != nil || col >= len(x.colIdx) {
			return nil
		}
		tc := x.colIdx[col]
		rs, ok := x.table.Source.(KeyRangeSource)
		if !ok || tc < 0 || tc >= len(x.table.Columns) || !rangeKeyType(x.table.Columns[tc].Type) || x.cols[col].t.OID != x.table.Columns[tc].Type.OID {
			return nil
		}
		if x.rng != nil && x.rng.col != tc {
			// the scan reads a range of another key column: the ordered
			// walk bounds its own key only and would apply that range to it
			return nil
		}
		isKey := false
		for _, k := range rs.KeyColumns() {
			isKey = isKey || k == tc
		}
		nullable := !x.table.Columns[tc].NotNull
		if !isKey || (nullable && key.nullsFirst) {
			return nil // NULLs would come first: the index does not list them
		}
		return &orderedScan{s: x, out: col, col: tc, desc: key.desc, nulls: nullable}
	}
	return nil
}

// orderedScan reads a scan's rows in the order of an integer or text key column
// through its index: a step looks up the next keys (1, then 4 times as
// many up to orderedKeysMax), sorts the rows found by the key and emits
// them. A nullable column's NULL rows follow the keys (NULLS LAST).
type orderedScan struct {
	s     *scanNode
	out   int // the key's position in the scan's output
	col   int // the key's table column
	desc  bool
	nulls bool
	// enough, set by the sort it feeds, reports whether the rows emitted
	// so far decide the top N. Each step's rows are every row of its keys,
	// so between steps every later row's first key is past every row
	// emitted: once limit rows have arrived, the next step is not read
	// (the sort's own test needs a row past the limit-th row's key, which
	// takes one more step of keys and their lookups).
	enough func() bool
}

func (o *orderedScan) columns() []colInfo { return o.s.columns() }

func (o *orderedScan) run(ec *evalCtx, emit func(*Batch) error) error {
	s := o.s
	rs := s.table.Source.(KeyRangeSource)
	next, err := o.keySteps(ec, rs)
	if err != nil || next == nil {
		return err // an empty range keeps no NULL either
	}
	req, conv := s.prepare()
	types := typesOf(s.cols)
	budget := max(s.table.Source.RowCount()/16, orderedGiveUpMin)
	var read int64
	order := []sortKey{{col: o.out, desc: o.desc}}
	for n := 1; ; n = min(4*n, orderedKeysMax) {
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
		if o.enough != nil && o.enough() {
			return nil // NULLS LAST rows sort after every key, too
		}
		kv, more, err := next(n)
		if err != nil {
			return err
		}
		if kv.N == 0 {
			break
		}
		buf := newBuffer(types)
		err = stopOK(rs.LookupKeys(ec.run.ctx, o.col, kv, req, func(rec arrow.RecordBatch, addrs []uint64) error {
			nr := int(rec.NumRows())
			for l := 0; l < nr; l += batchSize {
				b, err := conv.batch(rec, addrs, l, min(l+batchSize, nr))
				if err != nil {
					return err
				}
				if err := buf.add(ec.run, b); err != nil {
					return err
				}
			}
			return nil
		}))
		if err != nil {
			buf.free(ec.run)
			return err
		}
		if read += int64(buf.n); read > budget {
			buf.free(ec.run)
			return errOrderedGiveUp
		}
		if buf.n > 0 {
			full := buf.batch()
			perm := allRows(full.N)
			sortPerm(perm, full.Cols, order)
			out := &Batch{N: full.N, Cols: make([]*Vec, len(full.Cols))}
			for i, c := range full.Cols {
				out.Cols[i] = c.Gather(perm)
			}
			err = emitChunks(out, emit)
		}
		buf.free(ec.run)
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	if !o.nulls || s.rng != nil {
		return nil
	}
	// NULLS LAST: the rows the index does not list, read by a scan
	return s.run(ec, func(b *Batch) error {
		kv := b.Cols[o.out]
		var keep []int32
		forEach(b.N, b.Sel, func(r int) {
			if kv.IsNull(r) {
				keep = append(keep, int32(r))
			}
		})
		if len(keep) == 0 {
			return nil
		}
		return emit(&Batch{Cols: b.Cols, N: b.N, Sel: keep})
	})
}

// keySteps returns the function stepping through the scan's key column
// in order: each call returns the next n keys (fewer at the end) and
// whether more may follow. It returns nil when the scan's range is empty.
func (o *orderedScan) keySteps(ec *evalCtx, rs KeyRangeSource) (func(n int) (*Vec, bool, error), error) {
	s := o.s
	kt := s.table.Columns[o.col].Type
	noOrder := func() error {
		return errf(CodeInternalError, "ordered scan of %s: the index of column %s keeps no order", s.table.Name, s.table.Columns[o.col].Name)
	}
	if textKeyType(kt) {
		var lo, hi TextBound
		if s.rng != nil {
			var empty bool
			var err error
			if lo, hi, empty, err = s.rng.textBounds(ec); err != nil || empty {
				return nil, err
			}
		}
		return func(n int) (*Vec, bool, error) {
			keys, ok, err := rs.TextKeysInRange(ec.run.ctx, o.col, lo, hi, o.desc, n)
			if err != nil {
				return nil, false, stopOK(err)
			}
			if !ok {
				return nil, false, noOrder()
			}
			kv := NewVec(kt, 0)
			kv.S, kv.N = keys, len(keys)
			if len(keys) < n {
				return kv, false, nil
			}
			// the next step starts past the last key read
			last := TextBound{Value: keys[len(keys)-1], Set: true, Strict: true}
			if o.desc {
				hi = last
			} else {
				lo = last
			}
			return kv, true, nil
		}, nil
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if s.rng != nil {
		var empty bool
		var err error
		if lo, hi, empty, err = s.rng.bounds(ec); err != nil || empty {
			return nil, err
		}
	}
	return func(n int) (*Vec, bool, error) {
		keys, ok, err := rs.KeysInRange(ec.run.ctx, o.col, lo, hi, o.desc, n)
		if err != nil {
			return nil, false, stopOK(err)
		}
		if !ok {
			return nil, false, noOrder()
		}
		kv := NewVec(kt, 0)
		kv.I, kv.N = keys, len(keys)
		if len(keys) == 0 {
			return kv, false, nil
		}
		last := keys[len(keys)-1]
		if len(keys) < n || (o.desc && last == math.MinInt64) || (!o.desc && last == math.MaxInt64) {
			return kv, false, nil
		}
		if o.desc {
			hi = last - 1
		} else {
			lo = last + 1
		}
		return kv, true, nil
	}, nil
}

// orderedJoin runs a lookup join batch by batch in its left input's
// order (an inner or semi join's probe keeps the left rows' order).
type orderedJoin struct {
	j    *joinNode
	ip   *indexProbe
	left plan
}

func (o *orderedJoin) columns() []colInfo { return o.j.columns() }

func (o *orderedJoin) run(ec *evalCtx, emit func(*Batch) error) error {
	recordMethod(ec, o.j, "lookup")
	var sc probeScratch
	return o.left.run(ec, func(lb *Batch) error {
		if lb.Live() == 0 {
			return nil
		}
		return o.j.probeLookup(ec, o.ip, lb, &sc, emit)
	})
}

// runOrdered is a top-N sort over in, whose rows arrive ordered by the
// first sort key: it stops reading once no later row can enter the top
// N (see the comment at the top of this file).
func (s *sortNode) runOrdered(ec *evalCtx, in plan, emit func(*Batch) error) error {
	t := s.newTopN(false)
	first := s.keys[:1]
	var kth *Batch // the first key of the limit-th row to arrive
	seen := int64(0)
	if o := findOrderedScan(in); o != nil {
		o.enough = func() bool { return seen >= s.topN }
	}
	err := in.run(ec, func(b *Batch) error {
		if err := t.add(ec, b, 0); err != nil {
			return err
		}
		last := -1
		forEach(b.N, b.Sel, func(r int) {
			seen++
			if seen == s.topN {
				kth = &Batch{N: 1, Cols: make([]*Vec, len(b.Cols))}
				for i, c := range b.Cols {
					kth.Cols[i] = c.Gather([]int32{int32(r)})
				}
			}
			last = r
		})
		if kth != nil && last >= 0 && cmpKeysAcross(b.Cols, last, kth.Cols, 0, first) > 0 {
			return errStop
		}
		return nil
	})
	if err != nil && err != errStop {
		t.buf.free(ec.run)
		if err == errOrderedGiveUp {
			return s.runTopN(ec, emit)
		}
		return err
	}
	buf := t.buf
	defer buf.free(ec.run)
	full := buf.batch()
	perm := allRows(full.N)
	sortPerm(perm, full.Cols, s.keys)
	out := &Batch{N: full.N, Cols: make([]*Vec, len(full.Cols))}
	for i, c := range full.Cols {
		out.Cols[i] = c.Gather(perm)
	}
	return emitChunks(out, emit)
}

// findOrderedScan returns the ordered scan feeding p (an ordered input
// made for this run), nil when there is none.
func findOrderedScan(p plan) *orderedScan {
	switch x := p.(type) {
	case *instrNode:
		return findOrderedScan(x.input)
	case *filterNode:
		return findOrderedScan(x.input)
	case *projectNode:
		return findOrderedScan(x.input)
	case *orderedJoin:
		return findOrderedScan(x.left)
	case *orderedScan:
		return x
	}
	return nil
}

// markOrdered records, for EXPLAIN, the scans and joins of an ordered
// input (orderedInput's copy) by the nodes they stand for.
func markOrdered(p plan, scans map[*scanNode]*orderedScan, joins map[*joinNode]bool) {
	switch x := p.(type) {
	case *instrNode:
		markOrdered(x.input, scans, joins)
	case *filterNode:
		markOrdered(x.input, scans, joins)
	case *projectNode:
		markOrdered(x.input, scans, joins)
	case *orderedJoin:
		joins[x.j] = true
		markOrdered(x.left, scans, joins)
	case *orderedScan:
		scans[x.s] = x
	}
}
