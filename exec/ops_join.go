package exec

// maxPairs bounds the candidate pairs a nested-loop probe materializes.
const maxPairs = 1 << 16

// joinKind is the join type.
type joinKind uint8

const (
	joinInner joinKind = iota
	joinLeft
	joinRight
	joinFull
	joinSemi
	joinAnti
)

// joinNode is a hash join on equi-keys (nested loop when there are none)
// with an optional residual predicate over the combined row. The right
// input is the build side.
type joinNode struct {
	left, right plan
	kind        joinKind
	leftKeys    []Expr // over left columns
	rightKeys   []Expr // over right columns
	residual    Expr   // over left ++ right columns; nil = none
	cols        []colInfo
	// need marks the output columns the operators above read (nil =
	// all; join_need.go): probes gather only those
	need    []bool
	needSet bool
}

func (j *joinNode) columns() []colInfo { return j.cols }

func (j *joinNode) run(ec *evalCtx, emit func(*Batch) error) error {
	if jt := ec.run.keptBuild(j); jt != nil {
		return j.runKept(ec, jt, emit)
	}
	if pb, ok := ec.run.takePrebuilt(j); ok {
		return j.runPrebuilt(ec, pb, emit)
	}
	if ip := j.lookupTarget(); ip != nil {
		if limit := j.lookupJoinLimit(ec.run, ip); limit >= 0 {
			return j.runLookup(ec, ip, limit, emit)
		}
	}
	if sw := j.swapped(); sw != nil {
		if ip := sw.lookupTarget(); ip != nil {
			if limit := sw.lookupJoinLimit(ec.run, ip); limit >= 0 {
				return j.runSwapped(ec, sw, ip, limit, emit)
			}
		}
	}
	recordMethod(ec, j, "hash")
	jt, spilled, err := j.buildOrSpill(ec)
	if err != nil {
		return err
	}
	if spilled != nil {
		return j.runGrace(ec, spilled, emit)
	}
	hr := j.hashRunOf(jt)
	if !ec.run.keepBuild(j, jt) {
		defer hr.free(ec)
	}
	if err := j.left.run(ec, func(lb *Batch) error { return hr.probe(ec, lb, emit) }); err != nil {
		return err
	}
	return hr.finish(ec, emit)
}

// hashRun is one execution of a hash (or plain nested-loop) join: the
// built right side and the state its probes share.
type hashRun struct {
	j            *joinNode
	jt           *joinTable
	rightMatched []bool
	sc           probeScratch
	chunk        int
}

// hashRunOf starts a hash join run over a built right side.
func (j *joinNode) hashRunOf(jt *joinTable) *hashRun {
	hr := &hashRun{j: j, jt: jt, chunk: batchSize}
	if j.kind == joinRight || j.kind == joinFull {
		hr.rightMatched = make([]bool, jt.right.N)
	}
	// bound the candidate pairs materialized at once: a nested loop pairs
	// every left row with every right row
	if !jt.keyed && jt.right.N > 0 {
		hr.chunk = max(1, maxPairs/jt.right.N)
	}
	return hr
}

func (hr *hashRun) free(ec *evalCtx) { hr.jt.free(ec.run) }

// probe joins one left batch.
func (hr *hashRun) probe(ec *evalCtx, lb *Batch, emit func(*Batch) error) error {
	j, jt := hr.j, hr.jt
	if lb.Live() <= hr.chunk {
		return j.probe(ec, jt, lb, &hr.sc, nil, hr.rightMatched, emit)
	}
	rows := lb.Sel
	if rows == nil {
		rows = allRows(lb.N)
	}
	for lo := 0; lo < len(rows); lo += hr.chunk {
		hi := min(lo+hr.chunk, len(rows))
		if err := j.probe(ec, jt, &Batch{Cols: lb.Cols, N: lb.N, Sel: rows[lo:hi]}, &hr.sc, nil, hr.rightMatched, emit); err != nil {
			return err
		}
	}
	return nil
}

