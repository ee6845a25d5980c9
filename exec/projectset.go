package exec

import q "github.com/pggraph/pggraph/internal/sqlparse"

// bindTargetSRF binds a select-list item that is a set-returning function
// call, or a field selection from one ((f(...)).x, as pgjdbc writes
// (information_schema._pg_expandarray(i.indkey)).n): the call joins the
// query's lockstep SRFs and the item reads its current value. It returns
// nil when val is neither.
func (b *binder) bindTargetSRF(val *q.Node, sc *scope) (Expr, error) {
	var fields []*q.Node
	if ind := val.GetAIndirection(); ind != nil && ind.Arg.GetFuncCall() != nil {
		for _, f := range ind.Indirection {
			if f.GetString_() == nil {
				return nil, nil
			}
		}
		val, fields = ind.Arg, ind.Indirection
	}
	fc := val.GetFuncCall()
	if fc == nil || fc.Over != nil {
		return nil, nil
	}
	name, err := funcName(fc.Funcname)
	if err == nil && b.userSRFName(name) {
		call, e, err := b.bindUserTargetSRF(fc, name, sc)
		if err != nil || call == nil {
			return e, err
		}
		b.srfs = append(b.srfs, call)
		e = &srfRef{call: call}
		for _, f := range fields {
			if e, err = selectField(e, f.GetString_().Sval); err != nil {
				return nil, err
			}
		}
		return e, nil
	}
	if err != nil || !builtinSRF(name) {
		return nil, nil
	}
	args, err := b.bindList(fc.Args, sc)
	if err != nil {
		return nil, err
	}
	if name == "unnest" && len(args) > 1 {
		// the several-array form exists only in FROM
		return nil, noFunction(name, args)
	}
	t, args, err := b.bindSRF(name, args)
	if err != nil {
		return nil, err
	}
	call := &srfCall{name: name, args: args, t: t}
	b.srfs = append(b.srfs, call)
	var e Expr = &srfRef{call: call}
	for _, f := range fields {
		if e, err = selectField(e, f.GetString_().Sval); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// srfCall is a set-returning function in a select list.
type srfCall struct {
	name string
	args []Expr
	t    Type
	col  int // column in the projectSet node's output
	// user: a set-returning user function (user_srf.go)
	user *FuncDef
	call CallFunction
}

// srfRef reads the expanded value of a select-list SRF.
type srfRef struct{ call *srfCall }

func (s *srfRef) Type() Type     { return s.call.t }
func (s *srfRef) String() string { return "srf:" + s.call.name }
func (s *srfRef) Eval(_ *evalCtx, b *Batch, _ []int32) (*Vec, error) {
	return b.Cols[s.call.col], nil
}

// projectSetNode expands each input row by its select-list SRFs, which run
// in lockstep (PostgreSQL 10+): the row repeats max(len) times and shorter
// results are padded with NULL.
type projectSetNode struct {
	input plan
	srfs  []*srfCall
	cols  []colInfo
}

func (p *projectSetNode) columns() []colInfo { return p.cols }

func (p *projectSetNode) run(ec *evalCtx, emit func(*Batch) error) error {
	nin := len(p.input.columns())
	return p.input.run(ec, func(b *Batch) error {
		argVals := make([][]*Vec, len(p.srfs))
		for k, s := range p.srfs {
			for _, a := range s.args {
				v, err := a.Eval(ec, b, b.Sel)
				if err != nil {
					return err
				}
				argVals[k] = append(argVals[k], v)
			}
		}
		var rowIdx []int32
		outs := make([]*Vec, len(p.srfs))
		for k, s := range p.srfs {
			outs[k] = NewVec(s.t, 0)
		}
		var firstErr error
		forEach(b.N, b.Sel, func(i int) {
			if firstErr != nil {
				return
			}
			sets := make([]*Vec, len(p.srfs))
			n := 0
			for k, s := range p.srfs {
				args := make([]Expr, len(s.args))
				for j, v := range argVals[k] {
					one := NewVec(v.T, 1)
					one.copyRow(0, v, i)
					args[j] = newConst(one)
				}
				fs := &funcScanNode{name: s.name, args: args, cols: []colInfo{{name: s.name, t: s.t}}, user: s.user, call: s.call}
				buf, err := collect(ec, fs)
				if err != nil {
					firstErr = err
					return
				}
				sets[k] = buf.batch().Cols[0]
				n = max(n, sets[k].N)
			}
			for r := 0; r < n; r++ {
				rowIdx = append(rowIdx, int32(i))
				for k := range p.srfs {
					o := outs[k]
					o.grow(o.N + 1)
					if r < sets[k].N {
						o.copyRow(o.N-1, sets[k], r)
					} else {
						o.SetNull(o.N - 1)
					}
				}
			}
		})
		if firstErr != nil {
			return firstErr
		}
		if len(rowIdx) == 0 {
			return nil
		}
		out := &Batch{N: len(rowIdx), Cols: make([]*Vec, 0, nin+len(outs))}
		for _, c := range b.Cols {
			out.Cols = append(out.Cols, c.Gather(rowIdx))
		}
		out.Cols = append(out.Cols, outs...)
		return emit(out)
	})
}

// recordExpandNode appends the fields of a record column of its input as
// columns (a record-returning function laterally in FROM, e.g.
// `FROM pg_index i, information_schema._pg_expandarray(i.indkey) k`
// exposes k.x and k.n as PostgreSQL does).
type recordExpandNode struct {
	input plan
	col   int // the record column of input
	cols  []colInfo
}

// expandRecordColumn wraps p so that record column col is followed by
// one column per field (named by names, or the field names when nil);
// ok is false when the column's type has no known shape.
func expandRecordColumn(p plan, col int, names []string) (plan, []RecordField, bool) {
	t := p.columns()[col].t
	fields, ok := RecordFields(t)
	if !ok {
		return p, nil, false
	}
	cols := append([]colInfo{}, p.columns()...)
	for k, f := range fields {
		name := f.Name
		if k < len(names) {
			name = names[k]
		}
		cols = append(cols, colInfo{name: name, t: f.Type})
	}
	return &recordExpandNode{input: p, col: col, cols: cols}, fields, true
}

func (r *recordExpandNode) columns() []colInfo { return r.cols }

func (r *recordExpandNode) run(ec *evalCtx, emit func(*Batch) error) error {
	return r.input.run(ec, func(b *Batch) error {
		out := &Batch{N: b.N, Sel: b.Sel, Cols: append([]*Vec{}, b.Cols...)}
		rv := b.Cols[r.col]
		fields, _ := RecordFields(rv.T)
		var ferr error
		for k, f := range fields {
			out.Cols = append(out.Cols, recordFieldVec(ec, rv, k, f.Type, func(e error) {
				if ferr == nil {
					ferr = e
				}
			}, b.Sel...))
		}
		if ferr != nil {
			return ferr
		}
		return emit(out)
	})
}
