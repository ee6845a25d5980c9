package pgq

import (
	"strings"
)

// tokKind classifies a token of SQL text.
type tokKind int

const (
	tIdent  tokKind = iota // unquoted identifier or keyword (val is lower-cased)
	tQIdent                // "quoted identifier" (val is the unescaped name)
	tString                // any string literal ('…', E'…', $tag$…$tag$, B'…', X'…')
	tNumber
	tParam // $1
	tPunct // one punctuation or operator character (val is that character)
)

// token is one lexical token: its kind, value and byte span in the text.
type token struct {
	kind       tokKind
	val        string
	start, end int
}

func (t token) is(punct string) bool { return t.kind == tPunct && t.val == punct }

// isWord reports whether t is the unquoted identifier or keyword w (lower case).
func (t token) isWord(w string) bool { return t.kind == tIdent && t.val == w }

// lexError is an unterminated literal or comment.
type lexError struct {
	msg string
	pos int
}

// lex splits SQL text into tokens the way PostgreSQL's scanner delimits
// them: comments (nested /* */ and --) and whitespace are skipped, string
// literals (standard, E” escape strings, dollar quoting) and quoted
// identifiers are single tokens, so nothing inside them is mistaken for
// pattern syntax. Operators are split into single characters: the pattern
// grammar reads arrows (->, <-, -[, ]->) from adjacent characters, and
// expression text is copied from the source by span, never re-spelled.
func lex(s string) ([]token, *lexError) {
	var out []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			start, depth := i, 0
			for i < len(s) {
				if s[i] == '/' && i+1 < len(s) && s[i+1] == '*' {
					depth++
					i += 2
				} else if s[i] == '*' && i+1 < len(s) && s[i+1] == '/' {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			if depth != 0 {
				return nil, &lexError{"unterminated /* comment", start}
			}
		case c == '\'':
			end, err := quoted(s, i, false)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tString, s[i:end], i, end})
			i = end
		case (c == 'e' || c == 'E') && i+1 < len(s) && s[i+1] == '\'':
			end, err := quoted(s, i+1, true)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tString, s[i:end], i, end})
			i = end
		case (c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'n' || c == 'N') && i+1 < len(s) && s[i+1] == '\'':
			end, err := quoted(s, i+1, false)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tString, s[i:end], i, end})
			i = end
		case c == '"':
			end, err := quoted(s, i, false)
			if err != nil {
				return nil, err
			}
			out = append(out, token{tQIdent, strings.ReplaceAll(s[i+1:end-1], `""`, `"`), i, end})
			i = end
		case c == '$':
			if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				j := i + 1
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				out = append(out, token{tParam, s[i:j], i, j})
				i = j
				continue
			}
			j := i + 1
			for j < len(s) && s[j] != '$' && isIdentChar(s[j]) && !(j == i+1 && s[j] >= '0' && s[j] <= '9') {
				j++
			}
			if j < len(s) && s[j] == '$' {
				tag := s[i : j+1]
				k := strings.Index(s[j+1:], tag)
				if k < 0 {
					return nil, &lexError{"unterminated dollar-quoted string", i}
				}
				end := j + 1 + k + len(tag)
				out = append(out, token{tString, s[i:end], i, end})
				i = end
				continue
			}
			out = append(out, token{tPunct, "$", i, i + 1})
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (isIdentChar(s[j]) || s[j] == '.' && !(j+1 < len(s) && s[j+1] == '.')) {
				if (s[j] == 'e' || s[j] == 'E') && j+1 < len(s) && (s[j+1] == '+' || s[j+1] == '-') {
					j++
				}
				j++
			}
			out = append(out, token{tNumber, s[i:j], i, j})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			out = append(out, token{tIdent, strings.ToLower(s[i:j]), i, j})
			i = j
		default:
			out = append(out, token{tPunct, string(c), i, i + 1})
			i++
		}
	}
	return out, nil
}

// quoted returns the end (exclusive) of the quoted literal starting at
// s[i] (a ' or "), where a doubled quote is an escaped one; backslash
// escapes the next character in an E” string.
func quoted(s string, i int, backslash bool) (int, *lexError) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslash && s[j] == '\\':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1, nil
		}
	}
	if q == '"' {
		return 0, &lexError{"unterminated quoted identifier", i}
	}
	return 0, &lexError{"unterminated quoted string", i}
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9' || c == '$'
}
