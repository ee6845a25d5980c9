package exec

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// accum is an aggregate's per-group state, updated a batch at a time.
// rows are batch row indexes, gids the group of each row (same length).
type accum interface {
	update(ec *evalCtx, args []*Vec, rows, gids []int32, ng int) error
	result(ngroups int) (*Vec, error)
}

// aggCall is one aggregate in a query.
type aggCall struct {
	name     string
	args     []Expr
	star     bool
	distinct bool
	filter   Expr
	order    []Expr
	orderKey []sortKey // over order exprs
	t        Type
	newAcc   func() accum
}

func (a *aggCall) String() string {
	var sb strings.Builder
	sb.WriteString(a.name + "(")
	if a.distinct {
		sb.WriteString("DISTINCT ")
	}
	if a.star {
		sb.WriteString("*")
	}
	for i, x := range a.args {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(x.String())
	}
	for _, o := range a.order {
		sb.WriteString(" ORDER " + o.String())
	}
	if a.filter != nil {
		sb.WriteString(" FILTER " + a.filter.String())
	}
	sb.WriteString(")")
	return sb.String()
}

// aggRef is a placeholder for an aggregate's result during binding.
type aggRef struct {
	idx  int
	call *aggCall
}

func (r *aggRef) Type() Type     { return r.call.t }
func (r *aggRef) String() string { return "agg:" + r.call.String() }
func (r *aggRef) Eval(*evalCtx, *Batch, []int32) (*Vec, error) {
	return nil, errf(CodeGroupingError, "aggregate functions are not allowed here")
}

// aggNode is a hash aggregate: group keys first, then aggregate results.
type aggNode struct {
	input  plan
	groups []Expr
	// ndet > 0: only the first ndet group keys tell groups apart; the
	// others are functionally dependent on them (the other columns of a
	// table whose primary key is grouped), so hashing them could only
	// cost time — a group keeps their values from its first row
	ndet int
	aggs []*aggCall
	cols []colInfo
}

// detKeys is the part of the group key vectors kv that tells groups apart.
func (a *aggNode) detKeys(kv []*Vec) []*Vec {
	if a.ndet > 0 && a.ndet < len(kv) {
		return kv[:a.ndet]
	}
	return kv
}

func (a *aggNode) columns() []colInfo { return a.cols }

func (a *aggNode) run(ec *evalCtx, emit func(*Batch) error) error {
	if pl, w := a.parallelPlan(); pl != nil {
		err := a.runParallel(ec, pl, w, emit)
		if err != errPipelineSpilled {
			return err
		}
		defer ec.run.dropPrebuilt()
	}
	return a.runSerial(ec, emit)
}

// aggState is a hash aggregation's groups and accumulators: the whole
// aggregate in a serial run, one worker's partial aggregate in a parallel
// one. Group ids are dense and numbered in order of first appearance.
type aggState struct {
	a        *aggNode
	accs     []accum
	keys     *buffer // group key values, row g = group g
	index    map[string]int32
	intIndex map[int64]int32
	// hashed keys (agg_hashkeys.go): key hash to the newest group with
	// it, each group's predecessor with the same hash (-1: none)
	hindex    map[uint64]int32
	hnext     []int32
	hashes    []uint64
	dense     []int32 // direct table for small non-negative int keys
	nullGroup int32
	ngroups   int
	// track records first (the position of each group's first row) for
	// the merge of a parallel run
	track bool
	first []int64
	kb    []byte
	// reused per batch: accumulators never keep rows or gids
	identity, zeros, gidBuf []int32
}

func (a *aggNode) newState(track bool) *aggState {
	st := &aggState{a: a, accs: make([]accum, len(a.aggs)), index: map[string]int32{},
		intIndex: map[int64]int32{}, nullGroup: -1, track: track}
	for i, c := range a.aggs {
		st.accs[i] = c.newAcc()
		if c.distinct || len(c.order) > 0 {
			st.accs[i] = &sortedAcc{call: c, inner: st.accs[i]}
		}
	}
	gtypes := make([]Type, len(a.groups))
	for i, g := range a.groups {
		gtypes[i] = g.Type()
	}
	st.keys = newBuffer(gtypes)
	if len(a.groups) == 0 {
		st.ngroups = 1
		if track {
			st.first = []int64{0}
		}
	}
	return st
}

