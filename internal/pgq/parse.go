package pgq

import (
	"fmt"
	"strconv"

	"github.com/pggraph/pggraph/pgerr"
)

// Error is a GRAPH_TABLE error with its SQLSTATE; Pos is a byte offset
// into the text parsed (-1 when unplaced).
type Error struct {
	Code    string
	Message string
	Pos     int
}

func (e *Error) Error() string { return e.Message }

// SQLSTATEs the pattern language raises.
const (
	CodeSyntaxError     = pgerr.SyntaxError
	CodeUndefinedObject = pgerr.UndefinedObject
	CodeUndefinedTable  = pgerr.UndefinedTable
	CodeFeature         = pgerr.FeatureNotSupported
)

func errAt(code string, pos int, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Pos: pos}
}

// DefaultMaxHops bounds quantifiers written without an upper bound (+, *,
// {m,}): walks repeat edges, so an unbounded walk over a cycle never ends.
const DefaultMaxHops = 8

// parser reads one GRAPH_TABLE clause's tokens.
type parser struct {
	src  string
	toks []token
	i    int
	end  int // offset just past the clause (for errors at its end)
}

// Parse parses the text between GRAPH_TABLE's parentheses.
func Parse(text string) (*GraphTable, error) {
	toks, le := lex(text)
	if le != nil {
		return nil, errAt(CodeSyntaxError, le.pos, "%s", le.msg)
	}
	return parseTokens(text, toks, len(text))
}

func parseTokens(src string, toks []token, end int) (*GraphTable, error) {
	p := &parser{src: src, toks: toks, end: end}
	gt, err := p.graphTable()
	if err != nil {
		return nil, err
	}
	gt.src = src
	return gt, nil
}

func (p *parser) peek(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return token{kind: tPunct, val: "", start: p.end, end: p.end}
}

func (p *parser) atEnd() bool { return p.i >= len(p.toks) }

func (p *parser) syntaxError() error {
	if p.atEnd() {
		return errAt(CodeSyntaxError, p.end, "syntax error at end of GRAPH_TABLE clause")
	}
	t := p.toks[p.i]
	return errAt(CodeSyntaxError, t.start, "syntax error at or near \"%s\"", p.src[t.start:t.end])
}

func (p *parser) expectPunct(s string) error {
	if !p.peek(0).is(s) {
		return p.syntaxError()
	}
	p.i++
	return nil
}

func (p *parser) expectWord(w string) error {
	if !p.peek(0).isWord(w) {
		return p.syntaxError()
	}
	p.i++
	return nil
}

// name reads an identifier (folded when unquoted).
func (p *parser) name() (string, error) {
	t := p.peek(0)
	if t.kind != tIdent && t.kind != tQIdent || t.kind == tIdent && reserved[t.val] {
		return "", p.syntaxError()
	}
	p.i++
	return t.val, nil
}

// pathWords start a path pattern prefix (selector or path mode).
var pathWords = map[string]bool{"any": true, "all": true, "shortest": true, "walk": true, "trail": true, "acyclic": true, "simple": true}

// pathPrefix reads [selector] [path mode] [PATH|PATHS]: ANY SHORTEST, ALL
// SHORTEST, ANY [k], SHORTEST k [GROUP], and WALK, TRAIL, ACYCLIC, SIMPLE.
func (p *parser) pathPrefix(path *Path) error {
	num := func() (int, bool) {
		t := p.peek(0)
		if t.kind != tNumber {
			return 0, false
		}
		n, err := strconv.Atoi(t.val)
		if err != nil || n < 1 {
			return 0, false
		}
		p.i++
		return n, true
	}
	t := p.peek(0)
	switch {
	case t.isWord("any") && p.peek(1).isWord("shortest"):
		p.i += 2
		path.Selector = &Selector{Kind: "any shortest", K: 1}
	case t.isWord("all") && p.peek(1).isWord("shortest"):
		p.i += 2
		path.Selector = &Selector{Kind: "all shortest"}
	case t.isWord("any"):
		p.i++
		k, ok := num()
		if !ok {
			k = 1
		}
		path.Selector = &Selector{Kind: "any", K: k}
	case t.isWord("shortest"):
		p.i++
		k, ok := num()
		if !ok {
			return p.syntaxError()
		}
		if p.peek(0).isWord("group") {
			return errAt(CodeFeature, t.start, "path selector SHORTEST k GROUP is not supported")
		}
		path.Selector = &Selector{Kind: "shortest", K: k}
	case t.isWord("all"):
		p.i++ // ALL (every path), the default
	}
	path.Mode = "walk"
	if m := p.peek(0); m.isWord("walk") || m.isWord("trail") || m.isWord("acyclic") || m.isWord("simple") {
		path.Mode = m.val
		p.i++
	}
	if p.peek(0).isWord("path") || p.peek(0).isWord("paths") {
		p.i++
	}
	return nil
}

// reserved words cannot be element variables or label names unquoted.
var reserved = map[string]bool{"is": true, "where": true, "match": true, "columns": true, "as": true}