// finish emits the unmatched right rows of right and full joins.
func (hr *hashRun) finish(ec *evalCtx, emit func(*Batch) error) error {
	j, rightMatched := hr.j, hr.rightMatched
	if rightMatched != nil {
		right := hr.jt.right
		nl := len(j.left.columns())
		var ri []int32
		for r, m := range rightMatched {
			if !m {
				ri = append(ri, int32(r))
			}
		}
		if len(ri) > 0 {
			out := &Batch{N: len(ri), Cols: make([]*Vec, nl+len(right.Cols))}
			lcols := j.left.columns()
			neg := make([]int32, len(ri))
			for i := range neg {
				neg[i] = -1
			}
			for c := 0; c < nl; c++ {
				out.Cols[c] = NewVec(lcols[c].t, 0).Gather(neg)
			}
			for c := range right.Cols {
				out.Cols[nl+c] = right.Cols[c].Gather(ri)
			}
			return emitChunks(out, emit)
		}
	}
	return nil
}

// joinTable is the build side of a hash join: the right input's rows and
// an index from key to rows. It is read-only once built, so several
// probes (parallel workers) may share it.
type joinTable struct {
	buf   *buffer
	right *Batch
	keyed bool // equi-join keys (else a nested loop)
	table map[string][]int32
	// single int key (join_csr.go): each key has a slot — key denseLo+i
	// is slot i when dense is set, else itable maps keys to slots — and
	// slot i's rows are start[i] .. start[i+1]-1 of right (perm nil: the
	// build side was put in key order) or of perm
	itable  *intSlots
	dense   bool
	denseLo int64
	start   []int32
	perm    []int32
	// pack (several integer keys): the packing that made them one int
	// key (join_packkeys.go); probes pack their keys the same way
	pack     *keyPack
	reserved int64
}

func (jt *joinTable) free(rc *runCtx) {
	jt.buf.free(rc)
	rc.budget.release(jt.reserved)
	jt.reserved = 0
}

// build collects the right input and indexes it by its join keys.
func (j *joinNode) build(ec *evalCtx) (*joinTable, error) {
	rbuf, err := collectSized(ec, j.right, estimateRows(j.right))
	if err != nil {
		rbuf.free(ec.run)
		return nil, err
	}
	return j.index(ec, rbuf)
}

// index makes a joinTable of the collected right rows (which it owns and
// frees with the table).
func (j *joinNode) index(ec *evalCtx, rbuf *buffer) (*joinTable, error) {
	jt := &joinTable{buf: rbuf, right: rbuf.batch(), keyed: len(j.rightKeys) > 0}
	if !jt.keyed {
		return jt, nil
	}
	right := jt.right
	reserve := func(n int64) error {
		jt.reserved += n
		return ec.run.budget.reserve(n)
	}
	kv := make([]*Vec, len(j.rightKeys))
	for i, k := range j.rightKeys {
		v, err := k.Eval(ec, right, nil)
		if err != nil {
			jt.free(ec.run)
			return nil, err
		}
		kv[i] = v
	}
	if pk, pv := packBuildKeys(kv, exprTypes(j.leftKeys), right.N); pk != nil {
		jt.pack, kv = pk, []*Vec{pv}
	}
	if len(kv) == 1 && kv[0].T.Kind() == KInt {
		if err := jt.indexInt(ec, kv[0], j.reorderBuild()); err != nil {
			jt.free(ec.run)
			return nil, err
		}
	} else {
		jt.table = map[string][]int32{}
		var kb []byte
		for r := 0; r < right.N; r++ {
			var hasNull bool
			kb, hasNull = rowKey(kb[:0], kv, r)
			if hasNull {
				continue
			}
			jt.table[string(kb)] = append(jt.table[string(kb)], int32(r))
		}
	}
	if err := reserve(int64(right.N) * 24); err != nil {
		jt.free(ec.run)
		return nil, err
	}
	return jt, nil
}

// probeScratch holds one prober's reusable pair buffers and NULL
// placeholders for columns it does not materialize.
type probeScratch struct {
	li, ri []int32
	ol, or []int32 // left and full joins: the pairs with NULL-extended rows
	// matched marks the left rows of a batch with a match
	matched []bool
	kb      []byte
	nulls   map[int]*Vec
}

