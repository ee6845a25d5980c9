package graphsql

import (
	"strings"

	"github.com/pggraph/pggraph/internal/sqllex"
)

// The argument texts of a call are cut out of the statement text at the
// call's parse-tree location with a small PostgreSQL-aware scanner
// (quotes, E'' and dollar quoting, comments, nesting): the grammar already
// accepted the statement, so the scanner only has to find the top-level
// commas and the closing parenthesis. The caller checks the count against
// the parse tree.

// span is one argument's text and its byte offset in the statement.
type span struct {
	text   string
	offset int
}

// callArgs returns the top-level argument spans of the call whose name
// starts at byte offset loc of sql; ok is false when the text does not
// look like a call there.
func callArgs(sql string, loc int) (args []span, ok bool) {
	if loc < 0 || loc >= len(sql) {
		return nil, false
	}
	i := loc
	// the (possibly quoted, qualified) name, up to "("
	for i < len(sql) && sql[i] != '(' {
		switch {
		case sql[i] == '"':
			i = sqllex.SkipQuoted(sql, i, '"', false)
		case strings.HasPrefix(sql[i:], "--"), strings.HasPrefix(sql[i:], "/*"):
			i = skipComment(sql, i)
		default:
			i++
		}
	}
	if i >= len(sql) {
		return nil, false
	}
	i++ // past "("
	start, depth := i, 0
	cut := func(end int) {
		// one whitespace set for the text and its offset, so the span is
		// always the slice of sql it claims to be
		if t := strings.Trim(sql[start:end], sqlSpace); t != "" {
			lead := len(sql[start:end]) - len(strings.TrimLeft(sql[start:end], sqlSpace))
			args = append(args, span{text: t, offset: start + lead})
		}
	}
	for i < len(sql) {
		c := sql[i]
		switch {
		case c == '\'':
			esc := i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e') && (i < 2 || !isIdentByte(sql[i-2]))
			i = sqllex.SkipQuoted(sql, i, '\'', esc)
			continue
		case c == '"':
			i = sqllex.SkipQuoted(sql, i, '"', false)
			continue
		case c == '$':
			if j, ok := skipDollar(sql, i); ok {
				i = j
				continue
			}
		case strings.HasPrefix(sql[i:], "--"), strings.HasPrefix(sql[i:], "/*"):
			i = skipComment(sql, i)
			continue
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			if depth == 0 {
				if c != ')' {
					return nil, false
				}
				cut(i)
				return args, true
			}
			depth--
		case c == ',' && depth == 0:
			cut(i)
			start = i + 1
		}
		i++
	}
	return nil, false
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// skipDollar skips a $tag$…$tag$ string at i; ok is false for a
// parameter reference ($1) or a lone $.
func skipDollar(s string, i int) (int, bool) {
	j := i + 1
	for j < len(s) && s[j] != '$' {
		c := s[j]
		if !isIdentByte(c) || c == '$' || (j == i+1 && c >= '0' && c <= '9') {
			return 0, false
		}
		j++
	}
	if j >= len(s) {
		return 0, false
	}
	tag := s[i : j+1]
	end := strings.Index(s[j+1:], tag)
	if end < 0 {
		return len(s), true
	}
	return j + 1 + end + len(tag), true
}

// skipComment skips a -- line comment or a (nested) /* */ comment at i.
func skipComment(s string, i int) int {
	if strings.HasPrefix(s[i:], "--") {
		if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
			return i + n + 1
		}
		return len(s)
	}
	depth := 0
	for j := i; j < len(s)-1; j++ {
		switch {
		case s[j] == '/' && s[j+1] == '*':
			depth++
			j++
		case s[j] == '*' && s[j+1] == '/':
			depth--
			j++
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}

// stripArgName removes the "name =>" (or "name :=") prefix of a named
// argument's text.
func stripArgName(a span) span {
	t := a.text
	i := 0
	if strings.HasPrefix(t, `"`) {
		i = sqllex.SkipQuoted(t, 0, '"', false)
	} else {
		for i < len(t) && isIdentByte(t[i]) {
			i++
		}
	}
	rest := strings.TrimLeft(t[i:], sqlSpace)
	if strings.HasPrefix(rest, "=>") || strings.HasPrefix(rest, ":=") {
		val := strings.TrimLeft(rest[2:], sqlSpace)
		return span{text: val, offset: a.offset + len(t) - len(val)}
	}
	return a
}

// sqlSpace is the whitespace PostgreSQL's lexer skips between tokens.
const sqlSpace = " \t\r\n\f\v"