func (p *parser) graphTable() (*GraphTable, error) {
	gt := &GraphTable{}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	gt.Graph = n
	if p.peek(0).is(".") {
		p.i++
		if gt.Graph, err = p.name(); err != nil {
			return nil, err
		}
		gt.Schema = n
	}
	if err := p.expectWord("match"); err != nil {
		return nil, err
	}
	for {
		path, err := p.path()
		if err != nil {
			return nil, err
		}
		gt.Paths = append(gt.Paths, path)
		if !p.peek(0).is(",") {
			break
		}
		p.i++
	}
	if p.peek(0).isWord("where") {
		p.i++
		if gt.Where, err = p.exprUntil(func(t token, depth int) bool { return depth == 0 && t.isWord("columns") }); err != nil {
			return nil, err
		}
	}
	if err := p.expectWord("columns"); err != nil {
		return nil, err
	}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	for {
		c, err := p.column()
		if err != nil {
			return nil, err
		}
		gt.Columns = append(gt.Columns, c)
		if p.peek(0).is(",") {
			p.i++
			continue
		}
		break
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	if !p.atEnd() {
		return nil, p.syntaxError()
	}
	return gt, nil
}

func (p *parser) column() (*Column, error) {
	c := &Column{Pos: p.peek(0).start}
	e, err := p.exprUntil(func(t token, depth int) bool {
		return depth == 0 && (t.is(",") || t.is(")") || t.isWord("as"))
	})
	if err != nil {
		return nil, err
	}
	c.Expr = e
	if p.peek(0).isWord("as") {
		p.i++
		t := p.peek(0)
		if t.kind != tIdent && t.kind != tQIdent {
			return nil, p.syntaxError()
		}
		p.i++
		c.Alias = t.val
	}
	return c, nil
}

// exprUntil collects an expression's tokens up to (not including) the
// first token stop accepts at bracket depth 0 relative to the start, or
// a closing bracket that would go below it. An empty expression is a
// syntax error.
func (p *parser) exprUntil(stop func(t token, depth int) bool) (*Expr, error) {
	start, depth := p.i, 0
	for !p.atEnd() {
		t := p.toks[p.i]
		if stop(t, depth) {
			break
		}
		switch {
		case t.is("(") || t.is("["):
			depth++
		case t.is(")") || t.is("]"):
			if depth == 0 {
				goto done
			}
			depth--
		}
		p.i++
	}
done:
	if p.i == start {
		return nil, p.syntaxError()
	}
	return &Expr{toks: p.toks[start:p.i], src: p.src}, nil
}

func (p *parser) path() (*Path, error) {
	path := &Path{Pos: p.peek(0).start}
	if t := p.peek(0); p.peek(1).is("=") && (t.kind == tQIdent || t.kind == tIdent && !reserved[t.val] && !pathWords[t.val]) {
		path.Var = t.val
		p.i += 2
	}
	if err := p.pathPrefix(path); err != nil {
		return nil, err
	}
	return path, p.sequence(path)
}

// sequence reads vertex and edge patterns alternating into path, each
// vertex position possibly a parenthesized path pattern.
func (p *parser) sequence(path *Path) error {
	if err := p.primary(path); err != nil {
		return err
	}
	for p.peek(0).is("-") || p.peek(0).is("<") {
		e, err := p.edge()
		if err != nil {
			return err
		}
		path.Elems = append(path.Elems, e)
		if err := p.primary(path); err != nil {
			return err
		}
	}
	if p.peek(0).is("(") {
		return errAt(CodeFeature, p.peek(0).start, "path patterns concatenated without an edge pattern between them are not supported")
	}
	return nil
}

// primary reads a vertex pattern, or a parenthesized path pattern
// "( path [WHERE cond] )", whose elements join the enclosing path where
// it stands (it starts and ends with a vertex) and whose WHERE filters
// its matches like an element's (path.Wheres). A quantifier after it
// answers 0A000.
func (p *parser) primary(path *Path) error {
	if !(p.peek(0).is("(") && p.peek(1).is("(")) {
		v, err := p.vertex()
		if err != nil {
			return err
		}
		path.Elems = append(path.Elems, v)
		return nil
	}
	p.i++
	if err := p.sequence(path); err != nil {
		return err
	}
	if p.peek(0).isWord("where") {
		p.i++
		e, err := p.exprUntil(func(token, int) bool { return false })
		if err != nil {
			return err
		}
		path.Wheres = append(path.Wheres, e)
	}
	if err := p.expectPunct(")"); err != nil {
		return err
	}
	if t := p.peek(0); t.is("{") || t.is("+") || t.is("*") {
		return errAt(CodeFeature, t.start, "quantified parenthesized path patterns are not supported")
	}
	return nil
}

func (p *parser) vertex() (*Element, error) {
	el := &Element{Pos: p.peek(0).start}
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	if err := p.filler(el, ")"); err != nil {
		return nil, err
	}
	return el, p.expectPunct(")")
}

// filler reads an element pattern's body: [var] [IS label] [WHERE cond].
func (p *parser) filler(el *Element, closer string) error {
	if t := p.peek(0); t.kind == tQIdent || t.kind == tIdent && !reserved[t.val] {
		el.Var = t.val
		p.i++
	}
	if p.peek(0).isWord("is") || p.peek(0).is(":") {
		p.i++
		l, err := p.labelOr()
		if err != nil {
			return err
		}
		el.Label = l
	}
	if p.peek(0).isWord("where") {
		p.i++
		e, err := p.exprUntil(func(token, int) bool { return false })
		if err != nil {
			return err
		}
		el.Where = e
	}
	if !p.peek(0).is(closer) {
		return p.syntaxError()
	}
	return nil
}

func (p *parser) labelOr() (*Label, error) {
	l, err := p.labelAnd()
	if err != nil {
		return nil, err
	}
	for p.peek(0).is("|") {
		pos := p.peek(0).start
		p.i++
		r, err := p.labelAnd()
		if err != nil {
			return nil, err
		}
		l = &Label{Op: "|", Args: []*Label{l, r}, Pos: pos}
	}
	return l, nil
}

func (p *parser) labelAnd() (*Label, error) {
	l, err := p.labelNot()
	if err != nil {
		return nil, err
	}
	for p.peek(0).is("&") {
		pos := p.peek(0).start
		p.i++
		r, err := p.labelNot()
		if err != nil {
			return nil, err
		}
		l = &Label{Op: "&", Args: []*Label{l, r}, Pos: pos}
	}
	return l, nil
}

func (p *parser) labelNot() (*Label, error) {
	t := p.peek(0)
	switch {
	case t.is("!"):
		p.i++
		a, err := p.labelNot()
		if err != nil {
			return nil, err
		}
		return &Label{Op: "!", Args: []*Label{a}, Pos: t.start}, nil
	case t.is("%"):
		p.i++
		return &Label{Op: "%", Pos: t.start}, nil
	case t.is("("):
		p.i++
		l, err := p.labelOr()
		if err != nil {
			return nil, err
		}
		return l, p.expectPunct(")")
	}
	n, err := p.name()
	if err != nil {
		return nil, err
	}
	return &Label{Op: "name", Name: n, Pos: t.start}, nil
}

// edge reads an edge pattern in full (-[…]->, <-[…]-, -[…]-) or
// abbreviated (->, <-, -) form, and its quantifier.
func (p *parser) edge() (*Element, error) {
	el := &Element{Edge: true, Pos: p.peek(0).start}
	left := false
	if p.peek(0).is("<") {
		left = true
		p.i++
		if err := p.expectPunct("-"); err != nil {
			return nil, err
		}
	} else if err := p.expectPunct("-"); err != nil {
		return nil, err
	}
	if p.peek(0).is("[") {
		p.i++
		if err := p.filler(el, "]"); err != nil {
			return nil, err
		}
		p.i++ // ]
		if err := p.expectPunct("-"); err != nil {
			return nil, err
		}
	}
	right := false
	if p.peek(0).is(">") {
		right = true
		p.i++
	}
	switch {
	case left && right, !left && !right:
		el.Dir = Any
	case left:
		el.Dir = Left
	default:
		el.Dir = Right
	}
	q, err := p.quantifier()
	if err != nil {
		return nil, err
	}
	el.Quant = q
	return el, nil
}

func (p *parser) quantifier() (*Quantifier, error) {
	t := p.peek(0)
	switch {
	case t.is("+"):
		p.i++
		return &Quantifier{Min: 1, Max: DefaultMaxHops}, nil
	case t.is("*"):
		p.i++
		return &Quantifier{Min: 0, Max: DefaultMaxHops}, nil
	case !t.is("{"):
		return nil, nil
	}
	p.i++
	q := &Quantifier{Min: 0, Max: DefaultMaxHops}
	num := func() (int, bool, error) {
		t := p.peek(0)
		if t.kind != tNumber {
			return 0, false, nil
		}
		n, err := strconv.Atoi(t.val)
		if err != nil || n < 0 {
			return 0, false, p.syntaxError()
		}
		p.i++
		return n, true, nil
	}
	lo, hasLo, err := num()
	if err != nil {
		return nil, err
	}
	if hasLo {
		q.Min = lo
	}
	if p.peek(0).is(",") {
		p.i++
		hi, hasHi, err := num()
		if err != nil {
			return nil, err
		}
		if hasHi {
			q.Max, q.Bounded = hi, true
		}
	} else if hasLo {
		q.Max, q.Bounded = lo, true
	} else {
		return nil, p.syntaxError()
	}
	if err := p.expectPunct("}"); err != nil {
		return nil, err
	}
	if !q.Bounded && q.Min > q.Max {
		q.Max = q.Min
	}
	if q.Max < q.Min {
		return nil, errAt(CodeSyntaxError, t.start, "quantifier upper bound must be greater than or equal to its lower bound")
	}
	return q, nil
}
