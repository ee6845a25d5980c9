package regress

import (
	"regexp"
	"strings"
)

// copyFromStdin matches a COPY statement whose data follows it inline.
var copyFromStdin = regexp.MustCompile(`(?is)^\s*copy\b.*\bfrom\s+stdin\b`)

// Unit is one step of a psql script: an SQL statement (with its
// terminator: ";" or a meta-command such as \gset that ends it) or a
// meta-command line on its own (\set, \d, …).
type Unit struct {
	Text string
	Line int  // first line of the unit, 1-based
	Meta bool // a meta-command line on its own, not an SQL statement
}

// Split cuts a psql script into the units psql would run one after the
// other, with psql's lexical rules where they decide the boundaries:
// quotes ('…', E'…', "…", $tag$…$tag$), comments (--, nested /* */),
// a ";" ends a statement only outside parentheses, and inside
// CREATE FUNCTION / PROCEDURE … BEGIN ATOMIC only after its END. A
// backslash outside quotes starts a meta-command that runs to the end of
// its line; inside a statement it ends the statement (\g, \gset, …).
// Lines of only whitespace and comments between units belong to no unit.
func Split(script string) []Unit {
	var units []Unit
	var cur strings.Builder
	line := 1
	start := 0 // line of cur's first significant byte, 0 = cur is empty
	paren, atomic := 0, 0
	var words []string // the statement's leading keywords (CREATE FUNCTION detection)
	flush := func(meta bool) {
		if start != 0 {
			units = append(units, Unit{Text: strings.TrimSpace(cur.String()), Line: start, Meta: meta})
		}
		cur.Reset()
		start, paren, atomic, words = 0, 0, 0, nil
	}
	mark := func() {
		if start == 0 {
			start = line
		}
	}
	n := len(script)
	for i := 0; i < n; {
		c := script[i]
		switch {
		case c == '\n':
			if start != 0 {
				cur.WriteByte(c)
			}
			line++
			i++
		case c == '-' && i+1 < n && script[i+1] == '-':
			j := strings.IndexByte(script[i:], '\n')
			if j < 0 {
				j = n - i
			}
			if start != 0 {
				cur.WriteString(script[i : i+j])
			}
			i += j
		case c == '/' && i+1 < n && script[i+1] == '*':
			j := skipBlockComment(script, i)
			if start != 0 {
				cur.WriteString(script[i:j])
			}
			line += strings.Count(script[i:j], "\n")
			i = j
		case c == '\\':
			// A meta-command: the rest of the line (psql's own lexer
			// reads its arguments; none of the scripts quote a newline).
			j := strings.IndexByte(script[i:], '\n')
			if j < 0 {
				j = n - i
			}
			meta := start == 0
			mark()
			cur.WriteString(script[i : i+j])
			i += j
			flush(meta)
		case c == '\'' || c == '"':
			mark()
			esc := c == '\'' && i > 0 && (script[i-1] == 'E' || script[i-1] == 'e') && (i < 2 || !isWordByte(script[i-2]))
			j := skipQuoted(script, i, c, esc)
			cur.WriteString(script[i:j])
			line += strings.Count(script[i:j], "\n")
			i = j
		case c == '$' && (i == 0 || !isWordByte(script[i-1])):
			mark()
			j := skipDollar(script, i)
			cur.WriteString(script[i:j])
			line += strings.Count(script[i:j], "\n")
			i = j
		case c == '(':
			mark()
			paren++
			cur.WriteByte(c)
			i++
		case c == ')':
			mark()
			if paren > 0 {
				paren--
			}
			cur.WriteByte(c)
			i++
		case c == ';':
			mark()
			cur.WriteByte(c)
			i++
			if paren == 0 && atomic == 0 {
				copyIn := copyFromStdin.MatchString(cur.String())
				flush(false)
				if copyIn {
					// the data lines up to \. go to the server with it
					j, lines := copyData(script, i)
					data := script[i:j]
					if k := strings.IndexByte(data, '\n'); k >= 0 {
						data = data[k:] // the rest of the statement's line is not data
					}
					units[len(units)-1].Text += data
					line += lines
					i = j
				}
			}
		case isWordByte(c) && (i == 0 || !isWordByte(script[i-1])):
			mark()
			j := i
			for j < n && isWordByte(script[j]) {
				j++
			}
			w := strings.ToLower(script[i:j])
			if len(words) < 4 {
				words = append(words, w)
			}
			if routineHeader(words) {
				switch w {
				case "begin", "case":
					// psql counts BEGIN (and CASE, which also ends with
					// END) only in a routine's body
					atomic++
				case "end":
					if atomic > 0 {
						atomic--
					}
				}
			}
			cur.WriteString(script[i:j])
			i = j
		default:
			if c != ' ' && c != '\t' && c != '\r' {
				mark()
			}
			if start != 0 {
				cur.WriteByte(c)
			}
			i++
		}
	}
	flush(false)
	return units
}

// routineHeader reports whether the statement begins CREATE [OR REPLACE]
// FUNCTION|PROCEDURE, the statements whose BEGIN ATOMIC … END bodies hold
// semicolons.
func routineHeader(words []string) bool {
	if len(words) < 2 || words[0] != "create" {
		return false
	}
	k := words[1]
	if k == "or" && len(words) >= 4 {
		k = words[3]
	}
	return k == "function" || k == "procedure"
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 0x80 || c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

// skipQuoted returns the index after the quoted text starting at i;
// a doubled quote continues it, and with escapes a backslash escapes the
// next byte. An unterminated quote runs to the end.
func skipQuoted(s string, i int, q byte, escapes bool) int {
	for j := i + 1; j < len(s); j++ {
		switch {
		case escapes && s[j] == '\\':
			j++
		case s[j] == q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(s)
}

// skipDollar returns the index after a $tag$…$tag$ string at i, or i+1
// when the $ starts no tag ($1 parameters, operators).
func skipDollar(s string, i int) int {
	j := i + 1
	for j < len(s) && (isWordByte(s[j]) && !(j == i+1 && s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	if j >= len(s) || s[j] != '$' {
		return i + 1
	}
	tag := s[i : j+1]
	k := strings.Index(s[j+1:], tag)
	if k < 0 {
		return len(s)
	}
	return j + 1 + k + len(tag)
}

// skipBlockComment returns the index after the (nested) /* */ comment at i.
func skipBlockComment(s string, i int) int {
	depth := 0
	for j := i; j+1 < len(s); j++ {
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

// copyData returns the end of COPY FROM STDIN data that follows the
// statement ending at i (the rest of i's line, then lines up to and
// including a line "\."), and how many newlines it spans. psql sends
// data only when the server accepted the COPY; the scripts follow a COPY
// they expect to fail with statements, so a line ending in ";" before
// the "\." means there is no data (i, 0). Data rows ending in ";" are
// the price: none of PostgreSQL 15's scripts but one CSV row has one.
func copyData(s string, i int) (int, int) {
	nl := strings.IndexByte(s[i:], '\n')
	if nl < 0 {
		return len(s), 0
	}
	j, lines := i+nl+1, 1
	for j < len(s) {
		e := strings.IndexByte(s[j:], '\n')
		if e < 0 {
			return len(s), lines
		}
		row := strings.TrimRight(s[j:j+e], "\r")
		j += e + 1
		lines++
		if row == "\\." {
			return j, lines
		}
		if strings.HasSuffix(strings.TrimRight(row, " \t"), ";") {
			// an SQL statement before any "\.": a COPY the script expects
			// to fail, which psql sends no data for (its next lines are
			// statements)
			return i, 0
		}
	}
	return j, lines
}
