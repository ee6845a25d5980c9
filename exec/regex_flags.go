package exec

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/pggraph/pggraph/pgerr"
)

// PostgreSQL's advanced regular expressions run on RE2 (doc.go lists the
// differences). compileARE gives RE2 PostgreSQL's defaults and flags:
// '.' matches a newline unless the n flag is given (newline-sensitive
// mode, where ^ and $ also match at line breaks), i/c switch case
// sensitivity (the last wins), x is expanded syntax (white space and
// #-comments dropped), q makes the pattern a literal; g is reported to
// the caller. An unknown flag is 22023 as in PostgreSQL.

// compileARE compiles pat with PostgreSQL regexp flags.
func compileARE(pat, flags string) (re *regexp.Regexp, global bool, err error) {
	ci, newline, expanded, quote := false, false, false, false
	for _, f := range flags {
		switch f {
		case 'g':
			global = true
		case 'i':
			ci = true
		case 'c':
			ci = false
		case 'n', 'm':
			newline = true
		case 's':
			newline = false
		case 'x':
			expanded = true
		case 't':
			expanded = false
		case 'q':
			quote = true
		case 'p', 'w', 'b', 'e':
			return nil, false, unsupported("regexp flag \"%c\" is not supported", f)
		default:
			return nil, false, errf(CodeInvalidParameterValue, "invalid regular expression option: \"%c\"", f)
		}
	}
	switch {
	case quote:
		pat = regexp.QuoteMeta(pat)
	case strings.Contains(pat, "(?P<") || strings.Contains(pat, "(?<"):
		// named groups are RE2-only syntax; PostgreSQL rejects (?<
		return nil, false, &Error{Code: CodeInvalidRegex, Message: "invalid regular expression: quantifier operand invalid"}
	case expanded:
		pat = stripExpanded(pat)
	}
	prefix := "(?s)"
	if newline {
		prefix = "(?m)"
	}
	if ci {
		prefix += "(?i)"
	}
	re, err = compileRegex(prefix + pat)
	return re, global, err
}

// stripExpanded removes the white space and #-comments of an expanded
// (x flag) pattern, keeping escaped characters and bracket expressions.
func stripExpanded(p string) string {
	var sb strings.Builder
	inBracket := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			sb.WriteByte(c)
			sb.WriteByte(p[i+1])
			i++
		case inBracket:
			if c == ']' {
				inBracket = false
			}
			sb.WriteByte(c)
		case c == '[':
			inBracket = true
			sb.WriteByte(c)
			if i+1 < len(p) && p[i+1] == ']' { // a leading ] is literal
				sb.WriteByte(']')
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// similarBody translates a SIMILAR TO pattern fragment with escape
// character esc (0: none) to RE2; lazy makes % match as little as
// possible (the part before the first separator of substring ... SIMILAR).
func similarBody(p string, esc rune, lazy bool) string {
	var sb strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case esc != 0 && c == esc && i+1 < len(rs):
			i++
			sb.WriteString(regexp.QuoteMeta(string(rs[i])))
		case c == '%':
			sb.WriteString(".*")
			if lazy {
				sb.WriteByte('?')
			}
		case c == '_':
			sb.WriteByte('.')
		case c == '.' || c == '^' || c == '$' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(c)
		default:
			sb.WriteRune(c)
		}
	}
	return sb.String()
}

// similarSubstring is substring(s SIMILAR pat ESCAPE esc): the part of s
// matching the pattern between the two escape-double-quote separators
// (the whole match without them); NULL (ok false) when s does not match.
func similarSubstring(s, pat, esc string) (string, bool, error) {
	var e rune
	switch n := len([]rune(esc)); {
	case n == 1:
		e = []rune(esc)[0]
	case n > 1:
		return "", false, &Error{Code: CodeInvalidEscapeSequence, Message: "invalid escape string", Hint: "Escape string must be empty or one character."}
	}
	var parts []string
	if e != 0 {
		sep := string(e) + `"`
		parts = strings.Split(pat, sep)
	} else {
		parts = []string{pat}
	}
	var src string
	switch len(parts) {
	case 1:
		src = "(?s)^(" + similarBody(parts[0], e, false) + ")$"
	case 3:
		src = "(?s)^(?:" + similarBody(parts[0], e, true) + ")(" + similarBody(parts[1], e, false) + ")(?:" + similarBody(parts[2], e, false) + ")$"
	default:
		return "", false, &Error{Code: pgerr.InvalidUseOfEscapeCharacter, Message: "SQL regular expression may not contain more than two escape-double-quote separators"}
	}
	re, err := compileRegex(src)
	if err != nil {
		return "", false, err
	}
	m := re.FindStringSubmatchIndex(s)
	if m == nil || m[2] < 0 {
		return "", false, nil
	}
	return s[m[2]:m[3]], true, nil
}

func init() {
	def("substring", fnSig{args: []Type{TText, TText, TText}, ret: TText, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			r, ok, err := similarSubstring(a[0].S[i], a[1].S[i], a[2].S[i])
			if err != nil {
				return err
			}
			if !ok {
				out.SetNull(int(i))
				continue
			}
			out.S[i] = r
		}
		return nil
	}})
	def("convert_to", sig(TBytea, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if err := utf8Encoding(a[1].S[i]); err != nil {
				return err
			}
			out.S[i] = a[0].S[i]
		}
		return nil
	}, TText, TName))
	def("convert_from", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			if err := utf8Encoding(a[1].S[i]); err != nil {
				return err
			}
			if !utf8.ValidString(a[0].S[i]) {
				return errf(CodeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\"")
			}
			out.S[i] = a[0].S[i]
		}
		return nil
	}, TBytea, TName))
}

// utf8Encoding accepts the server encoding's names (UTF8 only: other
// conversions answer 0A000, listed in doc.go).
func utf8Encoding(name string) error {
	switch strings.ToUpper(strings.ReplaceAll(name, "-", "")) {
	case "UTF8", "UNICODE":
		return nil
	case "SQL_ASCII", "LATIN1", "WIN1252", "LATIN2", "EUC_JP", "SJIS", "UTF16":
		return unsupported("encoding conversion to %s is not supported", name)
	}
	return errf(CodeInvalidParameterValue, "invalid destination encoding name \"%s\"", name)
}

// escapeRune reads an ESCAPE string: empty (no escape) or one character.
func escapeRune(esc string) (rune, error) {
	rs := []rune(esc)
	switch len(rs) {
	case 0:
		return 0, nil
	case 1:
		return rs[0], nil
	}
	return 0, &Error{Code: CodeInvalidEscapeSequence, Message: "invalid escape string", Hint: "Escape string must be empty or one character."}
}

// likeEscape rewrites a LIKE pattern written with escape character esc
// into the default backslash form (PostgreSQL's like_escape).
func likeEscape(p, esc string) (string, error) {
	e, err := escapeRune(esc)
	if err != nil {
		return "", err
	}
	if e == '\\' {
		return p, nil
	}
	var sb strings.Builder
	rs := []rune(p)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case e != 0 && c == e:
			sb.WriteByte('\\')
			if i+1 < len(rs) {
				i++
				sb.WriteRune(rs[i])
			}
		case c == '\\':
			sb.WriteString(`\\`)
		default:
			sb.WriteRune(c)
		}
	}
	return sb.String(), nil
}

func init() {
	def("like_escape", sig(TText, func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
		for _, i := range sel {
			s, err := likeEscape(a[0].S[i], a[1].S[i])
			if err != nil {
				return err
			}
			out.S[i] = s
		}
		return nil
	}, TText, TText))
}