// consume folds one batch into the state; base is the position of the
// batch's row 0 (only used when tracking first appearances).
func (st *aggState) consume(ec *evalCtx, b *Batch, base int64) error {
	a := st.a
	rows := b.Sel
	if rows == nil {
		if len(st.identity) < b.N {
			st.identity = allRows(reuseLen(len(st.identity), b.N))
		}
		rows = st.identity[:b.N]
	}
	var gids []int32
	if len(a.groups) == 0 {
		// one group: a shared zero slice
		if len(st.zeros) < len(rows) {
			st.zeros = make([]int32, reuseLen(len(st.zeros), len(rows)))
		}
		gids = st.zeros[:len(rows)]
	} else {
		if cap(st.gidBuf) < len(rows) {
			st.gidBuf = make([]int32, reuseLen(cap(st.gidBuf), len(rows)))
		}
		gids = st.gidBuf[:len(rows)]
		kv := make([]*Vec, len(a.groups))
		for i, g := range a.groups {
			v, err := g.Eval(ec, b, b.Sel)
			if err != nil {
				return err
			}
			kv[i] = v
		}
		newRows := st.assign(a.detKeys(kv), rows, gids)
		if len(newRows) > 0 {
			if st.track {
				for _, r := range newRows {
					st.first = append(st.first, base+int64(r))
				}
			}
			if err := st.keys.add(ec.run, &Batch{Cols: kv, N: b.N, Sel: newRows}); err != nil {
				return err
			}
			if err := ec.run.budget.reserve(int64(len(newRows)) * int64(64+16*len(a.aggs))); err != nil {
				return err
			}
		}
	}
	for i, c := range a.aggs {
		r, g := rows, gids
		if c.filter != nil {
			fv, err := c.filter.Eval(ec, b, rows)
			if err != nil {
				return err
			}
			r, g = nil, nil
			for k, row := range rows {
				if !fv.IsNull(int(row)) && fv.B[row] {
					r = append(r, row)
					g = append(g, gids[k])
				}
			}
			if len(r) == 0 {
				continue
			}
		}
		args := make([]*Vec, len(c.args)+len(c.order))
		for k, x := range c.args {
			v, err := x.Eval(ec, b, r)
			if err != nil {
				return err
			}
			args[k] = v
		}
		for k, x := range c.order {
			v, err := x.Eval(ec, b, r)
			if err != nil {
				return err
			}
			args[len(c.args)+k] = v
		}
		if err := st.accs[i].update(ec, args, r, g, st.ngroups); err != nil {
			return err
		}
	}
	return nil
}

// reuseLen sizes a per-batch scratch slice that has length have and
// needs n: exactly n the first time (a point query's aggregate sees one
// batch of a few rows, and a batch-sized slice was most of its
// allocation), a whole batch once a second batch shows it is reused.
func reuseLen(have, n int) int {
	if have == 0 {
		return n
	}
	return max(n, batchSize)
}

// assign sets gids[k] to the group of row rows[k] of the key vectors kv,
// creating groups as needed; it returns the rows that created one.
func (st *aggState) assign(kv []*Vec, rows, gids []int32) []int32 {
	var newRows []int32
	if len(kv) == 1 && kv[0].T.Kind() == KInt {
		// int64 fast path (every batch of a query has the same key type,
		// so the two indexes never mix)
		col := kv[0].I
		start := 0
		if kv[0].Nulls == nil {
			// the common case: no NULL keys, small non-negative values;
			// the general loop takes over from the first row outside the
			// direct table
			dense := st.denseTable()
			for ; start < len(rows); start++ {
				r := rows[start]
				v := col[r]
				if uint64(v) >= denseKeys {
					break
				}
				g := dense[v]
				if g < 0 {
					g = int32(st.ngroups)
					st.ngroups++
					dense[v] = g
					newRows = append(newRows, r)
				}
				gids[start] = g
			}
		}
		for k := start; k < len(rows); k++ {
			r := rows[k]
			if kv[0].IsNull(int(r)) {
				if st.nullGroup < 0 {
					st.nullGroup = int32(st.ngroups)
					st.ngroups++
					newRows = append(newRows, r)
				}
				gids[k] = st.nullGroup
				continue
			}
			v := col[r]
			if v >= 0 && v < denseKeys {
				// small non-negative keys: direct table, no hashing
				dense := st.denseTable()
				g := dense[v]
				if g < 0 {
					g = int32(st.ngroups)
					st.ngroups++
					dense[v] = g
					newRows = append(newRows, r)
				}
				gids[k] = g
				continue
			}
			g, ok := st.intIndex[v]
			if !ok {
				g = int32(st.ngroups)
				st.ngroups++
				st.intIndex[v] = g
				newRows = append(newRows, r)
			}
			gids[k] = g
		}
		return newRows
	}
	if hashKeyable(kv) {
		return st.assignHashed(kv, rows, gids)
	}
	for k, r := range rows {
		st.kb, _ = rowKey(st.kb[:0], kv, int(r))
		g, ok := st.index[string(st.kb)]
		if !ok {
			g = int32(st.ngroups)
			st.ngroups++
			st.index[string(st.kb)] = g
			newRows = append(newRows, r)
		}
		gids[k] = g
	}
	return newRows
}

