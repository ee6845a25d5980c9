package exec

import "bytes"

// Array functions ORMs and BI tools call beyond the core set in arrays.go:
// array_replace, array_to_json, array_fill, array_ndims, array_dims.

func init() {
	defCustom("array_replace", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 3 {
			return nil, noFunction("array_replace", args)
		}
		at := args[0].Type()
		if at.OID == OIDUnknown {
			return nil, noFunction("array_replace", args)
		}
		if !at.IsArray() {
			return nil, noFunction("array_replace", args)
		}
		var err error
		for k := 1; k < 3; k++ {
			if args[k], err = b.coerce(args[k], at.Elem(), castImplicit, ""); err != nil {
				return nil, noFunction("array_replace", args)
			}
		}
		return &opExpr{name: "array_replace", t: at, args: args, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].IsNull(int(i)) {
					out.SetNull(int(i))
					continue
				}
				src := a[0].A[i]
				items := NewVec(src.Items.T, src.Items.N)
				for k := 0; k < src.Items.N; k++ {
					// NOT DISTINCT FROM: a NULL search value replaces NULLs
					match := src.Items.IsNull(k) && a[1].IsNull(int(i)) ||
						!src.Items.IsNull(k) && !a[1].IsNull(int(i)) && cmpRows(src.Items, k, a[1], int(i)) == 0
					if match {
						items.copyRow(k, a[2], int(i))
					} else {
						items.copyRow(k, src.Items, k)
					}
				}
				out.A[i] = &Array{Elem: src.Elem, Items: items}
			}
			return nil
		}}, nil
	})
	defCustom("array_to_json", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 || len(args) > 2 || !args[0].Type().IsArray() {
			return nil, noFunction("array_to_json", args)
		}
		if len(args) == 2 {
			var err error
			if args[1], err = b.coerce(args[1], TBool, castImplicit, ""); err != nil {
				return nil, noFunction("array_to_json", args)
			}
		}
		return &opExpr{name: "array_to_json", t: TJSON, args: args, strict: true, k: func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				arr, _ := jsonValueOf(a[0], int(i), ec.loc).([]any)
				var bb bytes.Buffer
				sep := ","
				if len(a) == 2 && a[1].B[i] {
					sep = ",\n "
				}
				bb.WriteByte('[')
				for k, e := range arr {
					if k > 0 {
						bb.WriteString(sep)
					}
					writeJSONCompact(&bb, e)
				}
				bb.WriteByte(']')
				out.S[i] = bb.String()
			}
			return nil
		}}, nil
	})
	// array_fill(value, ARRAY[n]): one dimension, lower bound 1
	defCustom("array_fill", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 2 || len(args) > 3 {
			return nil, noFunction("array_fill", args)
		}
		if args[0].Type().OID == OIDUnknown {
			return nil, errf(CodeDatatypeMismatch, "could not determine polymorphic type because input has type unknown")
		}
		at, ok := ArrayOf(args[0].Type())
		if !ok {
			return nil, noFunction("array_fill", args)
		}
		intArr, _ := ArrayOf(TInt4)
		var err error
		for k := 1; k < len(args); k++ {
			if args[k], err = b.coerce(args[k], intArr, castImplicit, ""); err != nil {
				return nil, noFunction("array_fill", args)
			}
		}
		return &opExpr{name: "array_fill", t: at, args: args, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[1].IsNull(int(i)) || (len(a) == 3 && a[2].IsNull(int(i))) {
					return errf(CodeNullValueNotAllowed, "dimension array or low bound array cannot be null")
				}
				dims := a[1].A[i].Items
				if dims.N != 1 || (len(a) == 3 && (a[2].A[i].Items.N != 1 || a[2].A[i].Items.I[0] != 1)) {
					return unsupported("array_fill with more than one dimension or a lower bound other than 1 is not supported")
				}
				if dims.IsNull(0) {
					return errf(CodeNullValueNotAllowed, "dimension values cannot be null")
				}
				n := dims.I[0]
				if n < 0 {
					n = 0
				}
				if n > 1<<20 {
					return errf(CodeProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", 1<<20)
				}
				items := NewVec(a[0].T, int(n))
				for k := 0; k < int(n); k++ {
					items.copyRow(k, a[0], int(i))
				}
				out.A[i] = &Array{Elem: a[0].T, Items: items}
			}
			return nil
		}}, nil
	})
	defCustom("array_ndims", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 || !args[0].Type().IsArray() {
			return nil, noFunction("array_ndims", args)
		}
		return &opExpr{name: "array_ndims", t: TInt4, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if a[0].A[i].Items.N == 0 {
					out.SetNull(int(i))
				} else {
					out.I[i] = 1
				}
			}
			return nil
		}}, nil
	})
	defCustom("array_dims", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 1 || !args[0].Type().IsArray() {
			return nil, noFunction("array_dims", args)
		}
		return &opExpr{name: "array_dims", t: TText, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				n := a[0].A[i].Items.N
				if n == 0 {
					out.SetNull(int(i))
				} else {
					out.S[i] = "[1:" + itoa(int64(n)) + "]"
				}
			}
			return nil
		}}, nil
	})
}