func (sc *probeScratch) placeholder(c int, t Type, n int) *Vec {
	if n <= batchSize {
		return placeholder(t, n) // shared, no batch-sized vector per probe
	}
	v := sc.nulls[c]
	if v == nil || v.N < n {
		if sc.nulls == nil {
			sc.nulls = map[int]*Vec{}
		}
		v = nullVec(t, max(n, batchSize))
		sc.nulls[c] = v
	}
	return v.slice(0, n)
}

// probe joins the live rows of lb with the build side and emits the
// result. need (nil = all) marks the output columns to materialize; the
// others are NULL placeholders (the parallel pipeline passes only what
// the operators above read). rightMatched (right and full joins) records
// the build rows that matched.
func (j *joinNode) probe(ec *evalCtx, jt *joinTable, lb *Batch, sc *probeScratch, need []bool, rightMatched []bool, emit func(*Batch) error) error {
	if err := checkCancel(ec.run.ctx); err != nil {
		return err
	}
	if need == nil {
		need = j.need
	}
	right := jt.right
	nl := len(j.left.columns())
	// candidate pairs
	li, ri := sc.li[:0], sc.ri[:0]
	if jt.keyed {
		kv := make([]*Vec, len(j.leftKeys))
		for i, k := range j.leftKeys {
			v, err := k.Eval(ec, lb, lb.Sel)
			if err != nil {
				return err
			}
			kv[i] = v
		}
		if jt.pack != nil {
			kv = []*Vec{jt.pack.pack(kv, lb.N, lb.Sel)}
		}
		switch {
		case jt.start != nil:
			li, ri = jt.probeInt(kv[0], lb, li, ri)
		default:
			forEach(lb.N, lb.Sel, func(l int) {
				var hasNull bool
				sc.kb, hasNull = rowKey(sc.kb[:0], kv, l)
				if hasNull {
					return
				}
				for _, r := range jt.table[string(sc.kb)] {
					li = append(li, int32(l))
					ri = append(ri, r)
				}
			})
		}
	} else {
		forEach(lb.N, lb.Sel, func(l int) {
			for r := 0; r < right.N; r++ {
				li = append(li, int32(l))
				ri = append(ri, int32(r))
			}
		})
	}
	sc.li, sc.ri = li, ri // keep the grown buffers for the next batch
	if err := ec.run.budget.reserve(int64(len(li)) * 8); err != nil {
		return err
	}
	ec.run.budget.release(int64(len(li)) * 8)
	if j.residual != nil && len(li) > 0 {
		// the residual reads its own columns of every candidate pair; the
		// other columns are gathered below for the pairs it keeps only
		cand := gatherPairs(lb, right, nl, li, ri, residualCols(j.residual, nl+len(right.Cols)), sc)
		v, err := j.residual.Eval(ec, cand, nil)
		if err != nil {
			return err
		}
		var nli, nri []int32
		for p := 0; p < cand.N; p++ {
			if !v.IsNull(p) && v.B[p] {
				nli = append(nli, li[p])
				nri = append(nri, ri[p])
			}
		}
		li, ri = nli, nri
	}
	var pairs *Batch
	if j.kind != joinSemi && j.kind != joinAnti && j.kind != joinLeft && j.kind != joinFull && len(li) > 0 {
		pairs = gatherPairs(lb, right, nl, li, ri, need, sc)
	}
	for _, r := range ri {
		if rightMatched != nil {
			rightMatched[r] = true
		}
	}
	switch j.kind {
	case joinSemi, joinAnti:
		matched := map[int32]bool{}
		for _, l := range li {
			matched[l] = true
		}
		var keep []int32
		forEach(lb.N, lb.Sel, func(l int) {
			if matched[int32(l)] == (j.kind == joinSemi) {
				keep = append(keep, int32(l))
			}
		})
		if len(keep) == 0 {
			return nil
		}
		return emit(&Batch{Cols: lb.Cols, N: lb.N, Sel: keep})
	case joinLeft, joinFull:
		if len(sc.matched) < lb.N {
			sc.matched = make([]bool, max(lb.N, batchSize))
		}
		matched := sc.matched[:lb.N]
		clear(matched)
		for _, l := range li {
			matched[l] = true
		}
		// emit matches and null-extended unmatched left rows, in left order
		ol, or := sc.ol[:0], sc.or[:0]
		defer func() { sc.ol, sc.or = ol, or }()
		p := 0
		forEach(lb.N, lb.Sel, func(l int) {
			if !matched[l] {
				ol = append(ol, int32(l))
				or = append(or, -1)
				return
			}
			for p < len(li) && li[p] < int32(l) {
				p++
			}
			for p < len(li) && li[p] == int32(l) {
				ol = append(ol, li[p])
				or = append(or, ri[p])
				p++
			}
		})
		if len(ol) == 0 {
			return nil
		}
		return emit(gatherPairs(lb, right, nl, ol, or, need, sc))
	}
	if len(li) == 0 {
		return nil
	}
	return emit(pairs)
}