func (st *aggState) denseTable() []int32 {
	if st.dense == nil {
		st.dense = make([]int32, denseKeys)
		for i := range st.dense {
			st.dense[i] = -1
		}
	}
	return st.dense
}

// emit produces the result rows: group keys, then aggregate values;
// perm (nil = group order) reorders the groups.
func (st *aggState) emit(perm []int32, emit func(*Batch) error) error {
	if st.ngroups == 0 {
		return nil
	}
	out := &Batch{N: st.ngroups, Cols: make([]*Vec, 0, len(st.a.groups)+len(st.a.aggs))}
	out.Cols = append(out.Cols, st.keys.cols...)
	for _, acc := range st.accs {
		v, err := acc.result(st.ngroups)
		if err != nil {
			return err
		}
		out.Cols = append(out.Cols, v)
	}
	if perm != nil {
		for i, c := range out.Cols {
			out.Cols[i] = c.Gather(perm)
		}
	}
	return emitChunks(out, emit)
}

// growTo extends a per-group slice to n entries.
func growTo[T any](s []T, n int) []T {
	if len(s) >= n {
		return s
	}
	return append(s, make([]T, n-len(s))...)
}

// countAcc is count(*) (star) or count(x).
type countAcc struct {
	star bool
	n    []int64
}

func (c *countAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	c.n = growTo(c.n, ng)
	if (c.star || args[0].Nulls == nil) && ng == 1 {
		c.n[0] += int64(len(gids))
		return nil
	}
	if c.star || args[0].Nulls == nil {
		for _, g := range gids {
			c.n[g]++
		}
		return nil
	}
	for k, r := range rows {
		if c.star || !args[0].IsNull(int(r)) {
			c.n[gids[k]]++
		}
	}
	return nil
}

func (c *countAcc) result(n int) (*Vec, error) {
	c.n = growTo(c.n, n)
	v := NewVec(TInt8, n)
	copy(v.I, c.n)
	return v, nil
}

// sumAcc sums ints (into int8, or numeric for int8 input), floats or
// numerics; avg divides by the count at the end.
type sumAcc struct {
	in, out Type
	avg     bool
	has     []bool
	cnt     []int64
	i       []int64
	f       []float64
	d       []apd.Decimal
	big     []bool // int sum overflowed into d
}

