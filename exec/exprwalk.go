package exec

// mapChildren returns e with each direct child replaced by f(child). Leaves
// are returned as they are. Nodes are copied, never mutated.
func mapChildren(e Expr, f func(Expr) (Expr, error)) (Expr, error) {
	mapAll := func(xs []Expr) ([]Expr, error) {
		out := make([]Expr, len(xs))
		for i, x := range xs {
			y, err := f(x)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	}
	var err error
	switch x := e.(type) {
	case *boolExpr:
		c := *x
		c.args, err = mapAll(x.args)
		return &c, err
	case *nullTest:
		c := *x
		c.arg, err = f(x.arg)
		return &c, err
	case *boolTest:
		c := *x
		c.arg, err = f(x.arg)
		return &c, err
	case *caseExpr:
		c := *x
		if c.whens, err = mapAll(x.whens); err != nil {
			return nil, err
		}
		if c.thens, err = mapAll(x.thens); err != nil {
			return nil, err
		}
		if x.els != nil {
			c.els, err = f(x.els)
		}
		return &c, err
	case *coalesceExpr:
		c := *x
		c.args, err = mapAll(x.args)
		return &c, err
	case *opExpr:
		c := *x
		c.args, err = mapAll(x.args)
		return &c, err
	case *castExpr:
		c := *x
		c.arg, err = f(x.arg)
		return &c, err
	case *inListExpr:
		c := *x
		if c.arg, err = f(x.arg); err != nil {
			return nil, err
		}
		c.list, err = mapAll(x.list)
		return &c, err
	case *subqueryExpr:
		if x.test == nil && x.rowTests == nil {
			return x, nil
		}
		c := *x
		if x.test != nil {
			if c.test, err = f(x.test); err != nil {
				return nil, err
			}
		}
		if x.rowTests != nil {
			c.rowTests, err = mapAll(x.rowTests)
		}
		return &c, err
	case *arrayExpr:
		c := *x
		c.items, err = mapAll(x.items)
		return &c, err
	case *distinctExpr:
		c := *x
		eq := *x.eq
		if eq.args, err = mapAll(x.eq.args); err != nil {
			return nil, err
		}
		c.eq = &eq
		return &c, nil
	case *recordExpr:
		c := *x
		c.args, err = mapAll(x.args)
		return &c, err
	case *fieldSelectExpr:
		c := *x
		c.arg, err = f(x.arg)
		return &c, err
	}
	return e, nil
}

// walkExpr visits e and its descendants (not into subquery plans).
func walkExpr(e Expr, visit func(Expr)) {
	visit(e)
	_, _ = mapChildren(e, func(c Expr) (Expr, error) {
		walkExpr(c, visit)
		return c, nil
	})
}
