package exec

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

func init() {
	def("encode", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			switch strings.ToLower(a[1].S[i]) {
			case "hex":
				out.S[i] = hex.EncodeToString([]byte(a[0].S[i]))
			case "base64":
				// PostgreSQL breaks base64 output into 76-character lines
				enc := base64.StdEncoding.EncodeToString([]byte(a[0].S[i]))
				var sb strings.Builder
				for len(enc) > 76 {
					sb.WriteString(enc[:76])
					sb.WriteByte('\n')
					enc = enc[76:]
				}
				sb.WriteString(enc)
				out.S[i] = sb.String()
			case "escape":
				out.S[i] = encodeByteaEscape(a[0].S[i])
			default:
				return errf(CodeInvalidParameterValue, "unrecognized encoding: \"%s\"", a[1].S[i])
			}
		}
		return nil
	}, TBytea, TText))
	def("decode", sig(TBytea, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s := a[0].S[i]
			switch strings.ToLower(a[1].S[i]) {
			case "hex":
				b, err := decodeHexPG(s)
				if err != nil {
					return err
				}
				out.S[i] = b
			case "base64":
				b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
				if err != nil {
					return errf(CodeInvalidParameterValue, "invalid base64 end sequence")
				}
				out.S[i] = string(b)
			case "escape":
				b, err := parseByteaEscape(s)
				if err != nil {
					return err
				}
				out.S[i] = b
			default:
				return errf(CodeInvalidParameterValue, "unrecognized encoding: \"%s\"", a[1].S[i])
			}
		}
		return nil
	}, TText, TText))
	def("sha256", sig(TBytea, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			h := sha256.Sum256([]byte(a[0].S[i]))
			out.S[i] = string(h[:])
		}
		return nil
	}, TBytea))
	lcm := func(t Type) kernel {
		lo, hi, msg := intBounds(t)
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				x, y := a[0].I[i], a[1].I[i]
				if x == 0 || y == 0 {
					out.I[i] = 0
					continue
				}
				g, u := x, y
				for u != 0 {
					g, u = u, g%u
				}
				q := x / g
				r := q * y
				if r/y != q || r < lo || r > hi || r == lo {
					return errf(CodeNumericOutOfRange, "%s", msg)
				}
				if r < 0 {
					r = -r
				}
				out.I[i] = r
			}
			return nil
		}
	}
	def("lcm", sig(TInt4, lcm(TInt4), TInt4, TInt4), sig(TInt8, lcm(TInt8), TInt8, TInt8))
	def("factorial", sig(TNumeric, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			n := a[0].I[i]
			if n < 0 {
				return errf(CodeNumericOutOfRange, "factorial of a negative number is undefined")
			}
			if n > 32177 {
				return errf(CodeNumericOutOfRange, "value overflows numeric format")
			}
			r := &out.D[i]
			r.SetInt64(1)
			var k apd.Decimal
			for j := int64(2); j <= n; j++ {
				k.SetInt64(j)
				if err := numMul(r, r, &k); err != nil {
					return err
				}
			}
		}
		return nil
	}, TInt8))
	def("scale", sig(TInt4, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[0].D[i].Form != apd.Finite {
				out.SetNull(int(i))
				continue
			}
			out.I[i] = int64(dscale(&a[0].D[i]))
		}
		return nil
	}, TNumeric))
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
