package wire

import (
	"strings"
	"unicode/utf8"

	"github.com/pggraph/pggraph/internal/sqllex"
)

// tokKind is the class of a lexical token of PostgreSQL SQL. The lexer
// exists only to find statement boundaries and to read utility statements;
// it never decides what a query means.
type tokKind int

const (
	tokIdent  tokKind = iota // unquoted identifier or keyword, lower-cased
	tokQIdent                // "quoted identifier", case kept
	tokString                // '...', E'...', $tag$...$tag$ (value unescaped)
	tokNumber
	tokParam // $1
	tokPunct // one operator/punctuation character (or a run of operator chars)
	tokSemi
)

type token struct {
	kind tokKind
	text string // identifier (lowered), string value, punctuation
	pos  int    // byte offset in the source
}

// lexError is a lexical error at a byte offset (unterminated string or comment).
type lexError struct {
	msg string
	pos int
}

// lex tokenizes sql. Comments and whitespace are dropped.
func lex(sql string) ([]token, *lexError) {
	var toks []token
	i := 0
	n := len(sql)
	for i < n {
		next, open := sqllex.SkipSpace(sql, i)
		if open >= 0 {
			return toks, &lexError{"unterminated /* comment", open}
		}
		if i = next; i >= n {
			break
		}
		c := sql[i]
		switch {
		case c == ';':
			toks = append(toks, token{tokSemi, ";", i})
			i++
		case c == '\'':
			s, end, err := lexQuoted(sql, i, false)
			if err != nil {
				return toks, err
			}
			toks = append(toks, token{tokString, s, i})
			i = end
		case (c == 'e' || c == 'E') && i+1 < n && sql[i+1] == '\'':
			s, end, err := lexQuoted(sql, i+1, true)
			if err != nil {
				return toks, err
			}
			toks = append(toks, token{tokString, s, i})
			i = end
		case c == '"':
			start := i
			var b strings.Builder
			i++
			for {
				if i >= n {
					return toks, &lexError{"unterminated quoted identifier", start}
				}
				if sql[i] == '"' {
					if i+1 < n && sql[i+1] == '"' {
						b.WriteByte('"')
						i += 2
						continue
					}
					i++
					break
				}
				b.WriteByte(sql[i])
				i++
			}
			toks = append(toks, token{tokQIdent, b.String(), start})
		case c == '$':
			if i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9' {
				j := i + 1
				for j < n && sql[j] >= '0' && sql[j] <= '9' {
					j++
				}
				toks = append(toks, token{tokParam, sql[i:j], i})
				i = j
				continue
			}
			// dollar quote: $tag$ ... $tag$
			j := i + 1
			for j < n && isIdentChar(sql[j]) && sql[j] != '$' {
				j++
			}
			if j < n && sql[j] == '$' {
				tag := sql[i : j+1]
				end := strings.Index(sql[j+1:], tag)
				if end < 0 {
					return toks, &lexError{"unterminated dollar-quoted string", i}
				}
				toks = append(toks, token{tokString, sql[j+1 : j+1+end], i})
				i = j + 1 + end + len(tag)
				continue
			}
			toks = append(toks, token{tokPunct, "$", i})
			i++
		case c >= '0' && c <= '9' || (c == '.' && i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9'):
			j := i
			for j < n && (sql[j] >= '0' && sql[j] <= '9' || sql[j] == '.' || sql[j] == 'e' || sql[j] == 'E' || sql[j] == '_' ||
				((sql[j] == '+' || sql[j] == '-') && j > i && (sql[j-1] == 'e' || sql[j-1] == 'E'))) {
				j++
			}
			toks = append(toks, token{tokNumber, sql[i:j], i})
			i = j
		case isIdentStart(c):
			j := i
			for j < n && isIdentChar(sql[j]) {
				j++
			}
			toks = append(toks, token{tokIdent, strings.ToLower(sql[i:j]), i})
			i = j
		default:
			_, size := utf8.DecodeRuneInString(sql[i:])
			toks = append(toks, token{tokPunct, sql[i : i+size], i})
			i += size
		}
	}
	return toks, nil
}

// lexQuoted reads a single-quoted string starting at sql[start]=='\”.
// With escapes (E'...') backslash sequences are interpreted.
func lexQuoted(sql string, start int, escapes bool) (string, int, *lexError) {
	var b strings.Builder
	i := start + 1
	n := len(sql)
	for {
		if i >= n {
			return "", i, &lexError{"unterminated quoted string", start}
		}
		c := sql[i]
		if c == '\'' {
			if i+1 < n && sql[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		}
		if escapes && c == '\\' && i+1 < n {
			i++
			switch sql[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			default:
				b.WriteByte(sql[i])
			}
			i++
			continue
		}
		b.WriteByte(c)
		i++
	}
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

// SplitStatements splits a query string at top-level semicolons, honouring
// quotes, dollar quotes and comments. Empty statements are dropped. A
// lexical error (unterminated literal) is a 42601 *Error.
func SplitStatements(sql string) ([]string, error) {
	parts, err := splitStatements(sql)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, nil
	}
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.text
	}
	return out, nil
}

// stmtPart is one statement of a query string and its byte offset there.
type stmtPart struct {
	text string
	off  int
}

func splitStatements(sql string) ([]stmtPart, error) {
	toks, lerr := lex(sql)
	if lerr != nil {
		return nil, lexErrorAt(sql, lerr)
	}
	var out []stmtPart
	add := func(from, to int) {
		seg := sql[from:to]
		trimmed := strings.TrimSpace(seg)
		if trimmed == "" || !hasTokens(toks, from, to) {
			return
		}
		out = append(out, stmtPart{trimmed, from + strings.Index(seg, trimmed)})
	}
	start := 0
	for _, t := range toks {
		if t.kind == tokSemi {
			add(start, t.pos)
			start = t.pos + 1
		}
	}
	add(start, len(sql))
	return out, nil
}

// hasTokens reports whether any token starts in [from, to): a segment made
// only of comments is not a statement.
func hasTokens(toks []token, from, to int) bool {
	for _, t := range toks {
		if t.pos >= from && t.pos < to && t.kind != tokSemi {
			return true
		}
	}
	return false
}

// lexErrorAt is a lexical error the way PostgreSQL words it: the rest of
// the input from the offending token is quoted.
func lexErrorAt(sql string, l *lexError) *Error {
	return syntaxErrorAt(sql, l.pos, l.msg+" at or near \""+sql[l.pos:]+"\"")
}

func syntaxErrorAt(sql string, bytePos int, msg string) *Error {
	e := Errorf(CodeSyntaxError, "%s", msg)
	if bytePos >= 0 && bytePos <= len(sql) {
		e.Position = int32(utf8.RuneCountInString(sql[:bytePos])) + 1
	}
	return e
}
