package exec

import (
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// oneRowNode is the FROM-less input: one row, no columns.
type oneRowNode struct{}

func (oneRowNode) columns() []colInfo { return nil }
func (oneRowNode) run(_ *evalCtx, emit func(*Batch) error) error {
	return emit(&Batch{N: 1})
}

// valuesNode is VALUES (...), (...): each row's expressions evaluated once.
type valuesNode struct {
	cols []colInfo
	rows [][]Expr
}

func (v *valuesNode) columns() []colInfo { return v.cols }
func (v *valuesNode) run(ec *evalCtx, emit func(*Batch) error) error {
	buf := newBuffer(typesOf(v.cols))
	one := &Batch{N: 1}
	for _, row := range v.rows {
		out := &Batch{N: 1, Cols: make([]*Vec, len(row))}
		for i, e := range row {
			x, err := e.Eval(ec, one, nil)
			if err != nil {
				return err
			}
			out.Cols[i] = x
		}
		if err := buf.add(ec.run, out); err != nil {
			return err
		}
	}
	defer buf.free(ec.run)
	return emitChunks(buf.batch(), emit)
}

// scanNode reads a table through its TableSource with column pruning,
// filter hints and, when possible, a key lookup.
type scanNode struct {
	table   *TableDef
	alias   string // the FROM item's alias ("" = none; EXPLAIN prints it)
	cols    []colInfo
	colIdx  []int
	filters []ScanFilter
	// key lookup: column index into the table and the key expressions
	keyCol  int
	keyVals []Expr
	// keyConj is the WHERE conjunct the key lookup answers exactly (an
	// identity-typed key compared with a value of its own type); the
	// filter above the scan leaves it out
	keyConj Expr
	// rng is a range on an integer key column (keyrange.go) used when
	// there is no key lookup: keyCol is its column
	rng *keyRange
	// used marks the columns the query reads; the others are not fetched
	// and arrive as NULL placeholders (nil = all)
	used []bool
	// proj is prepare's projection and knownKey's variant of it, made on
	// first use (used is final once the plan is bound)
	projOnce sync.Once
	proj     scanProjection
	kkOnce   sync.Once
	kk       scanProjection
}

// scanProjection is the columns a scan fetches and where each output
// column comes from (scanConv.pos).
type scanProjection struct {
	cols      []int
	pos       []int
	needAddrs bool
	ok        bool // knownKey: the key column is fetched and can be dropped
}

func (s *scanNode) columns() []colInfo { return s.cols }

func (s *scanNode) run(ec *evalCtx, emit func(*Batch) error) error {
	req, conv := s.prepare()
	keys, err := s.lookupKeys(ec)
	if err != nil {
		return err
	}
	if keys != nil {
		if ok, err := s.keyOnly(ec, s.keyCol, distinctKeys(keys), emit); ok {
			return err
		}
		req, conv = conv.knownKey(req, keys)
	}
	return s.readKeys(ec, req, keys, func(rec arrow.RecordBatch, addrs []uint64) error {
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
		n := int(rec.NumRows())
		for lo := 0; lo < n; lo += batchSize {
			b, err := conv.batch(rec, addrs, lo, min(lo+batchSize, n))
			if err != nil {
				return err
			}
			if err := emit(b); err != nil {
				return err
			}
		}
		return nil
	})
}

// scanConv turns row ranges of a source's records into batches. It keeps
// a cache of NULL placeholders, so each goroutine needs its own.
type scanConv struct {
	s     *scanNode
	pos   []int        // output column -> record column; -1 = not fetched, -2 = row address, -3 = tableoid, posKnownKey = key
	nulls map[int]*Vec // placeholder per column and length (Vecs are immutable)
	key   *Vec         // the one key value of a lookup (posKnownKey), see knownKey
}

// prepare computes the scan request (projection, filter hints) and a
// converter for the records it yields. The projection depends only on
// the bound plan, so it is worked out once (shared read-only by every
// execution; sources must not modify req.Columns).
func (s *scanNode) prepare() (ScanRequest, *scanConv) {
	s.projOnce.Do(func() {
		pos := make([]int, len(s.cols))
		var cols []int
		for i, c := range s.colIdx {
			pos[i] = -1
			if c == rowAddrIdx {
				if s.used == nil || s.used[i] {
					pos[i] = -2
					s.proj.needAddrs = true
				}
				continue
			}
			if c == tableOIDIdx {
				if s.used == nil || s.used[i] {
					pos[i] = -3
				}
				continue
			}
			if s.used == nil || s.used[i] {
				pos[i] = len(cols)
				cols = append(cols, c)
			}
		}
		s.proj.cols, s.proj.pos = cols, pos
	})
	req := ScanRequest{Filters: s.filters, Columns: s.proj.cols, NeedAddrs: s.proj.needAddrs}
	return req, &scanConv{s: s, pos: s.proj.pos}
}

// fork returns a converter for another goroutine.
func (c *scanConv) fork() *scanConv {
	return &scanConv{s: c.s, pos: c.pos, key: c.key}
}

// batch converts rows [lo, hi) of rec.
func (c *scanConv) batch(rec arrow.RecordBatch, addrs []uint64, lo, hi int) (*Batch, error) {
	n := int(rec.NumRows())
	b := &Batch{N: hi - lo, Cols: make([]*Vec, len(c.s.cols))}
	for i, p := range c.pos {
		switch {
		case p == -2:
			b.Cols[i] = addrVec(addrs, lo, hi)
		case p == posKnownKey:
			b.Cols[i] = broadcast(c.key, 0, hi-lo)
		case p == -3:
			v := NewVec(TOid, hi-lo)
			for k := range v.I {
				v.I[k] = int64(c.s.table.OID)
			}
			b.Cols[i] = v
		case p < 0:
			v, ok := c.nulls[i]
			if !ok || v.N != hi-lo {
				v = placeholder(c.s.cols[i].t, hi-lo)
				if c.nulls == nil {
					c.nulls = map[int]*Vec{}
				}
				c.nulls[i] = v
			}
			b.Cols[i] = v
		default:
			arr := rec.Column(p)
			if lo != 0 || hi != n {
				arr = sliceArray(arr, lo, hi)
			}
			v, err := vecFromArrow(arr, c.s.cols[i].t)
			if err != nil {
				return nil, err
			}
			b.Cols[i] = v
		}
	}
	return b, nil
}

// columns converts rows [lo, hi) of rec into whole column vectors (one
// conversion for a unit of many batches, sliced with Vec.sliceInto).
func (c *scanConv) columns(rec arrow.RecordBatch, addrs []uint64, lo, hi int) ([]*Vec, error) {
	b, err := c.batch(rec, addrs, lo, hi)
	if err != nil {
		return nil, err
	}
	return b.Cols, nil
}

// read streams the source's records for req: through the key index when
// the scan is a key lookup the source supports, else a full scan.
func (s *scanNode) read(ec *evalCtx, req ScanRequest, fn func(rec arrow.RecordBatch, addrs []uint64) error) error {
	keys, err := s.lookupKeys(ec)
	if err != nil {
		return err
	}
	return s.readKeys(ec, req, keys, fn)
}

// lookupKeys evaluates the key lookup's values in the key column's type,
// or returns nil when the scan is no key lookup the source supports. A
// value that cannot be represented in that type matches nothing and is
// left out.
func (s *scanNode) lookupKeys(ec *evalCtx) (*Vec, error) {
	if s.keyVals == nil {
		return s.rangeKeys(ec)
	}
	if _, ok := s.table.Source.(KeyLookupSource); !ok {
		return nil, nil
	}
	keys := NewVec(s.table.Columns[s.keyCol].Type, 0)
	for _, e := range s.keyVals {
		v, err := evalConst(ec, e)
		if err != nil {
			return nil, err
		}
		if v.T.OID != keys.T.OID {
			cv := NewVec(keys.T, 1)
			if err := castRows(ec, v, cv, nonNull(1, nil, cv, v), false); err != nil {
				continue
			}
			v = cv
		}
		keys.appendVec(v, nil)
	}
	return distinctKeys(keys), nil
}

// readKeys streams the records for req through the key index for keys
// (from lookupKeys), or the whole source when keys is nil.
func (s *scanNode) readKeys(ec *evalCtx, req ScanRequest, keys *Vec, fn func(rec arrow.RecordBatch, addrs []uint64) error) error {
	if keys != nil {
		return stopOK(s.table.Source.(KeyLookupSource).LookupKeys(ec.run.ctx, s.keyCol, keys, req, fn))
	}
	return stopOK(s.table.Source.Scan(ec.run.ctx, req, fn))
}

func stopOK(err error) error {
	if err == errStop {
		return err
	}
	if err != nil && Code(err) == "" && ctxErr(err) {
		return &Error{Code: CodeQueryCanceled, Message: "canceling statement due to user request"}
	}
	return err
}

// filterNode keeps rows where pred is true by narrowing the selection.
type filterNode struct {
	input plan
	pred  Expr
}

func (f *filterNode) columns() []colInfo { return f.input.columns() }
func (f *filterNode) run(ec *evalCtx, emit func(*Batch) error) error {
	return f.input.run(ec, func(b *Batch) error {
		v, err := f.pred.Eval(ec, b, b.Sel)
		if err != nil {
			return err
		}
		sel := selectTrue(v, b.N, b.Sel)
		if len(sel) == 0 {
			return nil
		}
		return emit(&Batch{Cols: b.Cols, N: b.N, Sel: sel})
	})
}

// projectNode computes expressions into a dense batch.
type projectNode struct {
	input plan
	exprs []Expr
	cols  []colInfo
	alias []int // nil, or per column: -1, or the column whose value it repeats (volatileSortAliases)
	view  bool  // a view's columns over its query (filters may move below it: pushIntoView)
}

func (p *projectNode) columns() []colInfo { return p.cols }
func (p *projectNode) run(ec *evalCtx, emit func(*Batch) error) error {
	rowMajor := rowMajorExprs(p.exprs, p.alias) // volatile calls in PostgreSQL's order
	return p.input.run(ec, func(b *Batch) error {
		out, err := projectBatchOrdered(ec, p.exprs, rowMajor, p.alias, b)
		if err != nil {
			return err
		}
		return emit(out)
	})
}

// projectBatch evaluates exprs over the live rows of b into a dense batch.
func projectBatch(ec *evalCtx, exprs []Expr, b *Batch) (*Batch, error) {
	out := &Batch{N: b.Live(), Cols: make([]*Vec, len(exprs))}
	for i, e := range exprs {
		v, err := e.Eval(ec, b, b.Sel)
		if err != nil {
			return nil, err
		}
		if b.Sel != nil {
			v = v.Gather(b.Sel)
		}
		out.Cols[i] = v
	}
	return out, nil
}

// limitNode applies OFFSET then LIMIT and stops its input early.
type limitNode struct {
	input         plan
	limit, offset Expr // nil when absent
}

func (l *limitNode) columns() []colInfo { return l.input.columns() }
func (l *limitNode) run(ec *evalCtx, emit func(*Batch) error) error {
	lim, off := int64(-1), int64(0)
	if l.limit != nil {
		v, err := evalConst(ec, l.limit)
		if err != nil {
			return err
		}
		if !v.IsNull(0) {
			lim = v.I[0]
			if lim < 0 {
				return errf(CodeInvalidRowCountLimit, "LIMIT must not be negative")
			}
		}
	}
	if l.offset != nil {
		v, err := evalConst(ec, l.offset)
		if err != nil {
			return err
		}
		if !v.IsNull(0) {
			off = v.I[0]
			if off < 0 {
				return errf(CodeInvalidRowCountOffset, "OFFSET must not be negative")
			}
		}
	}
	if lim == 0 {
		return nil
	}
	var seen, sent int64
	err := l.input.run(ec, func(b *Batch) error {
		sel := b.Sel
		if sel == nil {
			sel = allRows(b.N)
		}
		var keep []int32
		for _, i := range sel {
			seen++
			if seen <= off {
				continue
			}
			if lim >= 0 && sent >= lim {
				break
			}
			keep = append(keep, i)
			sent++
		}
		if len(keep) > 0 {
			if err := emit(&Batch{Cols: b.Cols, N: b.N, Sel: keep}); err != nil {
				return err
			}
		}
		if lim >= 0 && sent >= lim {
			return errStop
		}
		return nil
	})
	if err == errStop {
		return nil
	}
	return err
}

// sortKey orders by a column of the input.
type sortKey struct {
	col        int
	desc       bool
	nullsFirst bool
}

// sortNode is a full sort (or top-N when limit >= 0) by a permutation.
type sortNode struct {
	input plan
	keys  []sortKey
	topN  int64 // > 0: only the first topN rows are needed (LIMIT+OFFSET)
}

func (s *sortNode) columns() []colInfo { return s.input.columns() }
func (s *sortNode) run(ec *evalCtx, emit func(*Batch) error) error {
	if s.topN <= 0 {
		types := typesOf(s.input.columns())
		sp := &sortSpill{s: s, types: types, limit: workMem(ec.run), buf: newBuffer(types)}
		if err := s.input.run(ec, func(b *Batch) error { return sp.add(ec, b) }); err != nil {
			sp.close(ec)
			return err
		}
		return sp.finish(ec, emit)
	}
	if len(s.keys) == 0 {
		return s.runTopN(ec, emit)
	}
	if in := orderedInput(ec.run, s.input, s.keys[0].col, s.keys[0]); in != nil {
		return s.runOrdered(ec, in, emit)
	}
	return s.runTopN(ec, emit)
}

// runTopN is a top-N sort reading all of its input.
func (s *sortNode) runTopN(ec *evalCtx, emit func(*Batch) error) error {
	if pl, w := s.parallelPlan(); pl != nil {
		err := s.runParallelTopN(ec, pl, w, emit)
		if err != errPipelineSpilled {
			return err
		}
		defer ec.run.dropPrebuilt()
	}
	buf, err := s.collectTopN(ec)
	if err != nil {
		return err
	}
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

// sortPerm sorts a row permutation stably by keys. A leading int, float
// or text key gets a typed comparison; later keys only break its ties.
func sortPerm(perm []int32, cols []*Vec, keys []sortKey) {
	if len(keys) > 0 {
		k := keys[0]
		c := cols[k.col]
		rest := keys[1:]
		tie := func(a, b int32) int {
			if len(rest) == 0 {
				return 0
			}
			return cmpKeys(cols, rest, int(a), int(b))
		}
		nullCmp := func(a, b int32) (int, bool) {
			an, bn := c.IsNull(int(a)), c.IsNull(int(b))
			switch {
			case an && bn:
				return 0, true
			case an:
				if k.nullsFirst {
					return -1, true
				}
				return 1, true
			case bn:
				if k.nullsFirst {
					return 1, true
				}
				return -1, true
			}
			return 0, false
		}
		dir := 1
		if k.desc {
			dir = -1
		}
		var typed func(a, b int32) int
		switch {
		case c.T.Kind() == KInt:
			typed = func(a, b int32) int { return dir * cmpInt(c.I[a], c.I[b]) }
		case c.T.Kind() == KFloat:
			typed = func(a, b int32) int { return dir * cmpFloat(c.F[a], c.F[b]) }
		case c.T.Kind() == KStr && c.T.OID != OIDBpchar && c.T.OID != OIDJSONB:
			typed = func(a, b int32) int { return dir * strings.Compare(c.S[a], c.S[b]) }
		}
		if typed != nil {
			slices.SortStableFunc(perm, func(a, b int32) int {
				if c.Nulls != nil {
					if r, done := nullCmp(a, b); done {
						if r != 0 {
							return r
						}
						return tie(a, b)
					}
				}
				if r := typed(a, b); r != 0 {
					return r
				}
				return tie(a, b)
			})
			return
		}
	}
	sort.SliceStable(perm, func(a, b int) bool {
		return cmpKeys(cols, keys, int(perm[a]), int(perm[b])) < 0
	})
}

func cmpKeys(cols []*Vec, keys []sortKey, i, j int) int {
	return cmpKeysAcross(cols, i, cols, j, keys)
}

// cmpKeysAcross compares row i of colsA with row j of colsB.
func cmpKeysAcross(colsA []*Vec, i int, colsB []*Vec, j int, keys []sortKey) int {
	for _, k := range keys {
		c, d := colsA[k.col], colsB[k.col]
		in, jn := c.IsNull(i), d.IsNull(j)
		var r int
		switch {
		case in && jn:
			r = 0
		case in:
			r = 1
			if k.nullsFirst {
				r = -1
			}
		case jn:
			r = -1
			if k.nullsFirst {
				r = 1
			}
		default:
			r = cmpRows(c, i, d, j)
			if k.desc {
				r = -r
			}
		}
		if r != 0 {
			return r
		}
	}
	return 0
}

// distinctNode removes duplicate rows over the first nKey columns (all
// columns for plain DISTINCT); it keeps the first row seen per key, which
// is DISTINCT ON's rule when the input is sorted.
type distinctNode struct {
	input plan
	keys  []int // key columns; nil = all
}

func (d *distinctNode) columns() []colInfo { return d.input.columns() }
func (d *distinctNode) run(ec *evalCtx, emit func(*Batch) error) error {
	seen := map[string]struct{}{}
	var kb []byte
	return d.input.run(ec, func(b *Batch) error {
		keyCols := b.Cols
		if d.keys != nil {
			keyCols = make([]*Vec, len(d.keys))
			for i, k := range d.keys {
				keyCols[i] = b.Cols[k]
			}
		}
		var keep []int32
		var err error
		forEach(b.N, b.Sel, func(i int) {
			kb, _ = rowKey(kb[:0], keyCols, i)
			if _, ok := seen[string(kb)]; ok {
				return
			}
			seen[string(kb)] = struct{}{}
			if err == nil {
				err = ec.run.budget.reserve(int64(len(kb) + 48))
			}
			keep = append(keep, int32(i))
		})
		if err != nil {
			return err
		}
		if len(keep) == 0 {
			return nil
		}
		return emit(&Batch{Cols: b.Cols, N: b.N, Sel: keep})
	})
}

// materialNode runs its input once per execution and replays it (CTEs
// referenced more than once, uncorrelated subqueries).
type materialNode struct {
	input plan
	id    int
}

func (m *materialNode) columns() []colInfo { return m.input.columns() }
func (m *materialNode) run(ec *evalCtx, emit func(*Batch) error) error {
	if ec.run.materialized == nil {
		ec.run.materialized = map[int]*Batch{}
	}
	if full, ok := ec.run.materialized[m.id]; ok {
		return emitChunks(full, emit)
	}
	// The first run streams: the consumer gets each batch as the input
	// makes it, so a LIMIT over an endless WITH RECURSIVE ends the
	// recursion, as PostgreSQL's lazily filled CTE scan does. What a run
	// that went to the end produced is kept for the other scans of the
	// CTE; a run the consumer cut short keeps nothing, and a later scan
	// evaluates the CTE again (the same rows, unless it calls volatile
	// functions).
	buf := newBuffer(typesOf(m.input.columns()))
	err := m.input.run(ec, func(b *Batch) error {
		if err := buf.add(ec.run, b); err != nil {
			return err
		}
		return emit(b)
	})
	if err != nil {
		buf.free(ec.run)
		return err
	}
	ec.run.materialized[m.id] = buf.batch()
	return nil
}

// nullVec is an all-NULL placeholder for a column the query never reads.
// placeholder is an all-NULL vector standing in for a column a scan
// does not fetch. Placeholders of a few rows (a key lookup's batches) are
// shared process-wide: nothing reads an unfetched column's values, and
// no Vec is changed once emitted. Up to a batch, other lengths are a
// view of one shared batch-sized vector per type.
func placeholder(t Type, n int) *Vec {
	switch {
	case n > batchSize:
		return nullVec(t, n)
	case n > 16:
		return sharedNulls(t, batchSize).slice(0, n)
	}
	return sharedNulls(t, n)
}

// sharedNulls is the process-wide placeholder of type t and n rows.
// Every point query asks for a few of them (each unread column of each
// lookup batch): the table is an immutable map replaced on a miss, so a
// hit is one typed map read (no boxing of the key into an interface as
// sync.Map needs, no lock).
func sharedNulls(t Type, n int) *Vec {
	k := placeholderKey{t, n}
	if m := placeholders.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	placeholdersMu.Lock()
	defer placeholdersMu.Unlock()
	old := placeholders.Load()
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
	}
	m := make(map[placeholderKey]*Vec, 1+len(pointerOrEmpty(old)))
	for k2, v2 := range pointerOrEmpty(old) {
		m[k2] = v2
	}
	v := nullVec(t, n)
	m[k] = v
	placeholders.Store(&m)
	return v
}

func pointerOrEmpty(m *map[placeholderKey]*Vec) map[placeholderKey]*Vec {
	if m == nil {
		return nil
	}
	return *m
}

type placeholderKey struct {
	t Type
	n int
}

// placeholders holds the shared placeholders (a few dozen types × at
// most 17 lengths); placeholdersMu serializes its replacement.
var (
	placeholders   atomic.Pointer[map[placeholderKey]*Vec]
	placeholdersMu sync.Mutex
)

func nullVec(t Type, n int) *Vec {
	v := NewVec(t, n)
	v.Nulls = make([]bool, n)
	for i := range v.Nulls {
		v.Nulls[i] = true
	}
	return v
}

// collectTopN keeps only the best topN rows seen so far (see topN).
func (s *sortNode) collectTopN(ec *evalCtx) (*buffer, error) {
	t := s.newTopN(false)
	err := withPrefetch(s.input).run(ec, func(b *Batch) error { return t.add(ec, b, 0) })
	if err != nil {
		t.buf.free(ec.run)
		return nil, err
	}
	return t.buf, nil
}

// topN collects the best limit rows of a stream: whenever the buffer
// holds enough surplus it is sorted (stably, so ties keep arrival order
// as a full sort would) and truncated; once it has been cut to limit
// rows, the last kept row is a threshold that incoming rows must beat.
// With track, pos records each kept row's position in the serial order
// (for merging the collectors of parallel workers).
type topN struct {
	s         *sortNode
	types     []Type
	buf       *buffer
	limit     int
	threshold *Batch // the current limit-th row once the buffer is full
	track     bool
	pos       []int64
}

func (s *sortNode) newTopN(track bool) *topN {
	types := typesOf(s.input.columns())
	return &topN{s: s, types: types, buf: newBuffer(types), limit: int(s.topN), track: track}
}

// add offers the live rows of b; pos is the position of its row 0.
func (t *topN) add(ec *evalCtx, b *Batch, pos int64) error {
	if t.threshold != nil {
		// rows not strictly better than the current last kept row can
		// never enter the top N (ties lose to earlier rows)
		keep := topNCandidates(b, t.threshold, t.s.keys)
		if len(keep) == 0 {
			return nil
		}
		b = &Batch{Cols: b.Cols, N: b.N, Sel: keep}
	}
	if t.track {
		if b.Sel == nil {
			for r := 0; r < b.N; r++ {
				t.pos = append(t.pos, pos+int64(r))
			}
		} else {
			for _, r := range b.Sel {
				t.pos = append(t.pos, pos+int64(r))
			}
		}
	}
	if err := t.buf.add(ec.run, b); err != nil {
		return err
	}
	if t.buf.n >= 2*t.limit+batchSize {
		t.compact(ec)
		if t.buf.n == t.limit {
			full := t.buf.batch()
			t.threshold = &Batch{N: 1, Cols: make([]*Vec, len(full.Cols))}
			for i, c := range full.Cols {
				t.threshold.Cols[i] = c.Gather([]int32{int32(t.limit - 1)})
			}
		}
	}
	return nil
}

func (t *topN) compact(ec *evalCtx) {
	full := t.buf.batch()
	perm := allRows(full.N)
	sortPerm(perm, full.Cols, t.s.keys)
	perm = perm[:min(t.limit, len(perm))]
	nb := newBuffer(t.types)
	for i, c := range full.Cols {
		nb.cols[i] = c.Gather(perm)
	}
	nb.n = len(perm)
	nb.bytes = batchBytes(nb.batch())
	if t.track {
		pos := make([]int64, len(perm))
		for i, r := range perm {
			pos[i] = t.pos[r]
		}
		t.pos = pos
	}
	t.buf.free(ec.run)
	_ = ec.run.budget.reserve(nb.bytes)
	t.buf = nb
}

// selectTrue returns the rows (of sel, or 0..n-1) where the boolean v is
// true; plain loops, since this runs for every row a filter sees.
func selectTrue(v *Vec, n int, sel []int32) []int32 {
	return selectTrueInto(nil, v, n, sel)
}

// selectTrueInto is selectTrue writing into buf when it has room for n+1
// indexes (a caller that consumes the selection before the next batch
// reuses one buffer).
func selectTrueInto(buf []int32, v *Vec, n int, sel []int32) []int32 {
	bs, nulls := v.B, v.Nulls
	if cap(buf) < n+1 {
		buf = make([]int32, n+1)
	}
	out := buf[:n+1]
	j := 0
	switch {
	case sel == nil && nulls == nil:
		// branch-free: write every index, advance past the true ones
		for i, x := range bs[:n] {
			out[j] = int32(i)
			if x {
				j++
			}
		}
	case sel == nil:
		for i, x := range bs[:n] {
			out[j] = int32(i)
			if x && !nulls[i] {
				j++
			}
		}
	case nulls == nil:
		for _, i := range sel {
			out[j] = i
			if bs[i] {
				j++
			}
		}
	default:
		for _, i := range sel {
			out[j] = i
			if bs[i] && !nulls[i] {
				j++
			}
		}
	}
	return out[:j:j]
}

// topNCandidates returns the rows of b that sort strictly before the
// threshold row. A non-NULL float or integer leading key is compared with
// a typed test first; only ties reach the general comparison.
func topNCandidates(b *Batch, threshold *Batch, keys []sortKey) []int32 {
	keep := []int32{}
	k := keys[0]
	c, t := b.Cols[k.col], threshold.Cols[k.col]
	if c.Nulls == nil && !t.IsNull(0) && c.T.OID == t.T.OID {
		switch c.T.Kind() {
		case KFloat:
			if tv := t.F[0]; tv == tv {
				xs := c.F
				test := func(i int) {
					x := xs[i]
					if x != x || x == tv {
						if cmpKeysAcross(b.Cols, i, threshold.Cols, 0, keys) < 0 {
							keep = append(keep, int32(i))
						}
						return
					}
					if (x < tv) != k.desc {
						keep = append(keep, int32(i))
					}
				}
				forEach(b.N, b.Sel, test)
				return keep
			}
		case KInt:
			tv, xs := t.I[0], c.I
			test := func(i int) {
				x := xs[i]
				if x == tv {
					if cmpKeysAcross(b.Cols, i, threshold.Cols, 0, keys) < 0 {
						keep = append(keep, int32(i))
					}
					return
				}
				if (x < tv) != k.desc {
					keep = append(keep, int32(i))
				}
			}
			forEach(b.N, b.Sel, test)
			return keep
		}
	}
	forEach(b.N, b.Sel, func(i int) {
		if cmpKeysAcross(b.Cols, i, threshold.Cols, 0, keys) < 0 {
			keep = append(keep, int32(i))
		}
	})
	return keep
}