func (s *sumAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	n := ng
	s.has, s.cnt = growTo(s.has, n), growTo(s.cnt, n)
	x := args[0]
	switch x.T.Kind() {
	case KInt:
		s.i, s.d, s.big = growTo(s.i, n), growTo(s.d, n), growTo(s.big, n)
		for k, r := range rows {
			if x.IsNull(int(r)) {
				continue
			}
			g := gids[k]
			s.has[g] = true
			s.cnt[g]++
			if s.big[g] {
				var t apd.Decimal
				t.SetInt64(x.I[r])
				if err := numAdd(&s.d[g], &s.d[g], &t); err != nil {
					return err
				}
				continue
			}
			a, b := s.i[g], x.I[r]
			v := a + b
			if (a^v)&(b^v) < 0 {
				s.big[g] = true
				var t apd.Decimal
				s.d[g].SetInt64(a)
				t.SetInt64(b)
				if err := numAdd(&s.d[g], &s.d[g], &t); err != nil {
					return err
				}
				continue
			}
			s.i[g] = v
		}
	case KFloat:
		s.f = growTo(s.f, n)
		if x.Nulls == nil && ng == 1 {
			sum := s.f[0] // sequential order, as PostgreSQL's serial plan adds
			for _, r := range rows {
				sum += x.F[r]
			}
			s.f[0] = sum
			s.cnt[0] += int64(len(rows))
			s.has[0] = s.has[0] || len(rows) > 0
			break
		}
		if x.Nulls == nil {
			cnt, f := s.cnt, s.f
			for k, r := range rows {
				g := gids[k]
				cnt[g]++ // has[g] is derived from cnt at the end
				f[g] += x.F[r]
			}
			break
		}
		for k, r := range rows {
			if x.Nulls[r] {
				continue
			}
			g := gids[k]
			s.has[g] = true
			s.cnt[g]++
			s.f[g] += x.F[r]
		}
	case KNum:
		s.d = growTo(s.d, n)
		for k, r := range rows {
			if x.IsNull(int(r)) {
				continue
			}
			g := gids[k]
			s.has[g] = true
			s.cnt[g]++
			if err := numAdd(&s.d[g], &s.d[g], &x.D[r]); err != nil {
				return err
			}
		}
	case KInterval:
		s.d = growTo(s.d, n)
		return unsupported("sum/avg over interval is not supported")
	}
	return nil
}

func (s *sumAcc) result(n int) (*Vec, error) {
	s.has, s.cnt = growTo(s.has, n), growTo(s.cnt, n)
	s.i, s.f, s.d, s.big = growTo(s.i, n), growTo(s.f, n), growTo(s.d, n), growTo(s.big, n)
	v := NewVec(s.out, n)
	for g := 0; g < n; g++ {
		if !s.has[g] && s.cnt[g] == 0 {
			v.SetNull(g)
			continue
		}
		switch s.in.Kind() {
		case KInt:
			var total apd.Decimal
			if s.big[g] {
				total.Set(&s.d[g])
			} else {
				total.SetInt64(s.i[g])
			}
			switch {
			case s.avg:
				var c apd.Decimal
				c.SetInt64(s.cnt[g])
				if err := numDiv(&v.D[g], &total, &c); err != nil {
					return nil, err
				}
			case s.out.OID == OIDNumeric:
				v.D[g].Set(&total)
			default:
				if s.big[g] {
					return nil, errf(CodeNumericOutOfRange, "bigint out of range")
				}
				v.I[g] = s.i[g]
			}
		case KFloat:
			f := s.f[g]
			if s.avg {
				f /= float64(s.cnt[g])
			}
			if s.out.OID == OIDFloat4 {
				f = float64(float32(f))
			}
			if math.IsInf(f, 0) {
				return nil, errf(CodeNumericOutOfRange, "value out of range: overflow")
			}
			v.F[g] = f
		case KNum:
			if s.avg {
				var c apd.Decimal
				c.SetInt64(s.cnt[g])
				if err := numDiv(&v.D[g], &s.d[g], &c); err != nil {
					return nil, err
				}
			} else {
				v.D[g].Set(&s.d[g])
			}
		}
	}
	return v, nil
}

// minMaxAcc keeps the least or greatest non-NULL value.
type minMaxAcc struct {
	max bool
	t   Type
	st  *Vec
	has []bool
}

func (m *minMaxAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	n := ng
	if m.st == nil {
		m.st = NewVec(m.t, 0)
	}
	m.st.grow(n)
	m.has = growTo(m.has, n)
	x := args[0]
	if x.Nulls == nil && (x.T.Kind() == KFloat || x.T.Kind() == KInt) {
		// typed fast paths
		if x.T.Kind() == KFloat {
			st, has, xf := m.st.F, m.has, x.F
			// NaN sorts above every number (PostgreSQL): max keeps a NaN
			// once seen; min takes NaN only as a group's first value and
			// replaces it with any number
			if m.max {
				for k, r := range rows {
					g := gids[k]
					v := xf[r]
					if !has[g] || v > st[g] || v != v {
						has[g], st[g] = true, v
					}
				}
				return nil
			}
			for k, r := range rows {
				g := gids[k]
				v := xf[r]
				if cur := st[g]; !has[g] || v < cur || (cur != cur && v == v) {
					has[g], st[g] = true, v
				}
			}
			return nil
		}
		st := m.st.I
		for k, r := range rows {
			g := gids[k]
			v := x.I[r]
			if !m.has[g] {
				m.has[g], st[g] = true, v
				continue
			}
			if (m.max && v > st[g]) || (!m.max && v < st[g]) {
				st[g] = v
			}
		}
		return nil
	}
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := int(gids[k])
		if !m.has[g] {
			m.has[g] = true
			m.st.copyRow(g, x, int(r))
			continue
		}
		c := cmpRows(x, int(r), m.st, g)
		if (m.max && c > 0) || (!m.max && c < 0) {
			m.st.copyRow(g, x, int(r))
		}
	}
	return nil
}

