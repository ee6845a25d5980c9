package exec

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Index nested-loop joins (lookup joins). A join whose right input is a
// table read through a key index (a primary key, UNIQUE column, CREATE
// INDEX column or an edge table's endpoint: TableDef lookup columns,
// KeyLookupSource) on one of its join keys need not read that table:
// each batch of left rows looks up its distinct keys in the index at
// once (one LookupKeys call per batch of up to batchSize rows), the
// matching rows pass the filters that sat on the scan, and the batch is
// probed against a hash table of just those rows with the ordinary
// probe (so residuals, NULL keys and the inner/left/semi/anti output
// are exactly the hash join's, in the same order).
//
// The choice is adaptive: the left input is buffered until it ends or
// passes lookupJoinLimit (a sixteenth of the indexed table's rows); a
// small left side is then answered by lookups, a large one falls back to
// the hash join with the buffered batches probed first. A left input
// known to be large (a whole-table scan) goes to the hash join at once.
// The settings enable_nestloop and enable_hashjoin (PostgreSQL's names;
// the lookup join is PostgreSQL's nested loop with an inner index scan)
// force one method where both are possible: enable_nestloop = off never
// looks up, enable_hashjoin = off always does when the right side has
// an index on a join key.

// indexProbe says how a join's right input can be read by key.
type indexProbe struct {
	scan    *scanNode
	filters []Expr // the filters between the join and the scan, innermost first
	col     int    // table column looked up
	keyPos  int    // the join key (leftKeys/rightKeys index) on that column
}

// lookupTarget returns how j's right input can be read through an
// index, or nil when it cannot (or the join type needs every right row).
func (j *joinNode) lookupTarget() *indexProbe {
	switch j.kind {
	case joinInner, joinLeft, joinSemi, joinAnti:
	default:
		return nil
	}
	if len(j.rightKeys) == 0 {
		return nil
	}
	var filters []Expr
	p := bare(j.right)
	for {
		f, ok := p.(*filterNode)
		if !ok {
			break
		}
		filters = append(filters, f.pred)
		p = f.input
	}
	s, ok := p.(*scanNode)
	if !ok || s.keyVals != nil {
		return nil
	}
	kl, ok := s.table.Source.(KeyLookupSource)
	if !ok {
		return nil
	}
	keyCols := kl.KeyColumns()
	for k, e := range j.rightKeys {
		c, ok := e.(*colRef)
		if !ok || c.idx < 0 || c.idx >= len(s.colIdx) {
			continue
		}
		tc := s.colIdx[c.idx]
		if tc < 0 || tc >= len(s.table.Columns) || s.table.Columns[tc].Type.OID != c.t.OID || j.leftKeys[k].Type().OID != c.t.OID {
			continue
		}
		for _, kc := range keyCols {
			if kc == tc {
				// innermost first: filters were collected top-down
				for a, b := 0, len(filters)-1; a < b; a, b = a+1, b-1 {
					filters[a], filters[b] = filters[b], filters[a]
				}
				return &indexProbe{scan: s, filters: filters, col: tc, keyPos: k}
			}
		}
	}
	return nil
}

// joinMethodSetting reads a boolean planner setting (default on).
func joinMethodSetting(rc *runCtx, name string) bool {
	if rc == nil || rc.settings == nil {
		return true
	}
	v, ok := rc.settings(name)
	if !ok {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "off", "false", "no", "0", "f", "n":
		return false
	}
	return true
}

// lookupJoinLimit is the left row count up to which a lookup join is
// chosen over a hash join of the indexed table (-1: never; a very large
// number: always).
func (j *joinNode) lookupJoinLimit(rc *runCtx, ip *indexProbe) int64 {
	if !joinMethodSetting(rc, "enable_nestloop") {
		return -1
	}
	if !joinMethodSetting(rc, "enable_hashjoin") {
		return 1 << 62
	}
	limit := ip.scan.table.Source.RowCount() / 16
	if rpk, ok := rowsPerKey(ip.scan.table, ip.col); ok && rpk > 4 {
		// keys with many rows each: lookups pay per row found, so fewer
		// outer rows make hashing the table the cheaper plan
		limit = int64(float64(limit) * 4 / rpk)
	}
	if limit < 64 {
		return -1 // a small table: hashing it costs less than a lookup
	}
	if s, ok := bare(j.left).(*scanNode); ok && s.keyVals == nil && s.rng == nil && s.table.Source.RowCount() > limit {
		return -1 // the whole left table: certainly large
	}
	return limit
}

