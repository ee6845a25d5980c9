package exec

import (
	"crypto/md5"
	"encoding/hex"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pggraph/pggraph/pgerr"
)

// likeToRegexp translates a LIKE pattern (backslash escape) to RE2.
func likeToRegexp(p string, ci bool) (string, error) {
	var sb strings.Builder
	sb.WriteString("(?s)")
	if ci {
		sb.WriteString("(?i)")
	}
	sb.WriteByte('^')
	for i := 0; i < len(p); {
		r, w := utf8.DecodeRuneInString(p[i:])
		i += w
		switch r {
		case '%':
			sb.WriteString(".*")
		case '_':
			sb.WriteByte('.')
		case '\\':
			if i >= len(p) {
				return "", errf(CodeInvalidEscapeSequence, "LIKE pattern must not end with escape character")
			}
			r2, w2 := utf8.DecodeRuneInString(p[i:])
			i += w2
			sb.WriteString(regexp.QuoteMeta(string(r2)))
		default:
			sb.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	sb.WriteByte('$')
	return sb.String(), nil
}

// regexCache shares compiled patterns across executions.
var regexCache sync.Map

func compileRegex(pat string) (*regexp.Regexp, error) {
	if re, ok := regexCache.Load(pat); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		return nil, &Error{Code: CodeInvalidRegex, Message: "invalid regular expression: " + err.Error(),
			Hint: "Regular expressions use RE2 syntax: back-references and look-around are not supported."}
	}
	regexCache.Store(pat, re)
	return re, nil
}

func (b *binder) likeExpr(op string, l, r Expr) (Expr, error) {
	ci := strings.Contains(op, "*")
	neg := strings.HasPrefix(op, "!")
	return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		var last string
		var re *regexp.Regexp
		for _, i := range sel {
			p := a[1].S[i]
			if re == nil || p != last {
				// fast paths for prefix/exact patterns are left to RE2's literal prefix
				src, err := likeToRegexp(p, ci)
				if err != nil {
					if trailingEscapeUnreached(a[0].S[i], p, ci) {
						out.B[i] = neg // PostgreSQL stops before the escape: no match
						re = nil
						continue
					}
					return err
				}
				if re, err = compileRegex(src); err != nil {
					return err
				}
				last = p
			}
			out.B[i] = re.MatchString(a[0].S[i]) != neg
		}
		return nil
	}}, nil
}

func (b *binder) regexExpr(op string, l, r Expr) (Expr, error) {
	ci := strings.Contains(op, "*")
	neg := strings.HasPrefix(op, "!")
	return &opExpr{name: op, t: TBool, args: []Expr{l, r}, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			flags := ""
			if ci {
				flags = "i"
			}
			re, _, err := compileARE(a[1].S[i], flags)
			if err != nil {
				return err
			}
			out.B[i] = re.MatchString(a[0].S[i]) != neg
		}
		return nil
	}}, nil
}

// similarToRegexp translates SQL's SIMILAR TO pattern to RE2.
func similarToRegexp(p string) string {
	var sb strings.Builder
	sb.WriteString("(?s)^(?:")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch c {
		case '%':
			sb.WriteString(".*")
		case '_':
			sb.WriteByte('.')
		case '\\':
			if i+1 < len(p) {
				i++
				sb.WriteString(regexp.QuoteMeta(string(p[i])))
			}
		case '.', '^', '$':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteString(")$")
	return sb.String()
}

func (b *binder) similarTo(l, r Expr, neg bool) (Expr, error) {
	// the parser wraps the pattern in similar_to_escape(); unwrap it
	var esc Expr
	if op, ok := r.(*opExpr); ok && op.name == "similar_to_escape" {
		r = op.args[0]
		if len(op.args) == 2 {
			esc = op.args[1]
		}
	}
	l2, err := b.toTextLike(l)
	if err != nil {
		return nil, err
	}
	r2, err := b.toTextLike(r)
	if err != nil {
		return nil, err
	}
	args := []Expr{l2, r2}
	if esc != nil {
		e2, err := b.toTextLike(esc)
		if err != nil {
			return nil, err
		}
		args = append(args, e2)
	}
	return &opExpr{name: "similar", t: TBool, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			src := similarToRegexp(a[1].S[i])
			if len(a) > 2 {
				e, err := escapeRune(a[2].S[i])
				if err != nil {
					return err
				}
				src = "(?s)^(?:" + similarBody(a[1].S[i], e, false) + ")$"
			}
			re, err := compileRegex(src)
			if err != nil {
				return err
			}
			out.B[i] = re.MatchString(a[0].S[i]) != neg
		}
		return nil
	}}, nil
}

// String kernels.
func kSS(f func(string) string) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		x := a[0].S
		for _, i := range sel {
			out.S[i] = f(x[i])
		}
		return nil
	}
}

func kSI(f func(string) int64) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		x := a[0].S
		for _, i := range sel {
			out.I[i] = f(x[i])
		}
		return nil
	}
}

func kSSS(f func(string, string) string) kernel {
	return func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			out.S[i] = f(a[0].S[i], a[1].S[i])
		}
		return nil
	}
}