func (m *minMaxAcc) result(n int) (*Vec, error) {
	if m.st == nil {
		m.st = NewVec(m.t, 0)
	}
	m.st.grow(n)
	m.has = growTo(m.has, n)
	out := m.st.Gather(allRows(n))
	for g := 0; g < n; g++ {
		if !m.has[g] {
			out.SetNull(g)
		}
	}
	return out, nil
}

// boolAcc is bool_and / bool_or / every.
type boolAcc struct {
	and bool
	has []bool
	v   []bool
}

func (b *boolAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	n := ng
	b.has, b.v = growTo(b.has, n), growTo(b.v, n)
	x := args[0]
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := gids[k]
		if !b.has[g] {
			b.has[g], b.v[g] = true, x.B[r]
			continue
		}
		if b.and {
			b.v[g] = b.v[g] && x.B[r]
		} else {
			b.v[g] = b.v[g] || x.B[r]
		}
	}
	return nil
}

func (b *boolAcc) result(n int) (*Vec, error) {
	b.has, b.v = growTo(b.has, n), growTo(b.v, n)
	out := NewVec(TBool, n)
	for g := 0; g < n; g++ {
		if !b.has[g] {
			out.SetNull(g)
		} else {
			out.B[g] = b.v[g]
		}
	}
	return out, nil
}

// stringAggAcc is string_agg(text, delimiter).
type stringAggAcc struct {
	t   Type
	has []bool
	sb  []*textBuilder
}

func (s *stringAggAcc) update(ec *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	n := ng
	s.has, s.sb = growTo(s.has, n), growTo(s.sb, n)
	x, d := args[0], args[1]
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := gids[k]
		if s.sb[g] == nil {
			s.sb[g] = &textBuilder{}
		}
		sb := s.sb[g]
		delim := s.has[g] && !d.IsNull(int(r))
		add := len(x.S[r])
		if delim {
			add += len(d.S[r])
		}
		if err := checkValueGrowth(sb.Len(), add); err != nil {
			return err
		}
		// the value being built counts against the query's budget (the
		// ordered and window forms accumulate without an evaluation
		// context) by the chunks it allocates (textbuilder.go: never
		// copied while the value grows)
		if a := sb.reserve(add); a > 0 && ec != nil && ec.run != nil {
			if err := ec.run.budget.reserve(int64(a)); err != nil {
				return err
			}
		}
		if delim {
			sb.WriteString(d.S[r])
		}
		s.has[g] = true
		sb.WriteString(x.S[r])
	}
	return nil
}

func (s *stringAggAcc) result(n int) (*Vec, error) {
	s.has, s.sb = growTo(s.has, n), growTo(s.sb, n)
	out := NewVec(s.t, n)
	for g := 0; g < n; g++ {
		if !s.has[g] {
			out.SetNull(g)
		} else {
			out.S[g] = s.sb[g].String()
		}
	}
	return out, nil
}

// arrayAggAcc is array_agg(x) (NULL elements kept).
type arrayAggAcc struct {
	elem Type
	t    Type
	v    []*Vec
}

func (a *arrayAggAcc) update(ec *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	a.v = growTo(a.v, ng)
	// the arrays being built count against the query's budget (as
	// string_agg's value does; the ordered forms pass no context)
	if ec != nil && ec.run != nil {
		n := int64(len(rows)) * 24
		if args[0].T.Kind() == KStr {
			for _, r := range rows {
				n += int64(len(args[0].S[r]))
			}
		}
		if err := ec.run.budget.reserve(n); err != nil {
			return err
		}
	}
	for k, r := range rows {
		g := gids[k]
		if a.v[g] == nil {
			a.v[g] = NewVec(a.elem, 0)
		}
		a.v[g].appendVec(args[0], []int32{r})
	}
	return nil
}