// gatherPairs materializes the pairs (li[k], ri[k]) of left and right
// rows (ri -1: NULL right side); columns outside need (nil = all) are
// NULL placeholders.
func gatherPairs(lb, right *Batch, nl int, li, ri []int32, need []bool, sc *probeScratch) *Batch {
	out := &Batch{N: len(li), Cols: make([]*Vec, nl+len(right.Cols))}
	for c := range out.Cols {
		src := right
		sel, col := ri, c-nl
		if c < nl {
			src, sel, col = lb, li, c
		}
		if need != nil && !need[c] {
			out.Cols[c] = sc.placeholder(c, src.Cols[col].T, len(li))
			continue
		}
		out.Cols[c] = src.Cols[col].Gather(sel)
	}
	return out
}

// residualCols marks the columns a residual predicate reads (nil: none).
func residualCols(residual Expr, n int) []bool {
	need := make([]bool, n)
	if residual != nil {
		markCols(residual, need)
	}
	return need
}

// markCols sets need[i] for every column i that e reads.
func markCols(e Expr, need []bool) {
	walkExpr(e, func(x Expr) {
		if c, ok := x.(*colRef); ok && c.idx >= 0 && c.idx < len(need) {
			need[c.idx] = true
		}
	})
}

// setOpNode is UNION / INTERSECT / EXCEPT [ALL].
type setOpNode struct {
	op          string // "UNION", "INTERSECT", "EXCEPT"
	all         bool
	left, right plan
	cols        []colInfo
}

func (s *setOpNode) columns() []colInfo { return s.cols }

func (s *setOpNode) run(ec *evalCtx, emit func(*Batch) error) error {
	var kb []byte
	switch s.op {
	case "UNION":
		if s.all {
			if err := s.left.run(ec, emit); err != nil {
				return err
			}
			return s.right.run(ec, emit)
		}
		seen := map[string]struct{}{}
		f := func(b *Batch) error {
			var keep []int32
			forEach(b.N, b.Sel, func(i int) {
				kb, _ = rowKey(kb[:0], b.Cols, i)
				if _, ok := seen[string(kb)]; !ok {
					seen[string(kb)] = struct{}{}
					keep = append(keep, int32(i))
				}
			})
			if err := ec.run.budget.reserve(int64(len(keep)) * 32); err != nil {
				return err
			}
			if len(keep) == 0 {
				return nil
			}
			return emit(&Batch{Cols: b.Cols, N: b.N, Sel: keep})
		}
		if err := s.left.run(ec, f); err != nil {
			return err
		}
		return s.right.run(ec, f)
	}
	// INTERSECT / EXCEPT: count right rows, then stream left rows.
	counts := map[string]int{}
	err := s.right.run(ec, func(b *Batch) error {
		forEach(b.N, b.Sel, func(i int) {
			kb, _ = rowKey(kb[:0], b.Cols, i)
			counts[string(kb)]++
		})
		return ec.run.budget.reserve(int64(b.Live()) * 32)
	})
	if err != nil {
		return err
	}
	emitted := map[string]int{}
	return s.left.run(ec, func(b *Batch) error {
		var keep []int32
		forEach(b.N, b.Sel, func(i int) {
			kb, _ = rowKey(kb[:0], b.Cols, i)
			k := string(kb)
			c := counts[k]
			switch {
			case s.op == "INTERSECT" && s.all:
				if c > 0 {
					counts[k]--
					keep = append(keep, int32(i))
				}
			case s.op == "INTERSECT":
				if c > 0 && emitted[k] == 0 {
					emitted[k] = 1
					keep = append(keep, int32(i))
				}
			case s.all: // EXCEPT ALL
				if c > 0 {
					counts[k]--
				} else {
					keep = append(keep, int32(i))
				}
			default: // EXCEPT
				if c == 0 && emitted[k] == 0 {
					emitted[k] = 1
					keep = append(keep, int32(i))
				}
			}
		})
		if len(keep) == 0 {
			return nil
		}
		return emit(&Batch{Cols: b.Cols, N: b.N, Sel: keep})
	})
}

