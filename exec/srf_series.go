package exec

// The series and array set-returning functions: generate_series,
// generate_subscripts, unnest (srf.go).

func init() {
	defSRF(&srfDef{bind: bindGenerateSeries, run: runGenerateSeries}, "generate_series")
	defSRF(&srfDef{bind: bindGenerateSubscripts, run: runGenerateSubscripts}, "generate_subscripts")
	defSRF(&srfDef{bind: bindUnnest, run: runUnnest, nonStrict: true}, "unnest")
}

func bindGenerateSeries(b *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) < 2 || len(args) > 3 {
		return Type{}, nil, noFunction(name, args)
	}
	ts := []Expr{args[0], args[1]}
	ct, err := b.commonType(ts, "generate_series")
	if err != nil {
		return Type{}, nil, err
	}
	switch {
	case ct.isInt():
		if ct.OID == OIDInt2 {
			ct = TInt4
		}
		for i := range args {
			if args[i], err = b.coerce(args[i], ct, castImplicit, ""); err != nil {
				return Type{}, nil, noFunction(name, args)
			}
		}
	case ct.OID == OIDNumeric || ct.OID == OIDFloat8 || ct.OID == OIDFloat4:
		if ct.Kind() == KFloat {
			return Type{}, nil, unsupported("generate_series over floating point is not supported")
		}
		for i := range args {
			if args[i], err = b.coerce(args[i], TNumeric, castImplicit, ""); err != nil {
				return Type{}, nil, noFunction(name, args)
			}
		}
	case ct.OID == OIDTimestamp || ct.OID == OIDTimestamptz || ct.OID == OIDDate:
		if ct.OID == OIDDate {
			ct = TTimestamptz
		}
		if len(args) != 3 {
			return Type{}, nil, noFunction(name, args)
		}
		for i := 0; i < 2; i++ {
			if args[i], err = b.coerce(args[i], ct, castImplicit, ""); err != nil {
				return Type{}, nil, err
			}
		}
		if args[2], err = b.coerce(args[2], TInterval, castImplicit, ""); err != nil {
			return Type{}, nil, err
		}
	default:
		return Type{}, nil, noFunction(name, args)
	}
	return args[0].Type(), args, nil
}

func runGenerateSeries(f *funcScanNode, ec *evalCtx, vals []*Vec, flush srfFlush) error {
	t := f.cols[0].t
	switch {
	case t.Kind() == KInt && t.isTemporal():
		return generateTimeSeries(ec, t, vals, flush)
	case t.Kind() == KInt:
		return generateIntSeries(ec, t, vals, flush)
	case t.Kind() == KNum:
		return generateNumericSeries(t, vals, flush)
	}
	return nil
}

// generateTimeSeries steps a timestamp(tz) by an interval.
func generateTimeSeries(ec *evalCtx, t Type, vals []*Vec, flush srfFlush) error {
	start, stop, step := vals[0].I[0], vals[1].I[0], vals[2].V[0]
	if step == (Interval{}) {
		return errf(CodeInvalidParameterValue, "step size cannot equal zero")
	}
	neg := cmpInterval(step, Interval{}) < 0
	chunk := NewVec(t, 0)
	for cur := start; (!neg && cur <= stop) || (neg && cur >= stop); cur = addInterval(cur, step, t.OID == OIDTimestamptz, ec.loc) {
		chunk.grow(chunk.N + 1)
		chunk.I[chunk.N-1] = cur
		if chunk.N == batchSize {
			if err := flush(chunk); err != nil {
				return err
			}
			chunk = NewVec(t, 0)
		}
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
	}
	return flush(chunk)
}

// generateIntSeries steps an integer, stopping rather than overflowing.
func generateIntSeries(ec *evalCtx, t Type, vals []*Vec, flush srfFlush) error {
	start, stop, step := vals[0].I[0], vals[1].I[0], int64(1)
	if len(vals) == 3 {
		step = vals[2].I[0]
	}
	if step == 0 {
		return errf(CodeInvalidParameterValue, "step size cannot equal zero")
	}
	in := func(c int64) bool { return (step > 0 && c <= stop) || (step < 0 && c >= stop) }
	done := false
	for cur := start; !done && in(cur); {
		chunk := NewVec(t, 0)
		for n := batchSize; n > 0 && !done && in(cur); n-- {
			chunk.grow(chunk.N + 1)
			chunk.I[chunk.N-1] = cur
			next := cur + step
			if (step > 0 && next < cur) || (step < 0 && next > cur) {
				done = true
			}
			cur = next
		}
		if err := flush(chunk); err != nil {
			return err
		}
		if err := checkCancel(ec.run.ctx); err != nil {
			return err
		}
	}
	return nil
}

