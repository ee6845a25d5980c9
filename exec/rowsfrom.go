package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// ROWS FROM (f1(…), f2(…), …) [WITH ORDINALITY] [AS t(c, …)]: the
// functions' results side by side, row i of each in row i of the output,
// the shorter ones padded with NULLs (PostgreSQL's nodeFunctionscan). Each
// function is bound as a single-function FROM item; the zip materializes
// the results under the statement's memory budget (function results are
// what FROM functions produce: series, arrays, JSON members).

// rowsFromNode zips the scans of ROWS FROM's functions.
type rowsFromNode struct {
	parts []plan
	ord   bool
	cols  []colInfo
}

func (r *rowsFromNode) columns() []colInfo { return r.cols }

func (r *rowsFromNode) run(ec *evalCtx, emit func(*Batch) error) error {
	bufs := make([]*buffer, len(r.parts))
	n := 0
	for i, p := range r.parts {
		b := newBuffer(typesOf(p.columns()))
		defer b.free(ec.run)
		if err := p.run(ec, func(bt *Batch) error { return b.add(ec.run, bt) }); err != nil {
			return err
		}
		bufs[i] = b
		n = max(n, b.n)
	}
	var cols []*Vec
	for _, b := range bufs {
		for k, c := range b.cols {
			if b.n == n {
				cols = append(cols, c)
				continue
			}
			v := NewVec(b.types[k], n)
			for i := 0; i < n; i++ {
				if i < b.n {
					v.copyRow(i, c, i)
				} else {
					v.SetNull(i)
				}
			}
			cols = append(cols, v)
		}
	}
	if r.ord {
		o := NewVec(TInt8, n)
		for i := range o.I {
			o.I[i] = int64(i + 1)
		}
		cols = append(cols, o)
	}
	if n == 0 {
		return nil
	}
	return emitChunks(&Batch{Cols: cols, N: n}, emit)
}

// bindRowsFrom binds ROWS FROM: each function as its own FROM item (its
// columns named as they would be alone), then the ordinality column, then
// the alias's column names over the whole list.
func (b *binder) bindRowsFrom(rf *q.RangeFunction, sc *scope) (plan, []scopeCol, error) {
	if len(rf.Coldeflist) > 0 {
		return nil, nil, unsupported("column definition lists are not supported")
	}
	node := &rowsFromNode{ord: rf.Ordinality}
	var scols []scopeCol
	for _, fn := range rf.Functions {
		items := fn.GetList().GetItems()
		if len(items) == 0 {
			return nil, nil, unsupported("this FROM function form is not supported")
		}
		if len(items) > 1 && len(items[1].GetList().GetItems()) > 0 {
			return nil, nil, unsupported("column definition lists are not supported")
		}
		one := &q.RangeFunction{Functions: []*q.Node{{Node: &q.Node_List{List: &q.List{Items: items[:1]}}}}}
		tmp := newScope(sc.parent)
		p, _, err := b.bindRangeFunction(one, tmp)
		if err != nil {
			return nil, nil, err
		}
		if tmp.correlated {
			sc.correlated = true
		}
		for _, c := range p.columns() {
			scols = append(scols, scopeCol{name: c.name, t: c.t, idx: len(node.cols)})
			node.cols = append(node.cols, c)
		}
		node.parts = append(node.parts, p)
	}
	if rf.Ordinality {
		scols = append(scols, scopeCol{name: "ordinality", t: TInt8, idx: len(node.cols)})
		node.cols = append(node.cols, colInfo{name: "ordinality", t: TInt8})
	}
	alias := "rows"
	if len(node.parts) == 1 {
		alias = node.cols[0].name
	}
	if rf.Alias != nil {
		alias = rf.Alias.Aliasname
	}
	if err := b.addAlias(sc, alias); err != nil {
		return nil, nil, err
	}
	scols, err := applyAlias(scols, rf.Alias, alias)
	if err != nil {
		return nil, nil, err
	}
	for i := range node.cols {
		node.cols[i].name = scols[i].name
	}
	return node, scols, nil
}
