package exec

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pggraph/pggraph/pgerr"
)

// String functions: length and its aliases, case, trimming, padding,
// substrings, search, replace, quoting, concat, to_hex, regexp_replace,
// overlay.

func init() {
	def("length", sig(TInt4, kSI(func(s string) int64 { return int64(utf8.RuneCountInString(s)) }), TText),
		sig(TInt4, kSI(func(s string) int64 { return int64(len(s)) }), TBytea))
	funcs["char_length"] = funcs["length"]
	funcs["character_length"] = funcs["length"]
	def("octet_length", sig(TInt4, kSI(func(s string) int64 { return int64(len(s)) }), TText), sig(TInt4, kSI(func(s string) int64 { return int64(len(s)) }), TBytea),
		sig(TInt4, kSI(func(s string) int64 { return int64(len(s)) }), TBpchar)) // char(n) counts its padding
	def("bit_length", sig(TInt4, kSI(func(s string) int64 { return int64(8 * len(s)) }), TText))
	def("lower", sig(TText, kSS(strings.ToLower), TText))
	def("upper", sig(TText, kSS(strings.ToUpper), TText))
	def("initcap", sig(TText, kSS(initcap), TText))
	def("reverse", sig(TText, kSS(reverse), TText))
	def("md5", sig(TText, kSS(md5hex), TText), sig(TText, kSS(md5hex), TBytea))
	def("ascii", sig(TInt4, kSI(func(s string) int64 {
		r, _ := utf8.DecodeRuneInString(s)
		if s == "" {
			return 0
		}
		return int64(r)
	}), TText))
	def("chr", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			c := a[0].I[i]
			if c == 0 {
				return errf(CodeProgramLimitExceeded, "null character not permitted")
			}
			if c < 0 {
				return errf(CodeInvalidParameterValue, "character number must be positive")
			}
			if c > utf8.MaxRune {
				return errf(CodeProgramLimitExceeded, "requested character too large for encoding: %d", c)
			}
			out.S[i] = string(rune(c))
		}
		return nil
	}, TInt4))
	def("btrim", sig(TText, kSS(func(s string) string { return trimChars(s, " ", true, true) }), TText),
		sig(TText, kSSS(func(s, c string) string { return trimChars(s, c, true, true) }), TText, TText))
	def("ltrim", sig(TText, kSS(func(s string) string { return trimChars(s, " ", true, false) }), TText),
		sig(TText, kSSS(func(s, c string) string { return trimChars(s, c, true, false) }), TText, TText))
	def("rtrim", sig(TText, kSS(func(s string) string { return trimChars(s, " ", false, true) }), TText),
		sig(TText, kSSS(func(s, c string) string { return trimChars(s, c, false, true) }), TText, TText))
	def("replace", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[1].S[i] == "" {
				out.S[i] = a[0].S[i]
				continue
			}
			out.S[i] = strings.ReplaceAll(a[0].S[i], a[1].S[i], a[2].S[i])
		}
		return nil
	}, TText, TText, TText))
	def("translate", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = translate(a[0].S[i], a[1].S[i], a[2].S[i])
		}
		return nil
	}, TText, TText, TText))
	def("repeat", sig(TText, func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			n := a[1].I[i]
			if n <= 0 {
				out.S[i] = ""
				continue
			}
			if int64(len(a[0].S[i]))*n > int64(maxValueBytes) {
				return errf(CodeProgramLimitExceeded, "requested length too large")
			}
			if err := checkValueBudget(ec, int64(len(a[0].S[i]))*n); err != nil {
				return err
			}
			out.S[i] = strings.Repeat(a[0].S[i], int(n))
		}
		return nil
	}, TText, TInt4))
	substr := func(hasCount bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				var cnt int64
				if hasCount {
					cnt = a[2].I[i]
				}
				s, err := runeSub(a[0].S[i], a[1].I[i], cnt, hasCount)
				if err != nil {
					return err
				}
				out.S[i] = s
			}
			return nil
		}
	}
	def("substr", sig(TText, substr(false), TText, TInt4), sig(TText, substr(true), TText, TInt4, TInt4))
	def("substring", sig(TText, substr(false), TText, TInt4), sig(TText, substr(true), TText, TInt4, TInt4),
		sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				re, _, err := compileARE(a[1].S[i], "")
				if err != nil {
					return err
				}
				m := re.FindStringSubmatch(a[0].S[i])
				switch {
				case m == nil:
					out.SetNull(int(i))
				case len(m) > 1:
					out.S[i] = m[1]
				default:
					out.S[i] = m[0]
				}
			}
			return nil
		}, TText, TText))
	def("left", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			r := []rune(a[0].S[i])
			n := a[1].I[i]
			if n < 0 {
				n = max(int64(len(r))+n, 0)
			}
			out.S[i] = string(r[:min(n, int64(len(r)))])
		}
		return nil
	}, TText, TInt4))
	def("right", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			r := []rune(a[0].S[i])
			n := a[1].I[i]
			if n < 0 {
				n = max(int64(len(r))+n, 0)
			}
			n = min(n, int64(len(r)))
			out.S[i] = string(r[int64(len(r))-n:])
		}
		return nil
	}, TText, TInt4))
	padK := func(left, hasFill bool) kernel {
		return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				fill := " "
				if hasFill {
					fill = a[2].S[i]
				}
				out.S[i] = pad(a[0].S[i], a[1].I[i], fill, left)
			}
			return nil
		}
	}
	def("lpad", sig(TText, padK(true, false), TText, TInt4), sig(TText, padK(true, true), TText, TInt4, TText))
	def("rpad", sig(TText, padK(false, false), TText, TInt4), sig(TText, padK(false, true), TText, TInt4, TText))
	strpos := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			k := strings.Index(a[0].S[i], a[1].S[i])
			if k < 0 {
				out.I[i] = 0
			} else {
				out.I[i] = int64(utf8.RuneCountInString(a[0].S[i][:k])) + 1
			}
		}
		return nil
	}
	def("strpos", sig(TInt4, strpos, TText, TText))
	def("position", sig(TInt4, strpos, TText, TText))
	def("starts_with", sig(TBool, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.B[i] = strings.HasPrefix(a[0].S[i], a[1].S[i])
		}
		return nil
	}, TText, TText))
	def("split_part", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, err := splitPart(a[0].S[i], a[1].S[i], a[2].I[i])
			if err != nil {
				return err
			}
			out.S[i] = s
		}
		return nil
	}, TText, TText, TInt4))
	def("quote_ident", sig(TText, kSS(quoteIdent), TText))
	def("quote_literal", sig(TText, kSS(quoteLiteral), TText))
	def("quote_nullable", fnSig{args: []Type{TText}, ret: TText, nonStrict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if a[0].IsNull(int(i)) {
				out.S[i] = "NULL"
			} else {
				out.S[i] = quoteLiteral(a[0].S[i])
			}
		}
		return nil
	}})
	def("to_hex", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = strings.ToLower(strings.TrimLeft(strings.ToUpper(uintHex(uint64(a[0].I[i]))), "0"))
			if out.S[i] == "" {
				out.S[i] = "0"
			}
		}
		return nil
	}, TInt8), sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		// to_hex(integer) shows the 32-bit two's complement
		for _, i := range sel {
			out.S[i] = strconv.FormatUint(uint64(uint32(a[0].I[i])), 16)
		}
		return nil
	}, TInt4))
	def("regexp_replace", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, err := pgRegexpReplace(a[0].S[i], a[1].S[i], a[2].S[i], "")
			if err != nil {
				return err
			}
			out.S[i] = s
		}
		return nil
	}, TText, TText, TText), sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, err := pgRegexpReplace(a[0].S[i], a[1].S[i], a[2].S[i], a[3].S[i])
			if err != nil {
				return err
			}
			out.S[i] = s
		}
		return nil
	}, TText, TText, TText, TText))
	concat := func(sep bool) kernel {
		return func(ec *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				var sb strings.Builder
				start := 0
				d := ""
				if sep {
					if a[0].IsNull(int(i)) {
						out.SetNull(int(i))
						continue
					}
					d, start = a[0].S[i], 1
				}
				first := true
				for _, v := range a[start:] {
					if v.IsNull(int(i)) {
						continue
					}
					if !first {
						sb.WriteString(d)
					}
					first = false
					sb.WriteString(formatValueStyle(v, int(i), ec.loc, ec.dateStyle()))
				}
				out.S[i] = sb.String()
			}
			return nil
		}
	}
	defCustom("concat", func(b *binder, args []Expr) (Expr, error) {
		if len(args) == 0 {
			return nil, noFunction("concat", args)
		}
		for i := range args {
			if args[i].Type().OID == OIDUnknown {
				args[i], _ = b.coerce(args[i], TText, castImplicit, "")
			}
		}
		return &opExpr{name: "concat", t: TText, args: args, k: concat(false)}, nil
	})
	defCustom("concat_ws", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 {
			return nil, noFunction("concat_ws", args)
		}
		for i := range args {
			if args[i].Type().OID == OIDUnknown {
				args[i], _ = b.coerce(args[i], TText, castImplicit, "")
			}
		}
		return &opExpr{name: "concat_ws", t: TText, args: args, k: concat(true)}, nil
	})
	defCustom("similar_to_escape", func(b *binder, args []Expr) (Expr, error) {
		return &opExpr{name: "similar_to_escape", t: TText, args: args}, nil
	})
	overlay := func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, r := []rune(a[0].S[i]), a[1].S[i]
			from := a[2].I[i]
			count := int64(utf8.RuneCountInString(r))
			if len(a) == 4 {
				count = a[3].I[i]
			}
			// substring(s, 1, from - 1) || r || substring(s, from + count)
			if from < 1 {
				return errf(codeSubstringError, "negative substring length not allowed")
			}
			head := min(from-1, int64(len(s)))
			tail := min(max(from+count-1, 0), int64(len(s)))
			out.S[i] = string(s[:head]) + r + string(s[tail:])
		}
		return nil
	}
	def("overlay", sig(TText, overlay, TText, TText, TInt4), sig(TText, overlay, TText, TText, TInt4, TInt4))
}

// codeSubstringError is substring_error.
const codeSubstringError = pgerr.SubstringError

func uintHex(u uint64) string {
	const digits = "0123456789abcdef"
	var buf [16]byte
	for i := 15; i >= 0; i-- {
		buf[i] = digits[u&0xf]
		u >>= 4
	}
	return string(buf[:])
}
