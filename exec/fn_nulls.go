package exec

// num_nulls and num_nonnulls: how many arguments are (not) NULL.

func init() {
	defCustom("num_nonnulls", func(b *binder, args []Expr) (Expr, error) {
		return &opExpr{name: "num_nonnulls", t: TInt4, args: args, k: countNulls(false)}, nil
	})
	defCustom("num_nulls", func(b *binder, args []Expr) (Expr, error) {
		return &opExpr{name: "num_nulls", t: TInt4, args: args, k: countNulls(true)}, nil
	})
}

func countNulls(nulls bool) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			n := int64(0)
			for _, v := range a {
				if v.IsNull(int(i)) == nulls {
					n++
				}
			}
			out.I[i] = n
		}
		return nil
	}
}
