package exec

import (
	"sort"
	"time"

	"github.com/cockroachdb/apd/v3"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// Frame option bits (PostgreSQL's FRAMEOPTION_*).
const (
	frameRange        = 0x2
	frameRows         = 0x4
	frameGroups       = 0x8
	frameStartUnbPrec = 0x20
	frameEndUnbFoll   = 0x100
	frameStartCurrent = 0x200
	frameEndCurrent   = 0x400
	frameStartOffPrec = 0x800
	frameEndOffPrec   = 0x1000
	frameStartOffFoll = 0x2000
	frameEndOffFoll   = 0x4000
	frameExclude      = 0x8000 | 0x10000 | 0x20000
	frameDefault      = 0x1 | frameRange | frameStartUnbPrec | frameEndCurrent
)

type winCollector struct {
	calls []*winCall
}

// winCall is one window function application.
type winCall struct {
	name      string
	args      []Expr
	partition []Expr
	order     []Expr
	orderKeys []sortKey
	frame     int32
	startOff  Expr
	endOff    Expr
	t         Type
	agg       func() accum // for aggregates used as window functions
	col       int          // output column in the window node's batch
	filter    Expr
}

// winRef reads a window function's result column.
type winRef struct{ call *winCall }

func (w *winRef) Type() Type     { return w.call.t }
func (w *winRef) String() string { return "win:" + w.call.name }
func (w *winRef) Eval(_ *evalCtx, b *Batch, _ []int32) (*Vec, error) {
	return b.Cols[w.call.col], nil
}

func (b *binder) bindWindowCall(name string, fc *q.FuncCall, sc *scope) (Expr, error) {
	if b.win == nil || b.aggLevel != "" {
		where := b.aggLevel
		if where == "" {
			where = "this context"
		}
		return nil, errf(CodeWindowingError, "window functions are not allowed in %s", where)
	}
	wd, err := b.resolveWindow(fc.Over)
	if err != nil {
		return nil, err
	}
	if fc.AggDistinct {
		return nil, unsupported("DISTINCT is not implemented for window functions")
	}
	if len(fc.AggOrder) > 0 {
		return nil, unsupported("aggregate ORDER BY is not implemented for window functions")
	}
	savedAgg, savedWin := b.agg, b.win
	b.win = nil
	defer func() { b.win = savedWin }()
	wc := &winCall{name: name, frame: wd.FrameOptions}
	if wc.frame == 0 {
		wc.frame = frameDefault
	}
	if !fc.AggStar {
		if wc.args, err = b.bindList(fc.Args, sc); err != nil {
			return nil, err
		}
	}
	if wc.args == nil && !fc.AggStar {
		wc.args = []Expr{}
	}
	for _, p := range wd.PartitionClause {
		e, err := b.bindExpr(p, sc)
		if err != nil {
			return nil, err
		}
		wc.partition = append(wc.partition, e)
	}
	for _, o := range wd.OrderClause {
		sb := o.GetSortBy()
		e, err := b.bindExpr(sb.Node, sc)
		if err != nil {
			return nil, err
		}
		if sk := b.enumSortKeyOf(e); sk != nil { // enums sort by declaration (enums.go)
			e = sk
		}
		wc.order = append(wc.order, e)
		wc.orderKeys = append(wc.orderKeys, makeSortKey(sb, len(wc.order)-1))
	}
	if err := b.bindFrameOffsets(wc, wd); err != nil {
		return nil, err
	}
	if fc.AggFilter != nil {
		f, err := b.bindExpr(fc.AggFilter, sc)
		if err != nil {
			return nil, err
		}
		if wc.filter, err = b.coerceBool(f, "FILTER"); err != nil {
			return nil, err
		}
	}
	switch name {
	case "row_number", "rank", "dense_rank", "ntile":
		wc.t = TInt8
		if name == "ntile" {
			if len(wc.args) != 1 {
				return nil, noFunction(name, wc.args)
			}
			if wc.args[0], err = b.coerce(wc.args[0], TInt4, castImplicit, ""); err != nil {
				return nil, err
			}
			wc.t = TInt4
		} else if len(wc.args) != 0 {
			return nil, noFunction(name, wc.args)
		}
	case "percent_rank", "cume_dist":
		wc.t = TFloat8
	case "lag", "lead":
		if len(wc.args) < 1 || len(wc.args) > 3 {
			return nil, noFunction(name, wc.args)
		}
		if len(wc.args) >= 2 {
			if wc.args[1], err = b.coerce(wc.args[1], TInt4, castImplicit, ""); err != nil {
				return nil, err
			}
		}
		if len(wc.args) == 3 {
			t, err := b.commonTypeCoerce([]Expr{wc.args[0], wc.args[2]}, name)
			if err != nil {
				return nil, err
			}
			wc.args[0], _ = b.coerce(wc.args[0], t, castImplicit, "")
			wc.args[2], _ = b.coerce(wc.args[2], t, castImplicit, "")
		}
		wc.t = wc.args[0].Type()
	case "first_value", "last_value", "nth_value":
		if len(wc.args) < 1 {
			return nil, noFunction(name, wc.args)
		}
		if name == "nth_value" {
			if len(wc.args) != 2 {
				return nil, noFunction(name, wc.args)
			}
			if wc.args[1], err = b.coerce(wc.args[1], TInt4, castImplicit, ""); err != nil {
				return nil, err
			}
		}
		wc.t = wc.args[0].Type()
	default:
		mk, ok := aggregates[name]
		if !ok {
			if _, isFn := funcs[name]; isFn {
				return nil, errf(CodeWrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
			}
			return nil, errf(CodeUndefinedFunction, "function %s does not exist", name)
		}
		if fc.AggStar {
			wc.t = TInt8
			wc.agg = func() accum { return &countAcc{star: true} }
		} else {
			t, acc, args, err := mk(b, wc.args)
			if err != nil {
				return nil, err
			}
			wc.t, wc.agg, wc.args = t, acc, args
		}
	}
	switch name {
	case "lag", "lead", "first_value", "last_value", "nth_value":
		wc.t.Mod = -1 // polymorphic results carry no typmod in PostgreSQL
	}
	if wc.t.OID == OIDUnknown {
		wc.t = TText
		wc.args[0], _ = b.coerce(wc.args[0], TText, castImplicit, "")
	}
	_ = savedAgg
	savedWin.calls = append(savedWin.calls, wc)
	return &winRef{call: wc}, nil
}

// windowNode materializes its input and appends one column per window call.
type windowNode struct {
	input plan
	calls []*winCall
	cols  []colInfo
}

func (b *binder) planWindows(p plan, calls []*winCall) (plan, error) {
	cols := append([]colInfo{}, p.columns()...)
	for _, c := range calls {
		c.col = len(cols)
		cols = append(cols, colInfo{name: c.name, t: c.t})
	}
	return &windowNode{input: p, calls: calls, cols: cols}, nil
}

func (w *windowNode) columns() []colInfo { return w.cols }

func (w *windowNode) run(ec *evalCtx, emit func(*Batch) error) error {
	buf, err := collect(ec, w.input)
	if err != nil {
		return err
	}
	defer buf.free(ec.run)
	in := buf.batch()
	out := &Batch{N: in.N, Cols: append([]*Vec{}, in.Cols...)}
	for _, c := range w.calls {
		v, err := evalWindow(ec, c, in)
		if err != nil {
			return err
		}
		out.Cols = append(out.Cols, v)
	}
	return emitChunks(out, emit)
}

func evalWindow(ec *evalCtx, c *winCall, in *Batch) (*Vec, error) {
	n := in.N
	evalAll := func(es []Expr) ([]*Vec, error) {
		out := make([]*Vec, len(es))
		for i, e := range es {
			v, err := e.Eval(ec, in, nil)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	parts, err := evalAll(c.partition)
	if err != nil {
		return nil, err
	}
	ords, err := evalAll(c.order)
	if err != nil {
		return nil, err
	}
	args, err := evalAll(c.args)
	if err != nil {
		return nil, err
	}
	var filt *Vec
	if c.filter != nil {
		if filt, err = c.filter.Eval(ec, in, nil); err != nil {
			return nil, err
		}
	}
	// sort rows by partition keys then order keys
	keyCols := append(append([]*Vec{}, parts...), ords...)
	var keys []sortKey
	for i := range parts {
		keys = append(keys, sortKey{col: i})
	}
	for _, k := range c.orderKeys {
		keys = append(keys, sortKey{col: len(parts) + k.col, desc: k.desc, nullsFirst: k.nullsFirst})
	}
	perm := allRows(n)
	sortPerm(perm, keyCols, keys)
	out := NewVec(c.t, n)
	partKeys := keys[:len(parts)]
	ordKeys := keys[len(parts):]
	fr, err := evalFrameSpec(ec, c, ords)
	if err != nil {
		return nil, err
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && cmpKeys(keyCols, partKeys, int(perm[lo]), int(perm[hi])) == 0 {
			hi++
		}
		rows := perm[lo:hi]
		if err := windowPartition(c, rows, keyCols, ordKeys, args, filt, out, fr); err != nil {
			return nil, err
		}
		lo = hi
	}
	return out, nil
}

// windowPartition computes one partition (rows in window order).
func windowPartition(c *winCall, rows []int32, keyCols []*Vec, ordKeys []sortKey, args []*Vec, filt *Vec, out *Vec, fr *frameSpec) error {
	m := len(rows)
	peerEnd := make([]int, m) // exclusive end of each row's peer group
	peerStart := make([]int, m)
	group := make([]int, m) // peer group number (GROUPS frames)
	var groupStart []int    // first row of each peer group
	for i := 0; i < m; {
		j := i + 1
		for j < m && cmpKeys(keyCols, ordKeys, int(rows[i]), int(rows[j])) == 0 {
			j++
		}
		for k := i; k < j; k++ {
			peerStart[k], peerEnd[k], group[k] = i, j, len(groupStart)
		}
		groupStart = append(groupStart, i)
		i = j
	}
	if len(ordKeys) == 0 {
		for k := range peerEnd {
			peerStart[k], peerEnd[k], group[k] = 0, m, 0
		}
		groupStart = []int{0}
	}
	pf := &partFrame{fr: fr, rows: rows, peerStart: peerStart, peerEnd: peerEnd, group: group, groupStart: groupStart}
	if fr.rangeOffsets {
		pf.nullLo, pf.nullHi = fr.nullRegion(rows)
	}
	frame := pf.bounds
	switch c.name {
	case "row_number":
		for i, r := range rows {
			out.I[r] = int64(i + 1)
		}
		return nil
	case "rank":
		for i, r := range rows {
			out.I[r] = int64(peerStart[i] + 1)
		}
		return nil
	case "dense_rank":
		d := int64(0)
		for i, r := range rows {
			if i == 0 || peerStart[i] == i {
				d++
			}
			out.I[r] = d
		}
		return nil
	case "percent_rank":
		for i, r := range rows {
			if m > 1 {
				out.F[r] = float64(peerStart[i]) / float64(m-1)
			}
		}
		return nil
	case "cume_dist":
		for i, r := range rows {
			out.F[r] = float64(peerEnd[i]) / float64(m)
		}
		return nil
	case "ntile":
		for i, r := range rows {
			if args[0].IsNull(int(r)) {
				out.SetNull(int(r))
				continue
			}
			buckets := args[0].I[r]
			if buckets <= 0 {
				return errf(pgerr.InvalidArgumentForNtileFunction, "argument of ntile must be greater than zero")
			}
			per := int64(m) / buckets
			extra := int64(m) % buckets
			// the first `extra` buckets have per+1 rows
			k := int64(i)
			var bucket int64
			if k < extra*(per+1) {
				bucket = k/(per+1) + 1
			} else {
				bucket = extra + (k-extra*(per+1))/max(per, 1) + 1
			}
			out.I[r] = bucket
		}
		return nil
	case "lag", "lead":
		for i, r := range rows {
			off := int64(1)
			if len(args) >= 2 {
				if args[1].IsNull(int(r)) {
					out.SetNull(int(r))
					continue
				}
				off = args[1].I[r]
			}
			if c.name == "lag" {
				off = -off
			}
			j := int64(i) + off
			if j < 0 || j >= int64(m) {
				if len(args) == 3 {
					out.copyRow(int(r), args[2], int(r))
				} else {
					out.SetNull(int(r))
				}
				continue
			}
			out.copyRow(int(r), args[0], int(rows[j]))
		}
		return nil
	case "first_value", "last_value", "nth_value":
		for i, r := range rows {
			idx := pf.members(i)
			if len(idx) == 0 {
				out.SetNull(int(r))
				continue
			}
			var j int
			switch c.name {
			case "first_value":
				j = idx[0]
			case "last_value":
				j = idx[len(idx)-1]
			default:
				if args[1].IsNull(int(r)) {
					out.SetNull(int(r))
					continue
				}
				nth := int(args[1].I[r])
				if nth <= 0 {
					return errf(pgerr.InvalidArgumentForNthValueFunction, "argument of nth_value must be greater than zero")
				}
				if nth > len(idx) {
					out.SetNull(int(r))
					continue
				}
				j = idx[nth-1]
			}
			out.copyRow(int(r), args[0], int(rows[j]))
		}
		return nil
	}
	// aggregate over the frame
	use := func(j int) bool { return filt == nil || (!filt.IsNull(int(rows[j])) && filt.B[rows[j]]) }
	if c.frame&frameStartUnbPrec != 0 && c.frame&frameExclude == 0 {
		acc := c.agg()
		fed := 0
		for i, r := range rows {
			_, fe := frame(i)
			for fed < fe {
				if use(fed) {
					if err := acc.update(nil, args, []int32{rows[fed]}, []int32{0}, 1); err != nil {
						return err
					}
				}
				fed++
			}
			v, err := acc.result(1)
			if err != nil {
				return err
			}
			out.copyRow(int(r), v, 0)
		}
		return nil
	}
	for i, r := range rows {
		acc := c.agg()
		var sel []int32
		for _, j := range pf.members(i) {
			if use(j) {
				sel = append(sel, rows[j])
			}
		}
		if len(sel) > 0 {
			g := make([]int32, len(sel))
			if err := acc.update(nil, args, sel, g, 1); err != nil {
				return err
			}
		}
		v, err := acc.result(1)
		if err != nil {
			return err
		}
		out.copyRow(int(r), v, 0)
	}
	return nil
}

// resolveWindow merges OVER w / OVER (w ...) with the WINDOW clause the
// way PostgreSQL does: a referenced window supplies PARTITION BY and, if
// the referencing one has none, ORDER BY; a referenced window must not
// have a frame.
func (b *binder) resolveWindow(wd *q.WindowDef) (*q.WindowDef, error) {
	name := wd.Name
	if name == "" {
		name = wd.Refname
	}
	if name == "" {
		return wd, nil
	}
	base, ok := b.windows[name]
	if !ok {
		return nil, errf(CodeUndefinedObject, "window \"%s\" does not exist", name)
	}
	base, err := b.resolveWindow(&q.WindowDef{Refname: base.Refname, PartitionClause: base.PartitionClause, OrderClause: base.OrderClause, FrameOptions: base.FrameOptions, StartOffset: base.StartOffset, EndOffset: base.EndOffset})
	if err != nil {
		return nil, err
	}
	if wd.Name != "" { // OVER w: the window as defined
		return base, nil
	}
	if len(wd.PartitionClause) > 0 {
		return nil, errf(CodeWindowingError, "cannot override PARTITION BY clause of window \"%s\"", name)
	}
	if len(wd.OrderClause) > 0 && len(base.OrderClause) > 0 {
		return nil, errf(CodeWindowingError, "cannot override ORDER BY clause of window \"%s\"", name)
	}
	if base.FrameOptions&0x1 != 0 { // FRAMEOPTION_NONDEFAULT
		return nil, errf(CodeWindowingError, "cannot copy window \"%s\" because it has a frame clause", name)
	}
	out := &q.WindowDef{PartitionClause: base.PartitionClause, OrderClause: base.OrderClause, FrameOptions: wd.FrameOptions, StartOffset: wd.StartOffset, EndOffset: wd.EndOffset}
	if len(wd.OrderClause) > 0 {
		out.OrderClause = wd.OrderClause
	}
	return out, nil
}

// Frame exclusion bits (FRAMEOPTION_EXCLUDE_*).
const (
	frameExcludeCurrent = 0x8000
	frameExcludeGroup   = 0x10000
	frameExcludeTies    = 0x20000
)

// bindFrameOffsets types the frame offsets: ROWS and GROUPS count rows or
// peer groups (bigint); RANGE offsets are added to the single ORDER BY
// column, so their type follows it (PostgreSQL's in_range support:
// integers, numeric, floats, and interval for date/time and interval
// columns).
func (b *binder) bindFrameOffsets(wc *winCall, wd *q.WindowDef) error {
	if wc.frame&frameGroups != 0 && len(wc.order) == 0 {
		return errf(CodeWindowingError, "GROUPS mode requires an ORDER BY clause")
	}
	var offT Type
	rangeOff := wc.frame&frameRange != 0 && (wd.StartOffset != nil || wd.EndOffset != nil)
	if rangeOff {
		if len(wc.order) != 1 {
			return errf(CodeWindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
		}
		ct := wc.order[0].Type()
		switch {
		case ct.isInt():
			offT = TInt8
		case ct.OID == OIDNumeric:
			offT = TNumeric
		case ct.OID == OIDFloat4 || ct.OID == OIDFloat8:
			offT = TFloat8
		case ct.OID == OIDDate || ct.OID == OIDTimestamp || ct.OID == OIDTimestamptz || ct.OID == OIDTime || ct.OID == OIDInterval:
			offT = TInterval
		default:
			return unsupported("RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", typeName(ct))
		}
	}
	bind := func(n *q.Node) (Expr, error) {
		e, err := b.bindExpr(n, newScope(nil))
		if err != nil {
			return nil, err
		}
		if !rangeOff {
			return b.coerce(e, TInt8, castImplicit, "frame offset")
		}
		et := e.Type()
		ok := et.OID == OIDUnknown || (offT.isInt() && et.isInt()) || et.OID == offT.OID ||
			(offT.OID == OIDNumeric && (et.isInt() || et.OID == OIDNumeric)) || (offT.OID == OIDFloat8 && (et.OID == OIDFloat4 || et.isInt() || et.OID == OIDNumeric))
		if !ok {
			return nil, unsupported("RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", typeName(wc.order[0].Type()), typeName(et))
		}
		return b.coerce(e, offT, castImplicit, "frame offset")
	}
	var err error
	if wd.StartOffset != nil {
		if wc.startOff, err = bind(wd.StartOffset); err != nil {
			return err
		}
	}
	if wd.EndOffset != nil {
		if wc.endOff, err = bind(wd.EndOffset); err != nil {
			return err
		}
	}
	return nil
}

// typeName is a type's SQL name as PostgreSQL's messages print it.
func typeName(t Type) string {
	if info, ok := typeInfos[t.OID]; ok {
		return info.sqlName
	}
	return t.String()
}

// frameSpec is a window call's frame with its offsets evaluated.
type frameSpec struct {
	opts             int32
	startOff, endOff int64 // ROWS and GROUPS offsets
	rangeOffsets     bool
	ord              *Vec // RANGE with offsets: the ORDER BY column
	desc, nullsFirst bool
	startV, endV     *Vec // RANGE offsets (one row)
	loc              *time.Location
}

func evalFrameSpec(ec *evalCtx, c *winCall, ords []*Vec) (*frameSpec, error) {
	fr := &frameSpec{opts: c.frame, loc: ec.loc}
	fr.rangeOffsets = c.frame&frameRange != 0 && (c.startOff != nil || c.endOff != nil)
	eval := func(e Expr, which string) (*Vec, error) {
		v, err := evalConst(ec, e)
		if err != nil {
			return nil, err
		}
		if v.IsNull(0) {
			return nil, errf(CodeNullValueNotAllowed, "frame %s offset must not be null", which)
		}
		neg := false
		switch v.T.Kind() {
		case KInt:
			neg = v.I[0] < 0
		case KFloat:
			neg = v.F[0] < 0
		case KNum:
			neg = v.D[0].Negative && !v.D[0].IsZero()
		case KInterval:
			neg = cmpInterval(v.V[0], Interval{}) < 0
		}
		if neg {
			if fr.rangeOffsets {
				return nil, errf(codeInvalidPrecedingFollowing, "invalid preceding or following size in window function")
			}
			return nil, errf(codeInvalidPrecedingFollowing, "frame %s offset must not be negative", which)
		}
		return v, nil
	}
	if c.startOff != nil {
		v, err := eval(c.startOff, "starting")
		if err != nil {
			return nil, err
		}
		if fr.rangeOffsets {
			fr.startV = v
		} else {
			fr.startOff = v.I[0]
		}
	}
	if c.endOff != nil {
		v, err := eval(c.endOff, "ending")
		if err != nil {
			return nil, err
		}
		if fr.rangeOffsets {
			fr.endV = v
		} else {
			fr.endOff = v.I[0]
		}
	}
	if fr.rangeOffsets {
		fr.ord = ords[0]
		fr.desc, fr.nullsFirst = c.orderKeys[0].desc, c.orderKeys[0].nullsFirst
	}
	return fr, nil
}

// nullRegion finds the partition's rows whose ORDER BY value is NULL
// (contiguous, at the start or the end).
func (fr *frameSpec) nullRegion(rows []int32) (int, int) {
	m := len(rows)
	if fr.nullsFirst {
		k := 0
		for k < m && fr.ord.IsNull(int(rows[k])) {
			k++
		}
		return 0, k
	}
	k := m
	for k > 0 && fr.ord.IsNull(int(rows[k-1])) {
		k--
	}
	return k, m
}

// partFrame computes frames within one sorted partition.
type partFrame struct {
	fr                 *frameSpec
	rows               []int32
	peerStart, peerEnd []int
	group              []int
	groupStart         []int
	nullLo, nullHi     int
}

func satAdd(i int, off int64) int {
	if off > int64(1<<40) {
		off = 1 << 40
	}
	return i + int(off)
}

// bounds returns row i's frame [fs, fe) before exclusion.
func (p *partFrame) bounds(i int) (int, int) {
	f := p.fr.opts
	m := len(p.rows)
	groupEnd := func(g int) int {
		if g+1 < len(p.groupStart) {
			return p.groupStart[g+1]
		}
		return m
	}
	fs, fe := 0, m
	switch {
	case f&frameStartUnbPrec != 0:
		fs = 0
	case f&frameStartCurrent != 0:
		if f&frameRows != 0 {
			fs = i
		} else {
			fs = p.peerStart[i]
		}
	case f&(frameStartOffPrec|frameStartOffFoll) != 0:
		prec := f&frameStartOffPrec != 0
		switch {
		case f&frameRows != 0:
			if prec {
				fs = satAdd(i, -min(p.fr.startOff, 1<<40))
			} else {
				fs = satAdd(i, p.fr.startOff)
			}
		case f&frameGroups != 0:
			g := satAdd(p.group[i], p.fr.startOff)
			if prec {
				g = satAdd(p.group[i], -min(p.fr.startOff, 1<<40))
			}
			switch {
			case g < 0:
				fs = 0
			case g >= len(p.groupStart):
				fs = m
			default:
				fs = p.groupStart[g]
			}
		default:
			fs = p.rangeBound(i, true, prec, p.fr.startV)
		}
	}
	switch {
	case f&frameEndUnbFoll != 0:
		fe = m
	case f&frameEndCurrent != 0:
		if f&frameRows != 0 {
			fe = i + 1
		} else {
			fe = p.peerEnd[i]
		}
	case f&(frameEndOffPrec|frameEndOffFoll) != 0:
		prec := f&frameEndOffPrec != 0
		switch {
		case f&frameRows != 0:
			if prec {
				fe = satAdd(i, -min(p.fr.endOff, 1<<40)) + 1
			} else {
				fe = satAdd(i, p.fr.endOff) + 1
			}
		case f&frameGroups != 0:
			g := satAdd(p.group[i], p.fr.endOff)
			if prec {
				g = satAdd(p.group[i], -min(p.fr.endOff, 1<<40))
			}
			switch {
			case g < 0:
				fe = 0
			case g >= len(p.groupStart):
				fe = m
			default:
				fe = groupEnd(g)
			}
		default:
			fe = p.rangeBound(i, false, prec, p.fr.endV)
		}
	}
	return max(fs, 0), min(fe, m)
}

// members lists row i's frame rows (partition positions) after frame
// exclusion.
func (p *partFrame) members(i int) []int {
	fs, fe := p.bounds(i)
	if fs >= fe {
		return nil
	}
	f := p.fr.opts
	out := make([]int, 0, fe-fs)
	for j := fs; j < fe; j++ {
		switch {
		case f&frameExcludeCurrent != 0 && j == i:
			continue
		case f&frameExcludeGroup != 0 && j >= p.peerStart[i] && j < p.peerEnd[i]:
			continue
		case f&frameExcludeTies != 0 && j != i && j >= p.peerStart[i] && j < p.peerEnd[i]:
			continue
		}
		out = append(out, j)
	}
	return out
}

// rangeBound finds a RANGE offset frame bound for row i: the value is
// the current row's ORDER BY value minus (PRECEDING) or plus (FOLLOWING)
// the offset, mirrored for DESC; a start bound is the first row not
// before it, an end bound the first row after it. NULL values are only in
// range of each other.
func (p *partFrame) rangeBound(i int, start, prec bool, off *Vec) int {
	ord := p.fr.ord
	r := int(p.rows[i])
	if ord.IsNull(r) {
		if start {
			return p.nullLo
		}
		return p.nullHi
	}
	a, b := 0, len(p.rows) // the non-NULL region
	if p.nullHi > p.nullLo {
		if p.nullLo == 0 {
			a = p.nullHi
		} else {
			b = p.nullLo
		}
	}
	sub := prec != p.fr.desc
	tgt := newRangeTarget(ord, r, off, sub, p.fr.loc)
	// c(k) compares row k's value with the target in window order
	c := func(k int) int {
		x := tgt.cmp(ord, int(p.rows[k]))
		if p.fr.desc {
			return -x
		}
		return x
	}
	return a + sort.Search(b-a, func(k int) bool {
		if start {
			return c(a+k) >= 0
		}
		return c(a+k) > 0
	})
}

// rangeTarget is value ± offset for RANGE frames; inf is -1/+1 when the
// sum overflowed (beyond every value).
type rangeTarget struct {
	inf int
	i   int64
	f   float64
	d   apd.Decimal
	iv  Interval
	us  bool // i holds microseconds (date columns are compared as timestamps)
}

func newRangeTarget(ord *Vec, r int, off *Vec, sub bool, loc *time.Location) *rangeTarget {
	t := &rangeTarget{}
	switch ord.T.OID {
	case OIDDate, OIDTimestamp, OIDTimestamptz:
		iv := off.V[0]
		if sub {
			iv = Interval{Months: -iv.Months, Days: -iv.Days, Micros: -iv.Micros}
		}
		us := ord.I[r]
		if ord.T.OID == OIDDate {
			us *= usPerDay
			t.us = true
		}
		t.i = addInterval(us, iv, ord.T.OID == OIDTimestamptz, loc)
		return t
	case OIDTime:
		d := off.V[0].Micros
		if sub {
			d = -d
		}
		t.i = ord.I[r] + d
		return t
	case OIDInterval:
		v, o := ord.V[r], off.V[0]
		if sub {
			o = Interval{Months: -o.Months, Days: -o.Days, Micros: -o.Micros}
		}
		t.iv = Interval{Months: v.Months + o.Months, Days: v.Days + o.Days, Micros: v.Micros + o.Micros}
		return t
	}
	switch ord.T.Kind() {
	case KInt:
		o := off.I[0]
		if sub {
			o = -o
		}
		s := ord.I[r] + o
		if (o > 0 && s < ord.I[r]) || (o < 0 && s > ord.I[r]) {
			t.inf = 1
			if o < 0 {
				t.inf = -1
			}
		}
		t.i = s
	case KFloat:
		o := off.F[0]
		if sub {
			o = -o
		}
		t.f = ord.F[r] + o
	case KNum:
		o := off.D[0]
		if sub {
			o.Neg(&o)
		}
		_, _ = numCtx.Add(&t.d, &ord.D[r], &o)
	}
	return t
}

// cmp compares row k of ord with the target.
func (t *rangeTarget) cmp(ord *Vec, k int) int {
	if t.inf != 0 {
		return -t.inf
	}
	switch ord.T.OID {
	case OIDInterval:
		return cmpInterval(ord.V[k], t.iv)
	}
	switch ord.T.Kind() {
	case KInt:
		v := ord.I[k]
		if t.us {
			v *= usPerDay
		}
		return cmpInt(v, t.i)
	case KFloat:
		return cmpFloat(ord.F[k], t.f)
	case KNum:
		return cmpNum(&ord.D[k], &t.d)
	}
	return 0
}

// codeInvalidPrecedingFollowing is invalid_preceding_or_following_size.
const codeInvalidPrecedingFollowing = pgerr.InvalidPrecedingOrFollowingSize