// runLookup runs j as a lookup join when its left input stays within
// limit rows, else as a hash join that first probes the buffered left
// batches.
func (j *joinNode) runLookup(ec *evalCtx, ip *indexProbe, limit int64, emit func(*Batch) error) error {
	var held []*Batch
	var rows, bytes int64
	var hr *hashRun
	var grace *graceJoin // the right side spilled when hashed (spill_join.go)
	// lookups cost per distinct key: limit counts the outer input's
	// distinct keys, and its rows up to lookupRowsPerKey times as many
	// (the buffered batches' memory)
	keys := newKeyCounter()
	defer func() { ec.run.budget.release(bytes) }()
	err := j.left.run(ec, func(lb *Batch) error {
		if hr != nil {
			return hr.probe(ec, lb, emit)
		}
		if grace != nil {
			return grace.routeChunks(ec, j.leftKeys, lb, grace.left[:])
		}
		if lb.Live() == 0 {
			return nil
		}
		held = append(held, lb)
		rows += int64(lb.Live())
		sz := batchBytes(lb)
		bytes += sz
		if err := ec.run.budget.reserve(sz); err != nil {
			return err
		}
		if rows <= limit {
			return nil
		}
		if limit < 1<<40 && rows <= lookupRowsPerKey*limit {
			count := held[len(held)-1:]
			if !keys.started {
				count, keys.started = held, true // first time past the row limit
			}
			for _, b := range count {
				kv, err := j.leftKeys[ip.keyPos].Eval(ec, b, b.Sel)
				if err != nil {
					return err
				}
				keys.add(kv, b)
			}
			if int64(keys.n()) <= limit {
				return nil
			}
		}
		// too many left rows for lookups: hash the right side
		// (past work_mem it spills: the left rows, held and to come, go
		// to the grace join's partitions)
		recordMethod(ec, j, "hash")
		jt, g, err := j.buildOrSpill(ec)
		if err != nil {
			return err
		}
		if g != nil {
			grace = g
			for _, b := range held {
				if err := grace.routeChunks(ec, j.leftKeys, b, grace.left[:]); err != nil {
					return err
				}
			}
		} else {
			hr = j.hashRunOf(jt)
			for _, b := range held {
				if err := hr.probe(ec, b, emit); err != nil {
					return err
				}
			}
		}
		held = nil
		ec.run.budget.release(bytes)
		bytes = 0
		return nil
	})
	if grace != nil {
		if err != nil {
			grace.close()
			return err
		}
		return j.joinPartitions(ec, grace, emit)
	}
	if hr != nil {
		if !ec.run.keepBuild(j, hr.jt) {
			defer hr.free(ec)
		}
		if err != nil {
			return err
		}
		return hr.finish(ec, emit)
	}
	if err != nil {
		return err
	}
	recordMethod(ec, j, "lookup")
	if len(held) == 0 {
		return nil
	}
	var sc probeScratch
	return j.probeLookupAll(ec, ip, held, &sc, emit)
}

// probeLookup joins the live rows of lb with the right rows whose key is
// one of lb's: one index lookup for the batch's distinct keys, then the
// hash probe against those rows.
func (j *joinNode) probeLookup(ec *evalCtx, ip *indexProbe, lb *Batch, sc *probeScratch, emit func(*Batch) error) error {
	return j.probeLookupAll(ec, ip, []*Batch{lb}, sc, emit)
}

