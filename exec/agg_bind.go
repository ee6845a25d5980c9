package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// aggregates maps an aggregate name to its binder: given the bound
// argument expressions it returns the result type and accumulator factory.
var aggregates = map[string]func(b *binder, args []Expr) (Type, func() accum, []Expr, error){
	"count": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		if len(args) != 1 {
			return Type{}, nil, nil, noFunction("count", args)
		}
		return TInt8, func() accum { return &countAcc{} }, args, nil
	},
	"sum": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return sumLike(b, "sum", args, false)
	},
	"avg": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return sumLike(b, "avg", args, true)
	},
	"min": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return minMaxAgg(b, "min", args, false)
	},
	"max": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return minMaxAgg(b, "max", args, true)
	},
	"bool_and": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return boolAgg(b, "bool_and", args, true)
	},
	"every": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return boolAgg(b, "every", args, true)
	},
	"bool_or": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		return boolAgg(b, "bool_or", args, false)
	},
	"string_agg": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		if len(args) != 2 {
			return Type{}, nil, nil, noFunction("string_agg", args)
		}
		t := TText
		if args[0].Type().OID == OIDBytea {
			t = TBytea
		}
		var err error
		for i := range args {
			if args[i], err = b.coerce(args[i], t, castImplicit, ""); err != nil {
				return Type{}, nil, nil, noFunction("string_agg", args)
			}
		}
		return t, func() accum { return &stringAggAcc{t: t} }, args, nil
	},
	"array_agg": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		if len(args) != 1 {
			return Type{}, nil, nil, noFunction("array_agg", args)
		}
		et := args[0].Type()
		if et.OID == OIDUnknown {
			var err error
			if args[0], err = b.coerce(args[0], TText, castImplicit, ""); err != nil {
				return Type{}, nil, nil, err
			}
			et = TText
		}
		at, ok := ArrayOf(et)
		if !ok {
			return Type{}, nil, nil, unsupported("array_agg over %s is not supported", et)
		}
		return at, func() accum { return &arrayAggAcc{elem: et, t: at} }, args, nil
	},
	"json_agg":  func(b *binder, args []Expr) (Type, func() accum, []Expr, error) { return jsonAgg(b, args, false) },
	"jsonb_agg": func(b *binder, args []Expr) (Type, func() accum, []Expr, error) { return jsonAgg(b, args, true) },
}

func isAggregate(name string) bool { _, ok := aggregates[name]; return ok }

func sumLike(b *binder, name string, args []Expr, avg bool) (Type, func() accum, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, nil, noFunction(name, args)
	}
	in := args[0].Type()
	if in.OID == OIDUnknown {
		var err error
		if args[0], err = b.coerce(args[0], TFloat8, castImplicit, ""); err != nil {
			return Type{}, nil, nil, err
		}
		in = TFloat8
	}
	var out Type
	switch in.OID {
	case OIDInt2, OIDInt4:
		out = TInt8
		if avg {
			out = TNumeric
		}
	case OIDInt8, OIDNumeric:
		out = TNumeric
	case OIDFloat4:
		out = TFloat4
		if avg {
			out = TFloat8
		}
	case OIDFloat8:
		out = TFloat8
	case OIDInterval:
		return TInterval, func() accum { return &intervalSumAcc{avg: avg} }, args, nil
	default:
		return Type{}, nil, nil, noFunction(name, args)
	}
	in = Type{in.OID, -1}
	return out, func() accum { return &sumAcc{in: in, out: out, avg: avg} }, args, nil
}

