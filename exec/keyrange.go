package exec

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"strings"
)

// Range lookups. A btree index answers col BETWEEN a AND b, col > a and
// the like, not only equality; pggraph's key indexes are hash maps, but
// an index on an integer, text or varchar column also keeps its distinct keys in order
// (KeyRangeSource), so a range conjunct on such a column becomes a
// lookup of the keys in range: the scan reads only their rows (through
// the same LookupKeys as col IN (...)), and the conjunct stays in the
// filter above, so the result is the scan's whatever keys the source
// lists. When the range holds more than rangeKeyShare of the table's
// rows' worth of keys, the scan reads the table instead.

// KeyRangeSource is implemented by key-lookup sources whose index lists
// an integer or text key column's values in order.
type KeyRangeSource interface {
	KeyLookupSource
	// KeysInRange returns the distinct values k of key column column
	// with lo <= k <= hi, ascending (descending when desc), at most limit
	// of them (limit <= 0: all). Every value with a live row is listed;
	// values with none left may be too (their lookup finds nothing). ok
	// is false when the column's index keeps no order.
	KeysInRange(ctx context.Context, column int, lo, hi int64, desc bool, limit int) (keys []int64, ok bool, err error)
	// TextKeysInRange is KeysInRange for a text or varchar key column:
	// the distinct values within lo and hi in byte order (the C
	// collation the engine compares text in).
	TextKeysInRange(ctx context.Context, column int, lo, hi TextBound, desc bool, limit int) (keys []string, ok bool, err error)
}

// TextBound is one end of a text key range: none when !Set, else Value,
// itself excluded when Strict.
type TextBound struct {
	Value  string
	Set    bool
	Strict bool
}

// below reports whether k lies before the lower bound b.
func (b TextBound) below(k string) bool {
	return b.Set && (k < b.Value || (b.Strict && k == b.Value))
}

// above reports whether k lies past the upper bound b.
func (b TextBound) above(k string) bool {
	return b.Set && (k > b.Value || (b.Strict && k == b.Value))
}

// TextKeysWithin is the part of ascending keys within lo and hi.
func TextKeysWithin(keys []string, lo, hi TextBound) []string {
	i := sort.Search(len(keys), func(i int) bool { return !lo.below(keys[i]) })
	j := sort.Search(len(keys), func(i int) bool { return hi.above(keys[i]) })
	if i >= j {
		return nil
	}
	return keys[i:j]
}

// TextKey decodes the canonical key encoding (AppendKey) of a non-NULL
// text or varchar value.
func TextKey(k string) (string, bool) {
	if len(k) < 2 || k[0] != 1 {
		return "", false
	}
	n, w := binary.Uvarint([]byte(k[1:min(len(k), 11)]))
	if w <= 0 || uint64(len(k)-1-w) != n {
		return "", false
	}
	return k[1+w:], true
}

