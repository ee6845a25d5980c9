package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
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
	if wc.frame&frameGroups != 0 || wc.frame&frameExclude != 0 {
		return nil, unsupported("GROUPS frames and frame exclusion are not supported")
	}
	if wc.frame&frameRange != 0 && wc.frame&(frameStartOffPrec|frameEndOffPrec|frameStartOffFoll|frameEndOffFoll) != 0 {
		return nil, unsupported("RANGE frames with offsets are not supported")
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
		wc.order = append(wc.order, e)
		wc.orderKeys = append(wc.orderKeys, makeSortKey(sb, len(wc.order)-1))
	}
	if wd.StartOffset != nil {
		if wc.startOff, err = b.bindExpr(wd.StartOffset, newScope(nil)); err != nil {
			return nil, err
		}
		if wc.startOff, err = b.coerce(wc.startOff, TInt8, castImplicit, "frame offset"); err != nil {
			return nil, err
		}
	}
	if wd.EndOffset != nil {
		if wc.endOff, err = b.bindExpr(wd.EndOffset, newScope(nil)); err != nil {
			return nil, err
		}
		if wc.endOff, err = b.coerce(wc.endOff, TInt8, castImplicit, "frame offset"); err != nil {
			return nil, err
		}
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
	var startOff, endOff int64
	if c.startOff != nil {
		v, err := evalConst(ec, c.startOff)
		if err != nil {
			return nil, err
		}
		if v.IsNull(0) || v.I[0] < 0 {
			return nil, errf(CodeInvalidParameterValue, "frame starting offset must not be null or negative")
		}
		startOff = v.I[0]
	}
	if c.endOff != nil {
		v, err := evalConst(ec, c.endOff)
		if err != nil {
			return nil, err
		}
		if v.IsNull(0) || v.I[0] < 0 {
			return nil, errf(CodeInvalidParameterValue, "frame ending offset must not be null or negative")
		}
		endOff = v.I[0]
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && cmpKeys(keyCols, partKeys, int(perm[lo]), int(perm[hi])) == 0 {
			hi++
		}
		rows := perm[lo:hi]
		if err := windowPartition(c, rows, keyCols, ordKeys, args, filt, out, startOff, endOff); err != nil {
			return nil, err
		}
		lo = hi
	}
	return out, nil
}

// windowPartition computes one partition (rows in window order).
func windowPartition(c *winCall, rows []int32, keyCols []*Vec, ordKeys []sortKey, args []*Vec, filt *Vec, out *Vec, startOff, endOff int64) error {
	m := len(rows)
	peerEnd := make([]int, m) // exclusive end of each row's peer group
	peerStart := make([]int, m)
	for i := 0; i < m; {
		j := i + 1
		for j < m && cmpKeys(keyCols, ordKeys, int(rows[i]), int(rows[j])) == 0 {
			j++
		}
		for k := i; k < j; k++ {
			peerStart[k], peerEnd[k] = i, j
		}
		i = j
	}
	if len(ordKeys) == 0 {
		for k := range peerEnd {
			peerStart[k], peerEnd[k] = 0, m
		}
	}
	// frame bounds [fs, fe) per row
	frame := func(i int) (int, int) {
		f := c.frame
		fs, fe := 0, m
		switch {
		case f&frameStartUnbPrec != 0:
			fs = 0
		case f&frameStartCurrent != 0:
			if f&frameRows != 0 {
				fs = i
			} else {
				fs = peerStart[i]
			}
		case f&frameStartOffPrec != 0:
			fs = i - int(startOff)
		case f&frameStartOffFoll != 0:
			fs = i + int(startOff)
		}
		switch {
		case f&frameEndUnbFoll != 0:
			fe = m
		case f&frameEndCurrent != 0:
			if f&frameRows != 0 {
				fe = i + 1
			} else {
				fe = peerEnd[i]
			}
		case f&frameEndOffPrec != 0:
			fe = i - int(endOff) + 1
		case f&frameEndOffFoll != 0:
			fe = i + int(endOff) + 1
		}
		fs = max(fs, 0)
		fe = min(fe, m)
		return fs, fe
	}
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
				return errf(CodeInvalidParameterValue, "argument of ntile must be greater than zero")
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
			fs, fe := frame(i)
			if fs >= fe {
				out.SetNull(int(r))
				continue
			}
			var j int
			switch c.name {
			case "first_value":
				j = fs
			case "last_value":
				j = fe - 1
			default:
				if args[1].IsNull(int(r)) {
					out.SetNull(int(r))
					continue
				}
				nth := int(args[1].I[r])
				if nth <= 0 {
					return errf(CodeInvalidParameterValue, "argument of nth_value must be greater than zero")
				}
				j = fs + nth - 1
				if j >= fe {
					out.SetNull(int(r))
					continue
				}
			}
			out.copyRow(int(r), args[0], int(rows[j]))
		}
		return nil
	}
	// aggregate over the frame
	use := func(j int) bool { return filt == nil || (!filt.IsNull(int(rows[j])) && filt.B[rows[j]]) }
	if c.frame&frameStartUnbPrec != 0 {
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
		fs, fe := frame(i)
		acc := c.agg()
		var sel []int32
		for j := fs; j < fe; j++ {
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
