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
}

func (j *joinNode) columns() []colInfo { return j.cols }

func (j *joinNode) run(ec *evalCtx, emit func(*Batch) error) error {
	rbuf, err := collect(ec, j.right)
	if err != nil {
		return err
	}
	defer rbuf.free(ec.run)
	right := rbuf.batch()
	nl := len(j.left.columns())
	// build
	var table map[string][]int32
	var itable map[int64]int32 // single int key fast path: first row per key
	var inext []int32          // chain of further rows with the same key (-1 ends)
	var dense []int32          // dense alternative to itable: first row of key denseLo+i
	var denseLo int64
	if len(j.rightKeys) > 0 {
		table = map[string][]int32{}
		kv := make([]*Vec, len(j.rightKeys))
		for i, k := range j.rightKeys {
			v, err := k.Eval(ec, right, nil)
			if err != nil {
				return err
			}
			kv[i] = v
		}
		var kb []byte
		if len(kv) == 1 && kv[0].T.Kind() == KInt {
			inext = make([]int32, right.N)
			lo, hi, any := int64(0), int64(0), false
			for r := 0; r < right.N; r++ {
				if kv[0].IsNull(r) {
					continue
				}
				k := kv[0].I[r]
				if !any || k < lo {
					lo = k
				}
				if !any || k > hi {
					hi = k
				}
				any = true
			}
			span := uint64(hi - lo)
			if any && span < 1<<26 && span <= 16*uint64(right.N) {
				// dense key range: a direct table instead of a hash map
				dense = make([]int32, span+1)
				for i := range dense {
					dense[i] = -1
				}
				denseLo = lo
				for r := right.N - 1; r >= 0; r-- {
					if kv[0].IsNull(r) {
						continue
					}
					k := kv[0].I[r] - lo
					inext[r] = dense[k]
					dense[k] = int32(r)
				}
				if err := ec.run.budget.reserve(int64(len(dense)) * 4); err != nil {
					return err
				}
				defer ec.run.budget.release(int64(len(dense)) * 4)
			} else {
				itable = make(map[int64]int32, right.N)
				// insert in reverse so each chain lists rows in input order
				for r := right.N - 1; r >= 0; r-- {
					if kv[0].IsNull(r) {
						continue
					}
					k := kv[0].I[r]
					if h, ok := itable[k]; ok {
						inext[r] = h
					} else {
						inext[r] = -1
					}
					itable[k] = int32(r)
				}
			}
		} else {
			for r := 0; r < right.N; r++ {
				var hasNull bool
				kb, hasNull = rowKey(kb[:0], kv, r)
				if hasNull {
					continue
				}
				table[string(kb)] = append(table[string(kb)], int32(r))
			}
		}
		if err := ec.run.budget.reserve(int64(right.N) * 24); err != nil {
			return err
		}
		defer ec.run.budget.release(int64(right.N) * 24)
	}
	var rightMatched []bool
	if j.kind == joinRight || j.kind == joinFull {
		rightMatched = make([]bool, right.N)
	}
	probe := func(lb *Batch) error {
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
		// candidate pairs
		var li, ri []int32
		if table != nil {
			kv := make([]*Vec, len(j.leftKeys))
			for i, k := range j.leftKeys {
				v, err := k.Eval(ec, lb, lb.Sel)
				if err != nil {
					return err
				}
				kv[i] = v
			}
			var kb []byte
			if dense != nil {
				k0 := kv[0]
				span := uint64(len(dense))
				forEach(lb.N, lb.Sel, func(l int) {
					if k0.IsNull(l) {
						return
					}
					off := uint64(k0.I[l] - denseLo)
					if off >= span {
						return
					}
					for r := dense[off]; r >= 0; r = inext[r] {
						li = append(li, int32(l))
						ri = append(ri, r)
					}
				})
			} else if itable != nil {
				k0 := kv[0]
				forEach(lb.N, lb.Sel, func(l int) {
					if k0.IsNull(l) {
						return
					}
					r, ok := itable[k0.I[l]]
					if !ok {
						return
					}
					for ; r >= 0; r = inext[r] {
						li = append(li, int32(l))
						ri = append(ri, r)
					}
				})
			} else {
				forEach(lb.N, lb.Sel, func(l int) {
					var hasNull bool
					kb, hasNull = rowKey(kb[:0], kv, l)
					if hasNull {
						return
					}
					for _, r := range table[string(kb)] {
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
		if err := ec.run.budget.reserve(int64(len(li)) * 8); err != nil {
			return err
		}
		ec.run.budget.release(int64(len(li)) * 8)
		pairs := &Batch{N: len(li), Cols: make([]*Vec, nl+len(right.Cols))}
		for c := 0; c < nl; c++ {
			pairs.Cols[c] = lb.Cols[c].Gather(li)
		}
		for c := range right.Cols {
			pairs.Cols[nl+c] = right.Cols[c].Gather(ri)
		}
		if j.residual != nil && pairs.N > 0 {
			v, err := j.residual.Eval(ec, pairs, nil)
			if err != nil {
				return err
			}
			var keep []int32
			for p := 0; p < pairs.N; p++ {
				if !v.IsNull(p) && v.B[p] {
					keep = append(keep, int32(p))
				}
			}
			nli, nri := make([]int32, len(keep)), make([]int32, len(keep))
			for k, p := range keep {
				nli[k], nri[k] = li[p], ri[p]
			}
			li, ri = nli, nri
			pairs.Sel = keep
			if len(keep) == 0 {
				pairs.Sel = []int32{}
			}
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
			matched := make(map[int32]bool, len(li))
			for _, l := range li {
				matched[l] = true
			}
			// emit matches and null-extended unmatched left rows, in left order
			var ol, or []int32
			p := 0
			forEach(lb.N, lb.Sel, func(l int) {
				if !matched[int32(l)] {
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
			return emitPairs(lb, right, nl, ol, or, emit)
		}
		if len(li) == 0 {
			return nil
		}
		return emit(pairs)
	}
	// bound the candidate pairs materialized at once: a nested loop pairs
	// every left row with every right row
	chunk := batchSize
	if table == nil && right.N > 0 {
		chunk = max(1, maxPairs/right.N)
	}
	err = j.left.run(ec, func(lb *Batch) error {
		rows := lb.Sel
		if rows == nil {
			rows = allRows(lb.N)
		}
		for lo := 0; lo < len(rows); lo += chunk {
			hi := min(lo+chunk, len(rows))
			if err := probe(&Batch{Cols: lb.Cols, N: lb.N, Sel: rows[lo:hi]}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if rightMatched != nil {
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

func emitPairs(lb, right *Batch, nl int, li, ri []int32, emit func(*Batch) error) error {
	if len(li) == 0 {
		return nil
	}
	out := &Batch{N: len(li), Cols: make([]*Vec, nl+len(right.Cols))}
	for c := 0; c < nl; c++ {
		out.Cols[c] = lb.Cols[c].Gather(li)
	}
	for c := range right.Cols {
		out.Cols[nl+c] = right.Cols[c].Gather(ri)
	}
	return emit(out)
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
			return int64(len(x.keyVals))
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
	}
	return -1
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
	sw := &joinNode{left: j.right, right: j.left, kind: joinInner, leftKeys: j.rightKeys, rightKeys: j.leftKeys,
		cols: append(append([]colInfo{}, j.right.columns()...), j.left.columns()...)}
	if j.residual != nil {
		// residual columns: left i -> nr+i, right nl+i -> i
		sw.residual, _ = rewriteCols(j.residual, func(c *colRef) Expr {
			if c.idx < nl {
				return &colRef{idx: nr + c.idx, t: c.t, name: c.name}
			}
			return &colRef{idx: c.idx - nl, t: c.t, name: c.name}
		})
	}
	exprs := make([]Expr, 0, nl+nr)
	for i, c := range j.left.columns() {
		exprs = append(exprs, &colRef{idx: nr + i, t: c.t})
	}
	for i, c := range j.right.columns() {
		exprs = append(exprs, &colRef{idx: i, t: c.t})
	}
	return &projectNode{input: sw, exprs: exprs, cols: j.cols}
}