func (a *arrayAggAcc) result(n int) (*Vec, error) {
	a.v = growTo(a.v, n)
	out := NewVec(a.t, n)
	for g := 0; g < n; g++ {
		if a.v[g] == nil {
			out.SetNull(g)
		} else {
			out.A[g] = &Array{Elem: a.elem, Items: a.v[g].Gather(allRows(a.v[g].N))}
		}
	}
	return out, nil
}

// sortedAcc buffers rows for DISTINCT and ORDER BY aggregates, then feeds
// them to the inner accumulator in order, deduplicated when DISTINCT.
type sortedAcc struct {
	call  *aggCall
	inner accum
	buf   *buffer
	gid   []int32
}

func (s *sortedAcc) update(ec *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	if s.buf == nil {
		ts := make([]Type, len(args))
		for i, a := range args {
			ts[i] = a.T
		}
		s.buf = newBuffer(ts)
	}
	s.gid = append(s.gid, gids...)
	return s.buf.add(ec.run, &Batch{Cols: args, N: args[0].N, Sel: rows})
}

func (s *sortedAcc) result(n int) (*Vec, error) {
	if s.buf == nil || s.buf.n == 0 {
		return s.inner.result(n)
	}
	full := s.buf.batch()
	na := len(s.call.args)
	cols := append([]*Vec{}, full.Cols...)
	gv := NewVec(TInt8, len(s.gid))
	for i, g := range s.gid {
		gv.I[i] = int64(g)
	}
	cols = append(cols, gv)
	keys := []sortKey{{col: len(cols) - 1}}
	for i, k := range s.call.orderKey {
		keys = append(keys, sortKey{col: na + i, desc: k.desc, nullsFirst: k.nullsFirst})
	}
	if s.call.distinct {
		for i := 0; i < na; i++ {
			keys = append(keys, sortKey{col: i})
		}
	}
	perm, done := distinctIntPerm(s.call, full.Cols, s.gid)
	if !done {
		perm = allRows(full.N)
		sortPerm(perm, cols, keys)
	}
	if s.call.distinct && !done {
		seen := map[string]struct{}{}
		var kb []byte
		kept := perm[:0]
		for _, r := range perm {
			kb, _ = rowKey(kb[:0], append(full.Cols[:na:na], gv), int(r))
			if _, ok := seen[string(kb)]; ok {
				continue
			}
			seen[string(kb)] = struct{}{}
			kept = append(kept, r)
		}
		perm = kept
	}
	args := make([]*Vec, na)
	for i := 0; i < na; i++ {
		args[i] = full.Cols[i].Gather(perm)
	}
	gids := make([]int32, len(perm))
	for i, r := range perm {
		gids[i] = s.gid[r]
	}
	if err := s.inner.update(nil, args, allRows(len(perm)), gids, n); err != nil {
		return nil, err
	}
	return s.inner.result(n)
}

// distinctIntPerm is sortedAcc's order for agg(DISTINCT x) of one
// integer argument without NULLs and without ORDER BY (count(DISTINCT
// e.dst) of traversals): the rows of each group's distinct values, by
// group then value ascending (the order the general path sorts and
// deduplicates to), from one sort of (group, value) pairs instead of a
// row-key sort and a map of encoded keys. done is false when the call
// does not qualify.
func distinctIntPerm(c *aggCall, args []*Vec, gid []int32) (perm []int32, done bool) {
	if !c.distinct || len(c.orderKey) > 0 || len(args) != 1 {
		return nil, false
	}
	x := args[0]
	if !x.T.isInt() || x.Nulls != nil && slices.Contains(x.Nulls[:x.N], true) {
		return nil, false
	}
	type pair struct {
		g   int32
		row int32
		v   int64
	}
	ps := make([]pair, x.N)
	for r := range ps {
		ps[r] = pair{g: gid[r], row: int32(r), v: x.I[r]}
	}
	slices.SortFunc(ps, func(a, b pair) int {
		if a.g != b.g {
			return cmp.Compare(a.g, b.g)
		}
		return cmp.Compare(a.v, b.v)
	})
	perm = make([]int32, 0, len(ps))
	for i, p := range ps {
		if i > 0 && p.g == ps[i-1].g && p.v == ps[i-1].v {
			continue
		}
		perm = append(perm, p.row)
	}
	return perm, true
}

// denseKeys bounds the direct-indexed group table for small int keys.
const denseKeys = 1 << 16
