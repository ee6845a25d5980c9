package exec

import (
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/internal/sqllex"
)

// Literals as parameters. A client on the simple protocol (psql,
// psycopg2 and the ORMs over it) sends `... WHERE id = 42` as text, a new
// text for every key: every statement is parsed and bound again, which
// costs several times the lookup itself. NormalizeLiterals finds the
// literals a plan can take as parameters without changing what the
// statement means, so a session can prepare the normalized text once and
// execute it with the literals as the parameters' values.
//
// Only literals in value positions are replaced: right after a
// comparison operator (= <> != < > <= >=), as items of an IN (...) list,
// as BETWEEN bounds, and as the LIMIT / OFFSET count. Ordinals (ORDER
// BY 1), type modifiers (varchar(10)), typed literals (date '...'),
// escape and dollar-quoted strings, and anything the scanner here is not
// sure of are left alone. Each parameter is declared with the type the
// literal has (int4, int8 or numeric by value; unknown for a string), so
// operator and type resolution see what they would see for the literal.
// The caller still has to treat the normalized plan as a candidate: the
// session keeps it only when its result columns equal the literal
// statement's, and answers from the literal statement whenever the
// normalized one fails before producing a row.

// Literal is one replaced literal: its text (what a parameter in text
// format carries) and the type it is declared with.
type Literal struct {
	Text   string
	OID    uint32
	Source string // the literal as written ('it''s', - 5)
}

// OIDUnknownLiteral is the type of a string literal (PostgreSQL's unknown).
const OIDUnknownLiteral = 705

// NormalizeLiterals returns sql with its replaceable literals written as
// $1, $2, ... (in order) and the literals, or ok=false when there is
// none or the text holds something the scanner does not handle (an
// existing parameter, an unterminated string or comment, ...).
func NormalizeLiterals(sql string) (norm string, lits []Literal, ok bool) {
	if strings.IndexByte(sql, '$') >= 0 {
		// parameters, dollar quotes, or identifiers such as a$1 that the
		// placeholders could be read into: left alone
		return "", nil, false
	}
	toks, ok := scanTokens(sql)
	if !ok {
		return "", nil, false
	}
	for _, t := range toks {
		// a statement that may change something when it runs (nextval,
		// advisory locks, set_config, ...) is not a candidate: the caller
		// may run the normalized and then the literal statement
		if t.kind == tokIdent || t.kind == tokQuotedIdent {
			w := strings.ToLower(t.text)
			if volatileFuncs[w] || strings.Contains(w, "advisory") {
				return "", nil, false
			}
			if w == "graph_table" {
				// the clause's literals are not values of the statement
				// the parser sees (internal/pgq splices the clause into a
				// string): left alone
				return "", nil, false
			}
		}
	}
	var b strings.Builder
	last := 0
	depth := 0 // parentheses
	inList := -1
	between := false
	prev := func(i int) *token { // the previous token
		if i == 0 {
			return nil
		}
		return &toks[i-1]
	}
	for i := 0; i < len(toks); i++ {
		t := &toks[i]
		switch {
		case t.kind == tokPunct && t.text == "(":
			depth++
			if p := prev(i); p != nil && p.kind == tokIdent && strings.EqualFold(p.text, "in") && inList < 0 && !startsQuery(toks, i+1) {
				inList = depth
			}
			continue
		case t.kind == tokPunct && t.text == ")":
			if depth == inList {
				inList = -1
			}
			depth--
			continue
		case t.kind == tokIdent && strings.EqualFold(t.text, "between"):
			between = true
			continue
		}
		if t.kind != tokNumber && t.kind != tokString && !(t.kind == tokOp && t.text == "-" && i+1 < len(toks) && toks[i+1].kind == tokNumber) {
			continue
		}
		p := prev(i)
		if p == nil || !valuePosition(p, depth == inList, &between) {
			continue
		}
		start, end := t.start, t.end
		text := t.text
		kind := t.kind
		if t.kind == tokOp { // a negative number
			n := &toks[i+1]
			start, end, text, kind = t.start, n.end, "-"+n.text, tokNumber
			i++
		}
		// the literal must stand alone: not subscripted or qualified, and
		// a negated one not cast (-5::int4 is -(5::int4), which a
		// parameter holding -5 would not be)
		if i+1 < len(toks) && toks[i+1].kind == tokPunct {
			if nt := toks[i+1].text; nt == "." || nt == "[" || (nt == "::" && text[0] == '-') {
				continue
			}
		}
		lit := Literal{Text: text, Source: sql[start:end]}
		if kind == tokString {
			lit.OID = OIDUnknownLiteral
		} else {
			lit.OID = numberType(text)
		}
		lits = append(lits, lit)
		b.WriteString(sql[last:start])
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(len(lits)))
		last = end
	}
	if len(lits) == 0 {
		return "", nil, false
	}
	b.WriteString(sql[last:])
	return b.String(), lits, true
}