// generateNumericSeries steps a numeric.
func generateNumericSeries(t Type, vals []*Vec, flush srfFlush) error {
	start, stop := vals[0].D[0], vals[1].D[0]
	var step = numOne()
	if len(vals) == 3 {
		step = vals[2].D[0]
	}
	if step.IsZero() {
		return errf(CodeInvalidParameterValue, "step size cannot equal zero")
	}
	chunk := NewVec(t, 0)
	cur := start
	for (step.Sign() > 0 && cur.Cmp(&stop) <= 0) || (step.Sign() < 0 && cur.Cmp(&stop) >= 0) {
		chunk.grow(chunk.N + 1)
		chunk.D[chunk.N-1].Set(&cur)
		if err := numAdd(&cur, &cur, &step); err != nil {
			return err
		}
		if chunk.N == batchSize {
			if err := flush(chunk); err != nil {
				return err
			}
			chunk = NewVec(t, 0)
		}
	}
	return flush(chunk)
}

func bindGenerateSubscripts(b *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) < 2 || len(args) > 3 || !args[0].Type().IsArray() {
		return Type{}, nil, noFunction(name, args)
	}
	var err error
	if args[1], err = b.coerce(args[1], TInt4, castImplicit, ""); err != nil {
		return Type{}, nil, noFunction(name, args)
	}
	if len(args) == 3 {
		if args[2], err = b.coerce(args[2], TBool, castImplicit, ""); err != nil {
			return Type{}, nil, noFunction(name, args)
		}
	}
	return TInt4, args, nil
}

// runGenerateSubscripts: one-dimensional arrays, dimension 1 only;
// int2vector and oidvector are 0-based.
func runGenerateSubscripts(_ *funcScanNode, _ *evalCtx, vals []*Vec, flush srfFlush) error {
	arr := vals[0].A[0]
	if vals[1].I[0] != 1 || arr.Items.N == 0 {
		return nil
	}
	lo := int64(1)
	if arr.vector {
		lo = 0
	}
	v := NewVec(TInt4, arr.Items.N)
	rev := len(vals) == 3 && vals[2].B[0]
	for i := range v.I {
		if rev {
			v.I[i] = lo + int64(arr.Items.N-1-i)
		} else {
			v.I[i] = lo + int64(i)
		}
	}
	return flush(v)
}

func bindUnnest(_ *binder, name string, args []Expr) (Type, []Expr, error) {
	if len(args) > 1 {
		// unnest(a, b, ...) (FROM only): one column per array
		var fields []RecordField
		for _, a := range args {
			if !a.Type().IsArray() {
				if a.Type().OID == OIDUnknown {
					return Type{}, nil, errf(CodeIndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
				}
				return Type{}, nil, noFunction(name, args)
			}
			fields = append(fields, RecordField{Name: "unnest", Type: a.Type().Elem()})
		}
		return RecordType(fields), args, nil
	}
	if len(args) != 1 {
		return Type{}, nil, noFunction(name, args)
	}
	if !args[0].Type().IsArray() {
		if args[0].Type().OID == OIDUnknown {
			return Type{}, nil, errf(CodeIndeterminateDatatype, "could not determine polymorphic type because input has type unknown")
		}
		return Type{}, nil, noFunction(name, args)
	}
	return args[0].Type().Elem(), args, nil
}

// runUnnest: one array's elements (none for a NULL array), or several
// arrays side by side (unnestArrays).
func runUnnest(f *funcScanNode, ec *evalCtx, vals []*Vec, flush srfFlush) error {
	if len(vals) > 1 {
		return f.unnestArrays(ec, vals, flush)
	}
	if anyNullArg(vals) {
		return nil
	}
	return flush(vals[0].A[0].Items)
}

// unnestArrays runs unnest(a, b, ...): the arrays side by side, shorter
// ones (and NULL arrays) padded with NULLs; one column per array when
// FROM expands it, records otherwise.
func (f *funcScanNode) unnestArrays(ec *evalCtx, vals []*Vec, flush srfFlush) error {
	fields, _ := RecordFields(f.recordType())
	n := 0
	for _, v := range vals {
		if !v.IsNull(0) {
			n = max(n, v.A[0].Items.N)
		}
	}
	cols := make([]*Vec, len(vals))
	for k, v := range vals {
		c := NewVec(fields[k].Type, n)
		for i := 0; i < n; i++ {
			if v.IsNull(0) || i >= v.A[0].Items.N {
				c.SetNull(i)
				continue
			}
			c.copyRow(i, v.A[0].Items, i)
		}
		cols[k] = c
	}
	if f.expand {
		return flush(cols[0], cols[1:]...)
	}
	recs := NewVec(f.recordType(), n)
	for i := 0; i < n; i++ {
		texts := make([]*string, len(cols))
		for k, c := range cols {
			if s, ok := FormatText(c, i, ec.loc); ok {
				texts[k] = &s
			}
		}
		recs.A[i] = newRecord(recs.T, texts)
	}
	return flush(recs)
}
