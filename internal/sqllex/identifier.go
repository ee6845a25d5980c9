package sqllex

import (
	"strings"
	"unicode/utf8"
)

// MaxIdentifierBytes is PostgreSQL's NAMEDATALEN-1: longer identifiers are
// truncated to this many bytes (at a character boundary).
const MaxIdentifierBytes = 63

// TruncatedIdentifier is an identifier of a statement that PostgreSQL's
// scanner truncates, with a NOTICE naming both forms.
type TruncatedIdentifier struct {
	Full, Truncated string
}

// TruncatedIdentifiers lists, in text order, every identifier of sql
// (unquoted ones folded to lower case, quoted ones with "" undoubled) that
// is longer than MaxIdentifierBytes. It skips strings, comments and
// dollar quotes, and allocates nothing when there is nothing to report.
func TruncatedIdentifiers(sql string) []TruncatedIdentifier {
	if len(sql) <= MaxIdentifierBytes {
		return nil
	}
	var out []TruncatedIdentifier
	n := len(sql)
	lastWordStart, lastWordEnd := -1, -1
	for i := 0; i < n; {
		next, open := SkipSpace(sql, i)
		if open >= 0 {
			break
		}
		if i = next; i >= n {
			break
		}
		c := sql[i]
		switch {
		case c == '\'':
			escapes := lastWordEnd == i && lastWordEnd-lastWordStart == 1 && (sql[i-1] == 'e' || sql[i-1] == 'E')
			i = SkipQuoted(sql, i, '\'', escapes)
		case c == '"':
			end := SkipQuoted(sql, i, '"', false)
			unicodeEscapes := i >= 2 && sql[i-1] == '&' && (sql[i-2] == 'u' || sql[i-2] == 'U')
			if body := sql[i+1 : max(end-1, i+1)]; end-i-2 > MaxIdentifierBytes && !unicodeEscapes {
				out = appendTruncated(out, strings.ReplaceAll(body, `""`, `"`))
			}
			i = end
		case c == '$':
			i = skipDollar(sql, i)
		case c >= '0' && c <= '9':
			// a number, with any identifier bytes glued to it (1e5, 0x1F)
			for i < n && isIdentCont(sql[i]) {
				i++
			}
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentCont(sql[j]) {
				j++
			}
			if j-i > MaxIdentifierBytes {
				out = appendTruncated(out, asciiLower(sql[i:j]))
			}
			lastWordStart, lastWordEnd = i, j
			i = j
		default:
			i++
		}
	}
	return out
}

func appendTruncated(out []TruncatedIdentifier, full string) []TruncatedIdentifier {
	if len(full) <= MaxIdentifierBytes {
		return out // "" undoubling brought it under the limit
	}
	cut := MaxIdentifierBytes
	for cut > 0 && !utf8.RuneStart(full[cut]) {
		cut--
	}
	return append(out, TruncatedIdentifier{Full: full, Truncated: full[:cut]})
}

// asciiLower folds ASCII letters only, as PostgreSQL's downcase_identifier
// does for multibyte encodings.
func asciiLower(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