// startsQuery says whether toks[i] opens a subquery (IN (SELECT ...)),
// whose commas are no list separators.
func startsQuery(toks []token, i int) bool {
	for ; i < len(toks) && toks[i].kind == tokPunct && toks[i].text == "("; i++ {
	}
	if i >= len(toks) || toks[i].kind != tokIdent {
		return false
	}
	switch strings.ToLower(toks[i].text) {
	case "select", "with", "values", "table":
		return true
	}
	return false
}

// valuePosition says whether a literal after p is a value operand. For
// BETWEEN, the bound after BETWEEN and the one after its AND qualify.
func valuePosition(p *token, inList bool, between *bool) bool {
	switch p.kind {
	case tokOp:
		switch p.text {
		case "=", "<>", "!=", "<", ">", "<=", ">=":
			return true
		}
		return false
	case tokPunct:
		return inList && (p.text == "(" || p.text == ",")
	case tokIdent:
		switch strings.ToLower(p.text) {
		case "limit", "offset":
			return true
		case "between":
			return *between
		case "and":
			if *between {
				*between = false
				return true
			}
		}
	}
	return false
}

// numberType is the type PostgreSQL gives a numeric literal: integer if
// it fits int4, bigint if it fits int8, numeric otherwise (and for any
// fraction or exponent).
func numberType(text string) uint32 {
	if strings.ContainsAny(text, ".eE") {
		return OIDNumeric
	}
	if _, err := strconv.ParseInt(text, 10, 32); err == nil {
		return OIDInt4
	}
	if _, err := strconv.ParseInt(text, 10, 64); err == nil {
		return OIDInt8
	}
	return OIDNumeric
}

type tokKind int

const (
	tokIdent       tokKind = iota // identifiers and keywords
	tokQuotedIdent                // "quoted identifiers"
	tokNumber                     // a plain decimal number
	tokString                     // a plain '...' string
	tokOpaque                     // other literals: E'', B'', X'', U&'', $$...$$
	tokOp                         // operators
	tokPunct                      // ( ) [ ] , ; : :: .
)

type token struct {
	kind       tokKind
	text       string // numbers: the digits; strings: the decoded value
	start, end int    // byte span in the text
}