func minMaxAgg(b *binder, name string, args []Expr, isMax bool) (Type, func() accum, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, nil, noFunction(name, args)
	}
	t := args[0].Type()
	if t.OID == OIDUnknown {
		var err error
		if args[0], err = b.coerce(args[0], TText, castImplicit, ""); err != nil {
			return Type{}, nil, nil, err
		}
		t = TText
	}
	switch t.OID {
	case OIDJSON, OIDJSONB, OIDBool, OIDRecord, OIDBytea, OIDUUID:
		// PostgreSQL 15 has no min/max for these types
		return Type{}, nil, nil, noFunction(name, args)
	}
	if IsEnumOID(t.OID) {
		// they would order as text, not by declaration (enums.go)
		return Type{}, nil, nil, unsupported("%s over an enum type is not supported", name)
	}
	if t.OID == OIDVarchar || t.OID == OIDName {
		t = TText
	}
	t.Mod = -1
	return t, func() accum { return &minMaxAcc{max: isMax, t: t} }, args, nil
}

func boolAgg(b *binder, name string, args []Expr, and bool) (Type, func() accum, []Expr, error) {
	if len(args) != 1 {
		return Type{}, nil, nil, noFunction(name, args)
	}
	var err error
	if args[0], err = b.coerce(args[0], TBool, castImplicit, ""); err != nil {
		return Type{}, nil, nil, noFunction(name, args)
	}
	return TBool, func() accum { return &boolAcc{and: and} }, args, nil
}

// bindAggCall binds an aggregate call at the current query level.
func (b *binder) bindAggCall(name string, fc *q.FuncCall, sc *scope) (Expr, error) {
	if b.agg == nil || b.aggLevel != "" {
		where := b.aggLevel
		if where == "" {
			where = "this context"
		}
		return nil, errf(CodeGroupingError, "aggregate functions are not allowed in %s", where)
	}
	if fc.AggWithinGroup {
		return nil, unsupported("ordered-set aggregates (WITHIN GROUP) are not supported")
	}
	// arguments may not contain aggregates of the same level
	saved := b.agg
	b.agg = nil
	defer func() { b.agg = saved }()
	call := &aggCall{name: name, distinct: fc.AggDistinct, star: fc.AggStar}
	var args []Expr
	var err error
	if !fc.AggStar {
		if args, err = b.bindList(fc.Args, sc); err != nil {
			if Code(err) == CodeGroupingError {
				return nil, errf(CodeGroupingError, "aggregate function calls cannot be nested")
			}
			return nil, err
		}
	}
	if fc.AggStar {
		if name != "count" {
			return nil, errf(CodeWrongObjectType, "%s(*) is not supported", name)
		}
		call.t = TInt8
		call.newAcc = func() accum { return &countAcc{star: true} }
	} else {
		t, mk, bargs, err := aggregates[name](b, args)
		if err != nil {
			return nil, err
		}
		call.t, call.newAcc, args = t, mk, bargs
	}
	call.args = args
	if err := b.cat.checkBuiltinExecute(name, exprTypes(args)); err != nil {
		return nil, err // builtin_function_acl.go
	}
	if fc.AggFilter != nil {
		f, err := b.bindExpr(fc.AggFilter, sc)
		if err != nil {
			return nil, err
		}
		if call.filter, err = b.coerceBool(f, "FILTER"); err != nil {
			return nil, err
		}
	}
	for _, on := range fc.AggOrder {
		sb := on.GetSortBy()
		e, err := b.bindExpr(sb.Node, sc)
		if err != nil {
			return nil, err
		}
		if e.Type().OID == OIDUnknown {
			e, _ = b.coerce(e, TText, castImplicit, "")
		}
		if sk := b.enumSortKeyOf(e); sk != nil { // enums sort by declaration (enums.go)
			e = sk
		}
		call.order = append(call.order, e)
		call.orderKey = append(call.orderKey, makeSortKey(sb, len(call.order)-1))
	}
	if call.distinct && len(call.order) > 0 {
		for _, o := range call.order {
			found := false
			for _, a := range call.args {
				if a.String() == o.String() {
					found = true
				}
			}
			if !found {
				return nil, errf(CodeInvalidColumnReference, "in an aggregate with DISTINCT, ORDER BY expressions must appear in argument list")
			}
		}
	}
	saved.calls = append(saved.calls, call)
	return &aggRef{idx: len(saved.calls) - 1, call: call}, nil
}
