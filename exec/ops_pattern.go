package exec

import (
	"regexp"
	"strings"
)

// PostgreSQL's remaining string operators over the types exec supports:
// ^@ (starts_with), the byte-wise "pattern" comparisons ~<~ ~<=~ ~>=~
// ~>~ (text_pattern_ops; char(n) ignores trailing blanks), and LIKE on
// bytea (byte-wise: _ matches one byte).

// textPatternOp binds ^@ and the pattern comparisons; ok is false when
// the operand types have no such operator.
func (b *binder) textPatternOp(op string, l, r Expr) (Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	if !lt.isString() || !rt.isString() || lt.OID == OIDBytea || rt.OID == OIDBytea {
		return nil, false, nil
	}
	if op == "^@" {
		e, err := b.funcByName("starts_with", []Expr{l, r})
		return e, true, err
	}
	bp := lt.OID == OIDBpchar && rt.OID == OIDBpchar
	if !bp {
		var err error
		if l, err = b.toTextLike(l); err != nil {
			return nil, true, err
		}
		if r, err = b.toTextLike(r); err != nil {
			return nil, true, err
		}
	}
	c := map[string]cmpOp{"~<~": opLt, "~<=~": opLe, "~>=~": opGe, "~>~": opGt}[op]
	return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			x, y := a[0].S[i], a[1].S[i]
			if bp {
				x, y = trimRightSpaces(x), trimRightSpaces(y)
			}
			out.B[i] = c.holds(strings.Compare(x, y))
		}
		return nil
	}}, true, nil
}

// latin1 maps each byte to the rune of the same value so that RE2, which
// matches UTF-8 runes, matches bytea byte by byte.
func latin1(s string) string {
	rs := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		rs[i] = rune(s[i])
	}
	return string(rs)
}

// byteaLikeExpr is bytea LIKE / NOT LIKE bytea.
func byteaLikeExpr(op string, l, r Expr) Expr {
	neg := strings.HasPrefix(op, "!")
	return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		var last string
		var re *regexp.Regexp
		for _, i := range sel {
			p := a[1].S[i]
			if re == nil || p != last {
				src, err := likeToRegexp(latin1(p), false)
				if err != nil {
					return err
				}
				if re, err = compileRegex(src); err != nil {
					return err
				}
				last = p
			}
			out.B[i] = re.MatchString(latin1(a[0].S[i])) != neg
		}
		return nil
	}}
}

// likeOperand reports whether a LIKE/regex operand type converts to text.
func likeOperand(t Type) bool {
	return (t.isString() && t.OID != OIDBytea) || t.OID == OIDUnknown
}