// scanTokens splits sql into tokens the way PostgreSQL's scanner does
// for what NormalizeLiterals needs; ok=false for anything it does not
// follow (then nothing is replaced).
func scanTokens(sql string) ([]token, bool) {
	var toks []token
	i := 0
	n := len(sql)
	isIdentStart := func(c byte) bool { return c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z') }
	isIdentCont := func(c byte) bool { return isIdentStart(c) || c == '$' || (c >= '0' && c <= '9') }
	for i < n {
		next, open := sqllex.SkipSpace(sql, i)
		if open >= 0 {
			return nil, false // unterminated comment
		}
		if i = next; i >= n {
			break
		}
		c := sql[i]
		switch {
		case c == '\'':
			s, end, ok := scanQuoted(sql, i, '\'')
			if !ok {
				return nil, false
			}
			kind := tokString
			if strings.IndexByte(s, '\\') >= 0 || followedByString(sql, end) {
				// backslashes depend on standard_conforming_strings, and
				// 'a' <newline> 'b' is one literal
				kind = tokOpaque
			}
			toks = append(toks, token{kind: kind, text: s, start: i, end: end})
			i = end
		case c == '"':
			s, end, ok := scanQuoted(sql, i, '"')
			if !ok {
				return nil, false
			}
			toks = append(toks, token{kind: tokQuotedIdent, text: s, start: i, end: end})
			i = end
		case c == '$':
			// $n parameters and $tag$ strings: nothing is replaced in
			// such a text
			return nil, false
		case c >= '0' && c <= '9' || (c == '.' && i+1 < n && sql[i+1] >= '0' && sql[i+1] <= '9'):
			j := i
			for j < n && sql[j] >= '0' && sql[j] <= '9' {
				j++
			}
			if j < n && sql[j] == '.' && !(j+1 < n && sql[j+1] == '.') {
				j++
				for j < n && sql[j] >= '0' && sql[j] <= '9' {
					j++
				}
			}
			if j < n && (sql[j] == 'e' || sql[j] == 'E') {
				k := j + 1
				if k < n && (sql[k] == '+' || sql[k] == '-') {
					k++
				}
				if k < n && sql[k] >= '0' && sql[k] <= '9' {
					for k < n && sql[k] >= '0' && sql[k] <= '9' {
						k++
					}
					j = k
				}
			}
			if j < n && (isIdentCont(sql[j]) || sql[j] == '.') {
				return nil, false // 0x1f, 1_000, 12abc, 1.2.3: not ours to judge
			}
			toks = append(toks, token{kind: tokNumber, text: sql[i:j], start: i, end: j})
			i = j
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentCont(sql[j]) {
				j++
			}
			word := sql[i:j]
			if j < n && sql[j] == '\'' {
				// E'..', B'..', X'..', N'..', U&'..' and typed literals
				// (date '...') are opaque
				_, end, ok := scanQuoted(sql, j, '\'')
				if !ok {
					return nil, false
				}
				toks = append(toks, token{kind: tokOpaque, text: sql[i:end], start: i, end: end})
				i = end
				continue
			}
			if (word == "U" || word == "u") && j+1 < n && sql[j] == '&' && (sql[j+1] == '\'' || sql[j+1] == '"') {
				return nil, false
			}
			toks = append(toks, token{kind: tokIdent, text: word, start: i, end: j})
			i = j
		case strings.IndexByte("()[],;", c) >= 0:
			toks = append(toks, token{kind: tokPunct, text: sql[i : i+1], start: i, end: i + 1})
			i++
		case c == ':':
			if i+1 < n && sql[i+1] == ':' {
				toks = append(toks, token{kind: tokPunct, text: "::", start: i, end: i + 2})
				i += 2
			} else {
				toks = append(toks, token{kind: tokPunct, text: ":", start: i, end: i + 1})
				i++
			}
		case c == '.':
			toks = append(toks, token{kind: tokPunct, text: ".", start: i, end: i + 1})
			i++
		case strings.IndexByte("+-*/<>=~!@#%^&|`?", c) >= 0:
			j := i
			for j < n && strings.IndexByte("+-*/<>=~!@#%^&|`?", sql[j]) >= 0 {
				if j+1 < n && ((sql[j] == '-' && sql[j+1] == '-') || (sql[j] == '/' && sql[j+1] == '*')) {
					break // a comment starts inside the operator
				}
				j++
			}
			op := sql[i:j]
			// PostgreSQL's rule: a multi-character operator ending in + or
			// - keeps it only if it holds one of ~ ! @ # % ^ & | ` ?
			for len(op) > 1 && (op[len(op)-1] == '+' || op[len(op)-1] == '-') && !strings.ContainsAny(op, "~!@#%^&|`?") {
				op = op[:len(op)-1]
			}
			toks = append(toks, token{kind: tokOp, text: op, start: i, end: i + len(op)})
			i += len(op)
		default:
			return nil, false
		}
	}
	return toks, true
}

// scanQuoted reads a quoted token starting at sql[i] == q (” or ""
// doubled inside): its content and the index after the closing quote.
func scanQuoted(sql string, i int, q byte) (string, int, bool) {
	var b strings.Builder
	j := i + 1
	for j < len(sql) {
		if sql[j] == q {
			if j+1 < len(sql) && sql[j+1] == q {
				b.WriteByte(q)
				j += 2
				continue
			}
			return b.String(), j + 1, true
		}
		b.WriteByte(sql[j])
		j++
	}
	return "", 0, false
}

// followedByString reports whether a string literal ending at end is
// continued by another after whitespace holding a newline (PostgreSQL
// concatenates them).
func followedByString(sql string, end int) bool {
	newline := false
	for j := end; j < len(sql); j++ {
		switch sql[j] {
		case '\n', '\r':
			newline = true
		case ' ', '\t', '\f', '\v':
		case '\'':
			return newline
		default:
			return false
		}
	}
	return false
}
