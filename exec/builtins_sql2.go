package exec

import (
	"crypto/sha256"
	"crypto/sha512"

	"github.com/cockroachdb/apd/v3"
)

// json(b)_extract_path[_text], sha224/sha384/sha512, trim_scale,
// min_scale, width_bucket (numeric and float8).

func init() {
	for _, name := range []string{"json_extract_path", "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text"} {
		name := name
		defCustom(name, func(b *binder, args []Expr) (Expr, error) {
			want := TJSON
			if name[:5] == "jsonb" {
				want = TJSONB
			}
			if len(args) < 2 {
				return nil, noFunction(name, args) // VARIADIC needs at least one path element
			}
			j, err := b.coerce(args[0], want, castImplicit, "")
			if err != nil {
				return nil, noFunction(name, args)
			}
			items := make([]Expr, len(args)-1)
			for k, a := range args[1:] {
				if items[k], err = b.coerce(a, TText, castImplicit, ""); err != nil {
					return nil, noFunction(name, args)
				}
			}
			op := "#>"
			if name[len(name)-5:] == "_text" {
				op = "#>>"
			}
			e, err := b.jsonOp(op, j, &arrayExpr{t: tTextArray, items: items})
			if oe, ok := e.(*opExpr); ok && err == nil {
				oe.name = name
			}
			return e, err
		})
	}
	hash := func(f func([]byte) []byte) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				out.S[i] = string(f([]byte(a[0].S[i])))
			}
			return nil
		}
	}
	def("sha224", sig(TBytea, hash(func(b []byte) []byte { h := sha256.Sum224(b); return h[:] }), TBytea))
	def("sha384", sig(TBytea, hash(func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }), TBytea))
	def("sha512", sig(TBytea, hash(func(b []byte) []byte { h := sha512.Sum512(b); return h[:] }), TBytea))
	def("trim_scale", sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			d := &a[0].D[i]
			var r apd.Decimal
			r.Set(d)
			if r.Form == apd.Finite && r.Exponent < 0 {
				r.Reduce(&r)
				if r.Exponent > 0 {
					// keep integer digits as digits, not an exponent
					_, _ = numCtx.Quantize(&r, &r, 0)
				}
			}
			out.D[i].Set(&r)
		}
		return nil
	}, TNumeric))
	def("min_scale", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			d := &a[0].D[i]
			if d.Form != apd.Finite {
				out.SetNull(int(i))
				continue
			}
			var r apd.Decimal
			r.Reduce(d)
			out.I[i] = int64(max(-r.Exponent, 0))
		}
		return nil
	}, TNumeric))
	def("width_bucket",
		sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				n, err := widthBucketFloat(a[0].F[i], a[1].F[i], a[2].F[i], a[3].I[i])
				if err != nil {
					return err
				}
				out.I[i] = n
			}
			return nil
		}, TFloat8, TFloat8, TFloat8, TInt4),
		sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				x, lo, hi := numToFloat(&a[0].D[i]), numToFloat(&a[1].D[i]), numToFloat(&a[2].D[i])
				n, err := widthBucketFloat(x, lo, hi, a[3].I[i])
				if err != nil {
					return err
				}
				out.I[i] = n
			}
			return nil
		}, TNumeric, TNumeric, TNumeric, TInt4))
}

func numToFloat(d *apd.Decimal) float64 {
	f, _ := d.Float64()
	return f
}

// widthBucketFloat is width_bucket(x, lo, hi, count): the 1-based bucket
// of count equal-width buckets over [lo, hi) (or (hi, lo] when lo > hi),
// 0 below and count+1 above.
func widthBucketFloat(x, lo, hi float64, count int64) (int64, error) {
	if count <= 0 {
		return 0, errf("2201G", "count must be greater than zero")
	}
	if lo == hi {
		return 0, errf("2201G", "lower bound cannot equal upper bound")
	}
	if lo < hi {
		switch {
		case x < lo:
			return 0, nil
		case x >= hi:
			return count + 1, nil
		}
		return int64(float64(count)*(x-lo)/(hi-lo)) + 1, nil
	}
	switch {
	case x > lo:
		return 0, nil
	case x <= hi:
		return count + 1, nil
	}
	return int64(float64(count)*(lo-x)/(lo-hi)) + 1, nil
}

func init() {
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
}