// probeLookupAll is probeLookup for several batches: their distinct keys
// are looked up once (a key repeated across batches is read once), and
// each batch is probed in turn.
func (j *joinNode) probeLookupAll(ec *evalCtx, ip *indexProbe, lbs []*Batch, sc *probeScratch, emit func(*Batch) error) error {
	keys := NewVec(ip.scan.table.Columns[ip.col].Type, 0)
	// the distinct keys: int keys through an open-addressing slot table
	// sized for every outer row (int_slots.go; no generic hashing, no
	// per-key string), others by their encoded bytes
	var ints *intSlots
	var seen map[string]struct{}
	if keys.T.Kind() == KInt {
		n := 0
		for _, lb := range lbs {
			n += lb.Live()
		}
		ints = newIntSlots(n)
	} else {
		seen = map[string]struct{}{}
	}
	var kb []byte
	var pick []int32
	distinct := 0
	for _, lb := range lbs {
		kv, err := j.leftKeys[ip.keyPos].Eval(ec, lb, lb.Sel)
		if err != nil {
			return err
		}
		pick = pick[:0]
		forEach(lb.N, lb.Sel, func(l int) {
			if kv.IsNull(l) {
				return
			}
			if ints != nil {
				before := ints.n
				if ints.slotOf(kv.I[l]); ints.n == before {
					return // seen before
				}
			} else {
				kb = appendKey(kb[:0], kv, l)
				if _, ok := seen[string(kb)]; ok {
					return
				}
				seen[string(kb)] = struct{}{}
			}
			distinct++
			pick = append(pick, int32(l))
		})
		if len(pick) > 0 { // (a nil selection would append every row)
			keys.appendVec(kv, pick)
		}
	}
	keys.N = distinct
	var in plan = &lookupNode{scan: ip.scan, col: ip.col, keys: keys}
	for _, f := range ip.filters {
		in = &filterNode{input: in, pred: f}
	}
	buf := newBuffer(typesOf(j.right.columns()))
	start := time.Now()
	if keys.N > 0 {
		if err := in.run(ec, func(b *Batch) error { return buf.add(ec.run, b) }); err != nil {
			buf.free(ec.run)
			return err
		}
	}
	recordLookups(j.right, buf.n, time.Since(start))
	jt, err := j.index(ec, buf)
	if err != nil {
		return err
	}
	defer jt.free(ec.run)
	for _, lb := range lbs {
		if err := j.probe(ec, jt, lb, sc, nil, nil, emit); err != nil {
			return err
		}
	}
	return nil
}

// lookupNode reads the rows of a scan's table whose key column col holds
// one of keys (distinct, of the column's type), with the scan's
// projection.
type lookupNode struct {
	scan *scanNode
	col  int
	keys *Vec
}

func (n *lookupNode) columns() []colInfo { return n.scan.cols }

func (n *lookupNode) run(ec *evalCtx, emit func(*Batch) error) error {
	s := n.scan
	if ok, err := s.keyOnly(ec, n.col, n.keys, emit); ok {
		return err
	}
	req, conv := s.prepare()
	src := s.table.Source.(KeyLookupSource)
	return stopOK(src.LookupKeys(ec.run.ctx, n.col, n.keys, req, func(rec arrow.RecordBatch, addrs []uint64) error {
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
		nr := int(rec.NumRows())
		for lo := 0; lo < nr; lo += batchSize {
			b, err := conv.batch(rec, addrs, lo, min(lo+batchSize, nr))
			if err != nil {
				return err
			}
			if err := emit(b); err != nil {
				return err
			}
		}
		return nil
	}))
}

// runSwapped runs the inner join j whose left input is the indexed one:
// the right input (the build side, collected in any case) drives lookups
// into the left table through sw (j with its inputs exchanged) when it
// has at most limit rows; the output columns are put back in j's order.
// More rows make it an ordinary hash join over what was collected.
func (j *joinNode) runSwapped(ec *evalCtx, sw *joinNode, ip *indexProbe, limit int64, emit func(*Batch) error) error {
	// the right rows are collected for lookups; once they are too many
	// for lookups and pass work_mem they spill as a grace join's build
	// side (spill_join.go) instead of growing to the statement's cap
	var g *graceJoin
	spill := j.graceable()
	wm := workMem(ec.run)
	rbuf := newBuffer(typesOf(j.right.columns()))
	err := j.right.run(ec, func(b *Batch) error {
		if g != nil {
			return g.routeChunks(ec, j.rightKeys, b, g.right[:])
		}
		if err := rbuf.add(ec.run, b); err != nil {
			return err
		}
		if spill && int64(rbuf.n) > limit && (rbuf.bytes > wm || ec.run.budget.underPressure()) {
			g = &graceJoin{}
			err := g.routeChunks(ec, j.rightKeys, rbuf.batch(), g.right[:])
			rbuf.free(ec.run)
			rbuf = newBuffer(rbuf.types)
			return err
		}
		return nil
	})
	if err != nil {
		rbuf.free(ec.run)
		if g != nil {
			g.close()
		}
		return err
	}
	if g != nil {
		recordMethod(ec, j, "hash")
		return j.runGrace(ec, g, emit)
	}
	if int64(rbuf.n) > limit {
		recordMethod(ec, j, "hash")
		jt, err := j.index(ec, rbuf)
		if err != nil {
			return err
		}
		hr := j.hashRunOf(jt)
		defer hr.free(ec)
		if err := j.left.run(ec, func(lb *Batch) error { return hr.probe(ec, lb, emit) }); err != nil {
			return err
		}
		return hr.finish(ec, emit)
	}
	recordMethod(ec, j, "lookup swapped")
	defer rbuf.free(ec.run)
	nr := len(j.right.columns())
	back := func(b *Batch) error {
		out := &Batch{N: b.N, Sel: b.Sel, Cols: make([]*Vec, 0, len(b.Cols))}
		out.Cols = append(append(out.Cols, b.Cols[nr:]...), b.Cols[:nr]...)
		return emit(out)
	}
	var sc probeScratch
	return emitChunks(rbuf.batch(), func(b *Batch) error { return sw.probeLookup(ec, ip, b, &sc, back) })
}

