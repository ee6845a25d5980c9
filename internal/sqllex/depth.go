package sqllex

import "strings"

// NestingBound returns an upper bound on how deep the parse tree of sql
// can nest, without parsing it: the C parser's own recursion (and the
// recursion of everything that walks its tree) is bounded by the tree's
// depth, and some shapes — a left-deep chain such as 1+1+…+1, or many
// UNION arms — are built by the grammar without recursion and only
// overflow a stack afterwards. Callers refuse a statement whose bound is
// too large before the parser sees it.
//
// The scan follows the grammar's precedence only as far as the bound
// needs. Groups are parentheses, brackets and CASE … END; a group's
// elements are separated by commas (and, in CASE, by WHEN/THEN/ELSE), and
// each closed group adds one level to the element holding it. Within an
// element, boolean AND and OR bind loosest of all expression operators and
// are flattened into list nodes by the grammar, so they split the element
// into arms that are siblings under at most two boolean levels; every
// other operator and operator keyword counts one level in its arm, as
// does SELECT (a sublink holds a statement, a target list and a target
// before its expression); set
// operations and JOINs wrap whole queries and from-items, so they count
// for the whole element, across arms. The AND of BETWEEN … AND is not
// boolean. Strings, quoted identifiers and comments are skipped as
// PostgreSQL's scanner skips them, so what a literal holds never counts.
// Overcounting is harmless (a bound only grows); the scan must never
// undercount.
func NestingBound(sql string) int {
	var (
		stack = []depthGroup{{}}
		best  int
		n     = len(sql)
	)
	closeStatement := func() {
		for len(stack) > 1 {
			stack = closeGroup(stack)
		}
		if d := stack[0].bound(); d > best {
			best = d
		}
		stack[0] = depthGroup{}
	}
	lastWordStart, lastWordEnd := -1, -1 // the identifier or keyword scanned last
	for i := 0; i < n; {
		next, open := SkipSpace(sql, i)
		if open >= 0 {
			break // an unterminated comment: the parser refuses it
		}
		if i = next; i >= n {
			break
		}
		c := sql[i]
		top := &stack[len(stack)-1]
		switch {
		case c == '\'':
			// E'…' (e or E right before the quote) lets a backslash
			// escape the next byte; plain strings do not
			// (standard_conforming_strings is always on here).
			escapes := lastWordEnd == i && lastWordEnd-lastWordStart == 1 && (sql[i-1] == 'e' || sql[i-1] == 'E')
			i = SkipQuoted(sql, i, '\'', escapes)
		case c == '"':
			i = SkipQuoted(sql, i, '"', false)
		case c == '$':
			// Identifiers and numbers consume their own $ bytes, so a
			// $ here starts a token: a parameter or a dollar quote.
			i = skipDollar(sql, i)
		case c == '(' || c == '[':
			stack = append(stack, depthGroup{})
			i++
		case c == ')' || c == ']':
			// closes the innermost parenthesis or bracket, and any CASE
			// left open inside it
			for len(stack) > 1 {
				caseGroup := stack[len(stack)-1].isCase
				stack = closeGroup(stack)
				if !caseGroup {
					break
				}
			}
			i++
		case c == ',':
			top.endElement()
			i++
		case c == ';':
			closeStatement()
			i++
		case isOperatorByte(c) || c == ':':
			// A run of operator bytes is as many operators as
			// PostgreSQL's scanner makes of it (operatorTokens: || is
			// one, +- two); :: is one cast node, any other : one level.
			for i < n && (isOperatorByte(sql[i]) || sql[i] == ':') {
				if sql[i] == ':' {
					if i+1 < n && sql[i+1] == ':' {
						i++
					}
					top.armOps++
					i++
					continue
				}
				j := i
				for j < n && isOperatorByte(sql[j]) {
					if j+1 < n && ((sql[j] == '-' && sql[j+1] == '-') || (sql[j] == '/' && sql[j+1] == '*')) {
						break // a comment starts inside the run
					}
					j++
				}
				if j == i {
					break
				}
				top.armOps += operatorTokens(sql[i:j])
				i = j
			}
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentCont(sql[j]) {
				j++
			}
			switch keywordRole(sql[i:j]) {
			case roleCase:
				stack = append(stack, depthGroup{isCase: true})
			case roleEnd:
				if top.isCase {
					stack = closeGroup(stack)
				}
			case roleCaseBranch:
				if top.isCase {
					top.endElement()
				}
			case roleAnd:
				if top.pendingBetween > 0 {
					top.pendingBetween--
					top.armOps++
				} else {
					top.boolean = true
					top.endArm()
				}
			case roleOr:
				top.boolean = true
				top.endArm()
			case roleBetween:
				top.pendingBetween++
				top.armOps++
			case roleStructural:
				top.structural++
			case roleOperator:
				top.armOps++
			case roleQuery:
				// a query's own levels count once per element: the
				// SELECTs of a set operation's arms are siblings under
				// the set operation nodes, which structural counts
				top.query = true
			}
			lastWordStart, lastWordEnd = i, j
			i = j
		case c >= '0' && c <= '9':
			// a number (with any trailing identifier bytes): an operand
			for i < n && (isIdentCont(sql[i]) || sql[i] == '.') && !(sql[i] == '.' && i+1 < n && sql[i+1] == '.') {
				i++
			}
		default:
			// dots and anything else: punctuation that never nests
			i++
		}
	}
	closeStatement()
	return best
}