// estimateRows guesses a plan's output size for choosing a join's build
// side (-1 = unknown).
func estimateRows(p plan) int64 {
	switch x := p.(type) {
	case *scanNode:
		if x.keyVals != nil {
			if rpk, ok := rowsPerKey(x.table, x.keyCol); ok {
				return int64(float64(len(x.keyVals))*rpk + 0.5)
			}
			return int64(len(x.keyVals))
		}
		if x.rng != nil {
			return x.rng.estimate(x.table.Source.RowCount())
		}
		return x.table.Source.RowCount()
	case *filterNode:
		if n := estimateRows(x.input); n >= 0 {
			return n/3 + 1
		}
	case *projectNode:
		return estimateRows(x.input)
	case *valuesNode:
		return int64(len(x.rows))
	case *materialNode:
		return estimateRows(x.input)
	case *instrNode:
		return estimateRows(x.input)
	}
	return -1
}

// swapped is the inner equi-join j with its inputs exchanged (columns
// right ++ left), or nil when j is no inner equi-join.
func (j *joinNode) swapped() *joinNode {
	if j.kind != joinInner || len(j.leftKeys) == 0 {
		return nil
	}
	nl, nr := len(j.left.columns()), len(j.right.columns())
	sw := &joinNode{left: j.right, right: j.left, kind: joinInner, leftKeys: j.rightKeys, rightKeys: j.leftKeys,
		cols: append(append([]colInfo{}, j.right.columns()...), j.left.columns()...)}
	if j.need != nil {
		sw.need, sw.needSet = append(append([]bool(nil), j.need[nl:]...), j.need[:nl]...), true
	}
	if j.residual != nil {
		// residual columns: left i -> nr+i, right nl+i -> i
		sw.residual, _ = rewriteCols(j.residual, func(c *colRef) Expr {
			if c.idx < nl {
				return &colRef{idx: nr + c.idx, t: c.t, name: c.name}
			}
			return &colRef{idx: c.idx - nl, t: c.t, name: c.name}
		})
	}
	return sw
}

// buildSmaller swaps an inner equi-join so the smaller estimated input is
// the hash table (build) side, restoring the column order with a
// projection.
func buildSmaller(j *joinNode) plan {
	if j.kind != joinInner || len(j.leftKeys) == 0 {
		return j
	}
	l, r := estimateRows(j.left), estimateRows(j.right)
	if l < 0 || r < 0 || l >= r {
		return j
	}
	nl, nr := len(j.left.columns()), len(j.right.columns())
	sw := j.swapped()
	exprs := make([]Expr, 0, nl+nr)
	for i, c := range j.left.columns() {
		exprs = append(exprs, &colRef{idx: nr + i, t: c.t})
	}
	for i, c := range j.right.columns() {
		exprs = append(exprs, &colRef{idx: i, t: c.t})
	}
	return &projectNode{input: sw, exprs: exprs, cols: j.cols}
}
