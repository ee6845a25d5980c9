package exec

// bit_and, bit_or, bit_xor over integers.

// bitAcc is bit_and / bit_or / bit_xor over integers.
type bitAcc struct {
	and bool
	xor bool
	t   Type
	has []bool
	v   []int64
}

func (b *bitAcc) update(_ *evalCtx, args []*Vec, rows, gids []int32, ng int) error {
	b.has, b.v = growTo(b.has, ng), growTo(b.v, ng)
	x := args[0]
	for k, r := range rows {
		if x.IsNull(int(r)) {
			continue
		}
		g := gids[k]
		switch {
		case !b.has[g]:
			b.has[g], b.v[g] = true, x.I[r]
		case b.xor:
			b.v[g] ^= x.I[r]
		case b.and:
			b.v[g] &= x.I[r]
		default:
			b.v[g] |= x.I[r]
		}
	}
	return nil
}

func (b *bitAcc) result(ng int) (*Vec, error) {
	b.has, b.v = growTo(b.has, ng), growTo(b.v, ng)
	out := NewVec(b.t, ng)
	for g := 0; g < ng; g++ {
		if !b.has[g] {
			out.SetNull(g)
		} else {
			out.I[g] = b.v[g]
		}
	}
	return out, nil
}

func init() {
	for name, and := range map[string]bool{"bit_and": true, "bit_or": false} {
		name, and := name, and
		aggregates[name] = func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
			if len(args) != 1 || !args[0].Type().isInt() {
				return Type{}, nil, nil, noFunction(name, args)
			}
			t := Type{args[0].Type().OID, -1}
			return t, func() accum { return &bitAcc{and: and, t: t} }, args, nil
		}
	}
	aggregates["bit_xor"] = func(b *binder, args []Expr) (Type, func() accum, []Expr, error) {
		if len(args) != 1 || !args[0].Type().isInt() {
			return Type{}, nil, nil, noFunction("bit_xor", args)
		}
		t := Type{args[0].Type().OID, -1}
		return t, func() accum { return &bitAcc{xor: true, t: t} }, args, nil
	}
}