func runeSub(s string, start, count int64, hasCount bool) (string, error) {
	if hasCount && count < 0 {
		return "", errf(CodeSubstringError, "negative substring length not allowed")
	}
	r := []rune(s)
	lo := start - 1
	var hi int64
	if hasCount {
		hi = lo + count
		if count > 0 && hi < lo { // overflow
			hi = int64(len(r))
		}
	} else {
		hi = int64(len(r))
	}
	lo = max(lo, 0)
	hi = min(hi, int64(len(r)))
	if lo >= hi {
		return "", nil
	}
	return string(r[lo:hi]), nil
}

// CodeSubstringError is 22011.
const CodeSubstringError = pgerr.SubstringError

func pad(s string, n int64, fill string, left bool) string {
	r := []rune(s)
	if n <= 0 {
		return ""
	}
	if int64(len(r)) >= n {
		return string(r[:n])
	}
	if fill == "" {
		return s
	}
	f := []rune(fill)
	need := int(n) - len(r)
	p := make([]rune, 0, need)
	for len(p) < need {
		p = append(p, f[len(p)%len(f)])
	}
	if left {
		return string(p) + s
	}
	return s + string(p)
}

func trimChars(s, chars string, left, right bool) string {
	set := func(r rune) bool { return strings.ContainsRune(chars, r) }
	if left {
		s = strings.TrimLeftFunc(s, set)
	}
	if right {
		s = strings.TrimRightFunc(s, set)
	}
	return s
}

func initcap(s string) string {
	var sb strings.Builder
	prevAlnum := false
	for _, r := range s {
		if prevAlnum {
			sb.WriteRune(unicode.ToLower(r))
		} else {
			sb.WriteRune(unicode.ToUpper(r))
		}
		prevAlnum = unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return sb.String()
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

func quoteIdent(s string) string {
	safe := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			safe = false
		}
	}
	if safe && !isReservedKeyword(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func isReservedKeyword(s string) bool {
	switch s {
	case "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "both", "case", "cast", "check", "collate", "column", "constraint", "create", "current_catalog", "current_date", "current_role", "current_time", "current_timestamp", "current_user", "default", "deferrable", "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "from", "grant", "group", "having", "in", "initially", "intersect", "into", "lateral", "leading", "limit", "localtime", "localtimestamp", "not", "null", "offset", "on", "only", "or", "order", "placing", "primary", "references", "returning", "select", "session_user", "some", "symmetric", "table", "then", "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "when", "where", "window", "with":
		return true
	}
	return false
}

func quoteLiteral(s string) string {
	if strings.Contains(s, `\`) {
		return `E'` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `''`) + `'`
	}
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}

func md5hex(s string) string {
	h := md5.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func translate(s, from, to string) string {
	f, t := []rune(from), []rune(to)
	var sb strings.Builder
	for _, r := range s {
		idx := -1
		for k, c := range f {
			if c == r {
				idx = k
				break
			}
		}
		switch {
		case idx < 0:
			sb.WriteRune(r)
		case idx < len(t):
			sb.WriteRune(t[idx])
		}
	}
	return sb.String()
}

func splitPart(s, delim string, n int64) (string, error) {
	if n == 0 {
		return "", errf(CodeInvalidParameterValue, "field position must not be zero")
	}
	if delim == "" {
		if n == 1 || n == -1 {
			return s, nil
		}
		return "", nil
	}
	parts := strings.Split(s, delim)
	if n < 0 {
		n = int64(len(parts)) + n + 1
		if n <= 0 {
			return "", nil
		}
	}
	if n > int64(len(parts)) {
		return "", nil
	}
	return parts[n-1], nil
}

// pgRegexpReplace implements regexp_replace(s, pattern, repl [, flags]).
func pgRegexpReplace(s, pat, repl, flags string) (string, error) {
	re, global, err := compileARE(pat, flags)
	if err != nil {
		return "", err
	}
	// PostgreSQL uses \1 and \& in the replacement; RE2 uses ${1}
	var rb strings.Builder
	for i := 0; i < len(repl); i++ {
		c := repl[i]
		if c == '\\' && i+1 < len(repl) {
			n := repl[i+1]
			switch {
			case n >= '1' && n <= '9':
				rb.WriteString("${" + string(n) + "}")
				i++
				continue
			case n == '&':
				rb.WriteString("${0}")
				i++
				continue
			case n == '\\':
				rb.WriteByte('\\')
				i++
				continue
			}
		}
		if c == '$' {
			rb.WriteString("$$")
			continue
		}
		rb.WriteByte(c)
	}
	r := rb.String()
	if global {
		return re.ReplaceAllString(s, r), nil
	}
	loc := re.FindStringSubmatchIndex(s)
	if loc == nil {
		return s, nil
	}
	var dst []byte
	dst = re.ExpandString(dst, r, s, loc)
	return s[:loc[0]] + string(dst) + s[loc[1]:], nil
}

// trailingEscapeUnreached reports whether PostgreSQL's LIKE matcher, for a
// pattern ending in a lone escape, runs out of text before reaching it
// (then the answer is false, not an error): the error needs text left
// after a match of the pattern before the escape.
func trailingEscapeUnreached(s, p string, ci bool) bool {
	if !strings.HasSuffix(p, "\\") {
		return false
	}
	src, err := likeToRegexp(p[:len(p)-1], ci)
	if err != nil {
		return false
	}
	re, err := compileRegex(strings.TrimSuffix(src, "$") + "(?s:.)")
	return err == nil && !re.MatchString(s)
}