// estimate is the join's estimated output: a lookup on a primary key or
// UNIQUE column finds at most one row per outer row, other joins are
// guessed at their larger input (semi and anti joins at their left).
func (j *joinNode) estimate() int64 {
	l, r := explainRows(j.left), explainRows(j.right)
	switch j.kind {
	case joinSemi, joinAnti:
		return l
	}
	if l < 0 || r < 0 {
		return -1
	}
	perKey := func(ip *indexProbe, outer int64) int64 {
		if uniqueColumn(ip.scan.table, ip.col) {
			return outer
		}
		if rpk, ok := rowsPerKey(ip.scan.table, ip.col); ok {
			return int64(float64(outer)*rpk + 0.5) // ANALYZE's distinct count
		}
		return 4 * outer // no statistics: a guess of a few rows per key
	}
	if ip := j.lookupTarget(); ip != nil && l < r {
		return perKey(ip, l)
	}
	if sw := j.swapped(); sw != nil && r < l {
		// the small right side looks up into the left (runSwapped)
		if ip := sw.lookupTarget(); ip != nil {
			return perKey(ip, r)
		}
	}
	return max(l, r)
}

// uniqueColumn reports whether col alone is the table's primary key or a
// UNIQUE constraint or index.
func uniqueColumn(td *TableDef, col int) bool {
	if len(td.PrimaryKey) == 1 && td.PrimaryKey[0] == col {
		return true
	}
	for _, u := range td.Unique {
		if len(u) == 1 && u[0] == col {
			return true
		}
	}
	for _, ix := range td.Indexes {
		if ix.Unique && !ix.Computed() && len(ix.Columns) == 1 && ix.Columns[0] == col {
			return true
		}
	}
	return false
}

// lookupRowsPerKey bounds the outer rows a lookup join buffers to this
// many times its key limit (rows repeating few keys still look up few).
const lookupRowsPerKey = 4

// keyCounter counts the distinct non-NULL join keys of an outer input.
type keyCounter struct {
	ints    map[int64]struct{}
	other   map[string]struct{}
	kb      []byte
	started bool // the held batches have been counted
}

// newKeyCounter returns an empty counter; its maps are made on first
// use (most lookup joins end within the row limit and never count).
func newKeyCounter() *keyCounter { return &keyCounter{} }

// add counts the keys kv holds for b's live rows.
func (k *keyCounter) add(kv *Vec, b *Batch) {
	forEach(b.N, b.Sel, func(r int) {
		if kv.IsNull(r) {
			return
		}
		if kv.T.Kind() == KInt {
			if k.ints == nil {
				k.ints = map[int64]struct{}{}
			}
			k.ints[kv.I[r]] = struct{}{}
			return
		}
		if k.other == nil {
			k.other = map[string]struct{}{}
		}
		k.kb = appendKey(k.kb[:0], kv, r)
		k.other[string(k.kb)] = struct{}{}
	})
}

func (k *keyCounter) n() int { return len(k.ints) + len(k.other) }
