package exec

// Built-in set-returning functions are registered like scalar functions
// (funcs.go): one srfDef per name holds both halves of the function, its
// binding (argument types → result type) and its run function, so a new
// one is a single registration and the binder and the executor cannot
// disagree about which functions exist. funcScanNode runs them in FROM,
// projectSetNode (projectset.go) at the top of a select list.

// srfDef is one built-in set-returning function.
type srfDef struct {
	// bind coerces the arguments and names the result type: a record
	// type (RecordType) when the function has several OUT columns, which
	// FROM expands into one column per field.
	bind func(b *binder, name string, args []Expr) (Type, []Expr, error)
	// run produces the rows from the arguments, each a one-row vector
	// evaluated once, handing them to flush a vector at a time.
	run func(f *funcScanNode, ec *evalCtx, vals []*Vec, flush srfFlush) error
	// nonStrict: NULL arguments reach run (otherwise a NULL argument
	// yields no rows, as for a STRICT function).
	nonStrict bool
	// fromOnly: the function binds only as a FROM item, not in a select
	// list or as a lateral projectSet.
	fromOnly bool
	// column names the single result column when it is an OUT
	// parameter's name (json_array_elements' "value") instead of the
	// function's.
	column string
}

// srfFlush hands rows to the function scan: v is the result column, and
// more, when given, the further result columns side by side with it
// (instead of v's records split into their fields).
type srfFlush func(v *Vec, more ...*Vec) error

// setFuncs are the built-in set-returning functions by name.
var setFuncs = map[string]*srfDef{}

// defSRF registers d under each of names.
func defSRF(d *srfDef, names ...string) {
	for _, n := range names {
		setFuncs[n] = d
	}
}

// builtinSRF reports a built-in set-returning function that binds
// outside FROM too (a select list, a lateral projectSet).
func builtinSRF(name string) bool {
	d, ok := setFuncs[name]
	return ok && !d.fromOnly
}

// bindSRF types the arguments of a built-in set-returning function.
func (b *binder) bindSRF(name string, args []Expr) (Type, []Expr, error) {
	d, ok := setFuncs[name]
	if !ok {
		if isSetReturning(name) {
			return Type{}, nil, unsupported("set-returning function %s() is not supported", name)
		}
		return Type{}, nil, errNotSRF
	}
	return d.bind(b, name, args)
}

// runSRF runs a built-in set-returning function over its evaluated
// arguments.
func (f *funcScanNode) runSRF(ec *evalCtx, vals []*Vec, flush srfFlush) error {
	d, ok := setFuncs[f.name]
	if !ok {
		return errf(CodeInternalError, "set-returning function %s has no run function", f.name)
	}
	if !d.nonStrict && anyNullArg(vals) {
		return nil
	}
	return d.run(f, ec, vals, flush)
}

// anyNullArg reports a NULL among one-row argument vectors.
func anyNullArg(vals []*Vec) bool {
	for _, v := range vals {
		if v.IsNull(0) {
			return true
		}
	}
	return false
}