// depthGroup is one parenthesis, bracket or CASE level being scanned.
type depthGroup struct {
	isCase         bool
	armOps         int  // operators in the current arm
	armChild       int  // deepest group closed inside the current arm
	maxArm         int  // deepest arm of the current element so far
	boolean        bool // the current element holds a boolean AND or OR
	structural     int  // set operations and JOINs in the current element
	query          bool // the current element holds SELECT or VALUES
	pendingBetween int  // BETWEENs still waiting for their AND
	best           int  // deepest element of the group so far
}

func (g *depthGroup) endArm() {
	if d := g.armOps + g.armChild; d > g.maxArm {
		g.maxArm = d
	}
	g.armOps, g.armChild = 0, 0
}

func (g *depthGroup) endElement() {
	g.endArm()
	d := g.structural + g.maxArm
	if g.query {
		d++
	}
	if g.boolean {
		d += 2 // OR over AND: the grammar's flattened boolean levels
	}
	if d > g.best {
		g.best = d
	}
	isCase, best := g.isCase, g.best
	*g = depthGroup{isCase: isCase, best: best}
}

func (g *depthGroup) bound() int {
	g.endElement()
	return g.best
}

// closeGroup pops the innermost group and credits its depth to the arm
// that holds it.
func closeGroup(stack []depthGroup) []depthGroup {
	inner := stack[len(stack)-1]
	stack = stack[:len(stack)-1]
	if d := inner.bound() + 1; d > stack[len(stack)-1].armChild {
		stack[len(stack)-1].armChild = d
	}
	return stack
}

type keywordKind int

const (
	roleNone       keywordKind = iota
	roleOperator               // builds a node around what precedes it
	roleBetween                // BETWEEN, whose AND is not boolean
	roleAnd                    // AND
	roleOr                     // OR
	roleStructural             // UNION, INTERSECT, EXCEPT, JOIN
	roleCase                   // CASE opens a group
	roleEnd                    // END closes it
	roleCaseBranch             // WHEN, THEN, ELSE separate its elements
	roleQuery                  // a query's own levels (statement, target list) inside a sublink
)

var keywordRoles = map[string]keywordKind{
	"NOT": roleOperator, "IS": roleOperator, "ISNULL": roleOperator, "NOTNULL": roleOperator,
	"LIKE": roleOperator, "ILIKE": roleOperator, "SIMILAR": roleOperator, "IN": roleOperator,
	"COLLATE": roleOperator, "AT": roleOperator, "OPERATOR": roleOperator, "OVERLAPS": roleOperator,
	"ESCAPE":  roleOperator,
	"BETWEEN": roleBetween, "AND": roleAnd, "OR": roleOr,
	"UNION": roleStructural, "INTERSECT": roleStructural, "EXCEPT": roleStructural, "JOIN": roleStructural,
	"SELECT": roleQuery, "VALUES": roleQuery,
	"CASE": roleCase, "END": roleEnd, "WHEN": roleCaseBranch, "THEN": roleCaseBranch, "ELSE": roleCaseBranch,
}

// keywordRole classifies a word without allocating for the words that
// cannot be keywords of interest.
func keywordRole(w string) keywordKind {
	if len(w) < 2 || len(w) > 9 {
		return roleNone
	}
	var buf [9]byte
	for k := 0; k < len(w); k++ {
		c := w[k]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		buf[k] = c
	}
	return keywordRoles[string(buf[:len(w)])]
}

// SkipQuoted returns the index after the quoted token starting at
// sql[i] == q (a doubled quote stays inside; with escapes, a backslash
// takes the next byte), or len(sql) when it is not terminated.
func SkipQuoted(sql string, i int, q byte, escapes bool) int {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			if escapes {
				j++
			}
		case q:
			if j+1 < len(sql) && sql[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// skipDollar skips a $tag$…$tag$ string starting at sql[i] == '$', or
// just the $ of a parameter ($1) or of anything that is not a tag.
func skipDollar(sql string, i int) int {
	j := i + 1
	for j < len(sql) && sql[j] != '$' {
		if c := sql[j]; !(isIdentStart(c) || (j > i+1 && c >= '0' && c <= '9')) {
			return i + 1
		}
		j++
	}
	if j >= len(sql) {
		return i + 1
	}
	tag := sql[i : j+1]
	for k := j + 1; k+len(tag) <= len(sql); k++ {
		if sql[k] == '$' && sql[k:k+len(tag)] == tag {
			return k + len(tag)
		}
	}
	return len(sql)
}

// operatorTokens is how many operators PostgreSQL's scanner makes of a
// run of operator bytes (no comment start inside): the longest token
// first, except that a token of several bytes may not end in + or -
// unless it holds one of ~!@#^&|`?% — those trailing bytes start the
// next token (so +- is two operators, || and <> one).
func operatorTokens(run string) int {
	n := 0
	for len(run) > 0 {
		k := len(run)
		if k > 1 && (run[k-1] == '+' || run[k-1] == '-') && !strings.ContainsAny(run[:k-1], "~!@#^&|`?%") {
			for k > 1 && (run[k-1] == '+' || run[k-1] == '-') {
				k--
			}
		}
		n++
		run = run[k:]
	}
	return n
}

func isOperatorByte(c byte) bool {
	switch c {
	case '+', '-', '*', '/', '<', '>', '=', '~', '!', '@', '#', '%', '^', '&', '|', '`', '?':
		return true
	}
	return false
}

func isIdentStart(c byte) bool { return c == '_' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z') }

func isIdentCont(c byte) bool { return isIdentStart(c) || c == '$' || (c >= '0' && c <= '9') }