// MergeTextKeys is MergeKeys for text keys.
func MergeTextKeys(a, b []string, desc bool, limit int) []string {
	n := len(a) + len(b)
	if limit > 0 {
		n = min(n, limit)
	}
	out := make([]string, 0, n)
	if desc {
		i, j := len(a)-1, len(b)-1
		for (i >= 0 || j >= 0) && (limit <= 0 || len(out) < limit) {
			switch {
			case j < 0 || (i >= 0 && a[i] > b[j]):
				out = append(out, a[i])
				i--
			case i < 0 || b[j] > a[i]:
				out = append(out, b[j])
				j--
			default:
				out = append(out, a[i])
				i, j = i-1, j-1
			}
		}
		return out
	}
	i, j := 0, 0
	for (i < len(a) || j < len(b)) && (limit <= 0 || len(out) < limit) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// rangeKeyShare: a range lookup is used while the range holds at most
// RowCount/rangeKeyShare distinct keys.
const rangeKeyShare = 16

// keyRange is a scan's range on an integer or text key column: the
// conjuncts col > e, col >= e, col < e, col <= e (BETWEEN is two of
// them) whose e reads no column; every bound applies.
type keyRange struct {
	col    int  // table column
	isText bool // a text or varchar column (textKeyType)
	lo, hi []rangeBound
}

type rangeBound struct {
	e      Expr
	strict bool
}

// rangeOp adds the conjunct col op e to r; op is one of < <= > >=.
func (r *keyRange) add(op string, e Expr) {
	switch op {
	case ">":
		r.lo = append(r.lo, rangeBound{e, true})
	case ">=":
		r.lo = append(r.lo, rangeBound{e, false})
	case "<":
		r.hi = append(r.hi, rangeBound{e, true})
	case "<=":
		r.hi = append(r.hi, rangeBound{e, false})
	}
}

// estimate guesses the rows of a range over a table of rows rows,
// with PostgreSQL's defaults for bounds it does not know: a third for
// one side bounded, 0.5% for both.
func (r *keyRange) estimate(rows int64) int64 {
	if len(r.lo) > 0 && len(r.hi) > 0 {
		return rows/200 + 1
	}
	return rows/3 + 1
}

// text is the range as EXPLAIN's Index Cond, PostgreSQL's layout.
func (r *keyRange) text(col string) string {
	var parts []string
	for _, b := range r.lo {
		op := " >= "
		if b.strict {
			op = " > "
		}
		parts = append(parts, "("+col+op+exprText(b.e, nil)+")")
	}
	for _, b := range r.hi {
		op := " <= "
		if b.strict {
			op = " < "
		}
		parts = append(parts, "("+col+op+exprText(b.e, nil)+")")
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " AND ") + ")"
}

// intKeyType reports the integer types whose stored values are exactly
// their int64 form (int2, int4, int8).
func intKeyType(t Type) bool {
	switch t.OID {
	case OIDInt2, OIDInt4, OIDInt8:
		return true
	}
	return false
}

// textKeyType reports the string types whose index keys are the values
// themselves, ordered as the engine compares them (text, varchar; not
// bpchar, whose keys drop trailing spaces).
func textKeyType(t Type) bool {
	return t.OID == OIDText || t.OID == OIDVarchar
}

// rangeKeyType reports the key column types whose index lists its keys
// in order (KeyRangeSource).
func rangeKeyType(t Type) bool { return intKeyType(t) || textKeyType(t) }

// rangeBoundExpr reports whether e can bound a range lookup on a key
// column of type kt: an expression of kt's kind (integer, or text) of
// constants and parameters (casts and operators allowed, no column,
// subquery or volatile call), evaluated once per execution.
func rangeBoundExpr(e Expr, kt Type) bool {
	if intKeyType(kt) != intKeyType(e.Type()) || textKeyType(kt) != textKeyType(e.Type()) {
		return false
	}
	ok := true
	walkExpr(e, func(x Expr) {
		switch y := x.(type) {
		case *constExpr, *paramExpr, *castExpr, *foldedCast:
		case *opExpr:
			if y.isVolatile() {
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

// bounds evaluates the range's bounds as inclusive int64 bounds; empty
// reports a range no row can be in (a NULL bound, lo > hi).
func (r *keyRange) bounds(ec *evalCtx) (lo, hi int64, empty bool, err error) {
	lo, hi = math.MinInt64, math.MaxInt64
	for _, b := range r.lo {
		x, none, err := b.inclusive(ec, 1)
		if err != nil || none {
			return 0, 0, none, err
		}
		lo = max(lo, x)
	}
	for _, b := range r.hi {
		x, none, err := b.inclusive(ec, -1)
		if err != nil || none {
			return 0, 0, none, err
		}
		hi = min(hi, x)
	}
	return lo, hi, lo > hi, nil
}

// textBounds evaluates a text range's bounds: the greatest lower and
// least upper bound (strict when a strict bound has that value); empty
// reports a range no row can be in (a NULL bound, lo past hi).
func (r *keyRange) textBounds(ec *evalCtx) (lo, hi TextBound, empty bool, err error) {
	for _, b := range r.lo {
		v, err := evalConst(ec, b.e)
		if err != nil || v.IsNull(0) {
			return lo, hi, err == nil, err
		}
		x := v.S[0]
		if !lo.Set || x > lo.Value || (x == lo.Value && b.strict) {
			lo = TextBound{Value: x, Set: true, Strict: b.strict}
		}
	}
	for _, b := range r.hi {
		v, err := evalConst(ec, b.e)
		if err != nil || v.IsNull(0) {
			return lo, hi, err == nil, err
		}
		x := v.S[0]
		if !hi.Set || x < hi.Value || (x == hi.Value && b.strict) {
			hi = TextBound{Value: x, Set: true, Strict: b.strict}
		}
	}
	if lo.Set && hi.Set && (lo.Value > hi.Value || (lo.Value == hi.Value && (lo.Strict || hi.Strict))) {
		return lo, hi, true, nil
	}
	return lo, hi, false, nil
}

// inclusive evaluates the bound as an inclusive one: a strict bound moves
// by step (+1 for a lower bound, -1 for an upper). none reports a bound
// no row can meet (NULL, or strict past the end of int64).
func (b rangeBound) inclusive(ec *evalCtx, step int64) (x int64, none bool, err error) {
	v, err := evalConst(ec, b.e)
	if err != nil {
		return 0, false, err
	}
	if v.IsNull(0) {
		return 0, true, nil
	}
	x = v.I[0]
	if b.strict {
		if (step > 0 && x == math.MaxInt64) || (step < 0 && x == math.MinInt64) {
			return 0, true, nil
		}
		x += step
	}
	return x, false, nil
}

// rangeKeys returns the keys of s's range lookup, or nil when the scan
// should read the whole table (no range, a source keeping no order, or
// too many keys in range).
func (s *scanNode) rangeKeys(ec *evalCtx) (*Vec, error) {
	rs, ok := s.table.Source.(KeyRangeSource)
	if s.rng == nil || !ok {
		return nil, nil
	}
	kt := s.table.Columns[s.rng.col].Type
	limit := int(s.table.Source.RowCount() / rangeKeyShare)
	if s.rng.isText {
		lo, hi, empty, err := s.rng.textBounds(ec)
		if err != nil || empty {
			return NewVec(kt, 0), err
		}
		keys, ok, err := rs.TextKeysInRange(ec.run.ctx, s.rng.col, lo, hi, false, limit+1)
		if err != nil || !ok || len(keys) > limit {
			return nil, stopOK(err)
		}
		v := NewVec(kt, 0)
		v.S, v.N = keys, len(keys)
		return v, nil
	}
	lo, hi, empty, err := s.rng.bounds(ec)
	if err != nil {
		return nil, err
	}
	if empty {
		return NewVec(kt, 0), nil
	}
	keys, ok, err := rs.KeysInRange(ec.run.ctx, s.rng.col, lo, hi, false, limit+1)
	if err != nil || !ok || len(keys) > limit {
		return nil, stopOK(err)
	}
	v := NewVec(kt, 0)
	v.I = keys
	v.N = len(keys)
	return v, nil
}

// MergeKeys merges two ascending lists of distinct keys into one (a key
// in both once), descending when desc, at most limit keys (<= 0: all).
// Sources use it to combine the keys of their parts.
func MergeKeys(a, b []int64, desc bool, limit int) []int64 {
	n := len(a) + len(b)
	if limit > 0 {
		n = min(n, limit)
	}
	out := make([]int64, 0, n)
	if desc {
		i, j := len(a)-1, len(b)-1
		for (i >= 0 || j >= 0) && (limit <= 0 || len(out) < limit) {
			switch {
			case j < 0 || (i >= 0 && a[i] > b[j]):
				out = append(out, a[i])
				i--
			case i < 0 || b[j] > a[i]:
				out = append(out, b[j])
				j--
			default:
				out = append(out, a[i])
				i, j = i-1, j-1
			}
		}
		return out
	}
	i, j := 0, 0
	for (i < len(a) || j < len(b)) && (limit <= 0 || len(out) < limit) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}

// KeysInRange implements KeyRangeSource for an in-memory table: the
// keys of its index in range, sorted.
func (m *MemTable) KeysInRange(_ context.Context, column int, lo, hi int64, desc bool, limit int) ([]int64, bool, error) {
	if column < 0 || column >= len(m.Cols) || m.Cols[column].Type.Kind() != KInt {
		return nil, false, nil
	}
	idx, err := m.keyIndex(column)
	if err != nil {
		return nil, false, err
	}
	var keys []int64
	for k := range idx {
		if len(k) != 9 || k[0] != 1 {
			continue
		}
		var v int64
		for i := 8; i >= 1; i-- {
			v = v<<8 | int64(k[i])
		}
		if v >= lo && v <= hi {
			keys = append(keys, v)
		}
	}
	slices.Sort(keys)
	return MergeKeys(keys, nil, desc, limit), true, nil
}

// KeysInRange implements KeyRangeSource through a transaction's pending
// writes: the base's keys in range and those of its pending inserts
// (keys of rows it deleted may stay listed).
func (o *overlaySource) KeysInRange(ctx context.Context, column int, lo, hi int64, desc bool, limit int) ([]int64, bool, error) {
	rs, ok := o.base.(KeyRangeSource)
	if !ok {
		return nil, false, nil
	}
	base, ok, err := rs.KeysInRange(ctx, column, lo, hi, false, 0)
	if err != nil || !ok {
		return nil, ok, err
	}
	var pend []int64
	for _, rec := range o.ov.Inserts {
		kv, err := vecFromArrow(rec.Column(column), o.cols[column].Type)
		if err != nil {
			return nil, false, err
		}
		for i := 0; i < kv.N; i++ {
			if !kv.IsNull(i) && kv.I[i] >= lo && kv.I[i] <= hi {
				pend = append(pend, kv.I[i])
			}
		}
	}
	slices.Sort(pend)
	return MergeKeys(base, slices.Compact(pend), desc, limit), true, nil
}

// TextKeysInRange implements KeyRangeSource for an in-memory table's
// text key column: the keys of its index within the bounds, sorted.
func (m *MemTable) TextKeysInRange(_ context.Context, column int, lo, hi TextBound, desc bool, limit int) ([]string, bool, error) {
	if column < 0 || column >= len(m.Cols) || !textKeyType(m.Cols[column].Type) {
		return nil, false, nil
	}
	idx, err := m.keyIndex(column)
	if err != nil {
		return nil, false, err
	}
	var keys []string
	for k := range idx {
		if v, ok := TextKey(k); ok && !lo.below(v) && !hi.above(v) {
			keys = append(keys, v)
		}
	}
	slices.Sort(keys)
	return MergeTextKeys(keys, nil, desc, limit), true, nil
}

// TextKeysInRange implements KeyRangeSource through a transaction's
// pending writes, as KeysInRange.
func (o *overlaySource) TextKeysInRange(ctx context.Context, column int, lo, hi TextBound, desc bool, limit int) ([]string, bool, error) {
	rs, ok := o.base.(KeyRangeSource)
	if !ok {
		return nil, false, nil
	}
	base, ok, err := rs.TextKeysInRange(ctx, column, lo, hi, false, 0)
	if err != nil || !ok {
		return nil, ok, err
	}
	var pend []string
	for _, rec := range o.ov.Inserts {
		kv, err := vecFromArrow(rec.Column(column), o.cols[column].Type)
		if err != nil {
			return nil, false, err
		}
		for i := 0; i < kv.N; i++ {
			if !kv.IsNull(i) && !lo.below(kv.S[i]) && !hi.above(kv.S[i]) {
				pend = append(pend, kv.S[i])
			}
		}
	}
	slices.Sort(pend)
	return MergeTextKeys(base, slices.Compact(pend), desc, limit), true, nil
}

// likeColumn is the column a LIKE tests: a text column, or a varchar
// column under its cast to text.
func likeColumn(e Expr) (*colRef, bool) {
	if c, ok := e.(*colRef); ok {
		return c, true
	}
	return varcharAsText(e)
}

// likePrefixRange is the range of a text key column that col LIKE
// pattern (a constant with a fixed prefix, the default escape) implies,
// as PostgreSQL's btree serves LIKE under the C collation: col >=
// prefix AND col < the prefix with its last byte incremented (an ASCII
// last byte; otherwise only the lower bound). The LIKE stays in the
// filter.
func likePrefixRange(col int, pattern Expr) (*keyRange, bool) {
	c, ok := pattern.(*constExpr)
	if !ok || c.val.N != 1 || c.val.IsNull(0) || c.val.T.Kind() != KStr {
		return nil, false
	}
	p := c.val.S[0]
	var prefix []byte
scan:
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '%', '_':
			break scan
		case '\\':
			if i+1 >= len(p) {
				break scan
			}
			i++
		}
		prefix = append(prefix, p[i])
	}
	if len(prefix) == 0 {
		return nil, false
	}
	text := func(s string) Expr {
		v := NewVec(TText, 1)
		v.S[0] = s
		return newConst(v)
	}
	r := &keyRange{col: col, isText: true}
	r.add(">=", text(string(prefix)))
	if last := prefix[len(prefix)-1]; last < 0x7f {
		hi := append([]byte(nil), prefix...)
		hi[len(hi)-1]++
		r.add("<", text(string(hi)))
	}
	return r, true
}
