package pgq

// GraphTable is a parsed GRAPH_TABLE clause: the text between its
// parentheses, `graph MATCH pattern [WHERE cond] COLUMNS (…)`.
type GraphTable struct {
	Schema, Graph string // the graph's name (schema "" when unqualified)
	Paths         []*Path
	Where         *Expr // the graph pattern's WHERE (nil when none)
	Columns       []*Column
	src           string // the text the spans index
}

// Path is one path pattern: vertices and edges alternating, starting and
// ending with a vertex.
type Path struct {
	Var      string    // path variable ("" when none)
	Selector *Selector // ANY SHORTEST etc. (nil: all paths)
	Mode     string    // path mode: "walk" (the default), "trail", "acyclic", "simple"
	Elems    []*Element
	// Wheres are the conditions of parenthesized path patterns within it
	// (filters of its matches, as elements' WHEREs are).
	Wheres []*Expr
	Pos    int
}

// Selector is a path pattern's selector.
type Selector struct {
	Kind string // "any shortest", "all shortest", "any" (ANY k), "shortest" (SHORTEST k)
	K    int    // ANY k, SHORTEST k
}

// Direction is an edge pattern's direction.
type Direction int

// Edge directions, as written from left to right in the path.
const (
	Right Direction = iota // -[…]-> or ->
	Left                   // <-[…]- or <-
	Any                    // -[…]- or - (either direction)
)

// Element is one vertex or edge pattern.
type Element struct {
	Edge  bool
	Dir   Direction
	Var   string // element variable ("" when anonymous)
	Label *Label // nil: any label
	Where *Expr
	Quant *Quantifier // edges only: {m,n}, +, *
	Pos   int         // byte offset of the pattern in the statement
}

// Quantifier bounds a quantified edge pattern's repetitions.
type Quantifier struct {
	Min, Max int
	// Bounded reports whether the pattern gave Max (+ and * and {m,}
	// take the default bound).
	Bounded bool
}

// Label is a label expression.
type Label struct {
	Op   string // "name", "%", "!", "|", "&"
	Name string
	Args []*Label
	Pos  int
}

// Expr is an SQL expression inside the clause, kept as tokens with the
// source they index so property references can be replaced by span.
type Expr struct {
	toks []token
	src  string
}

// Text is the expression's source text.
func (e *Expr) Text() string {
	if e == nil || len(e.toks) == 0 {
		return ""
	}
	return e.src[e.toks[0].start:e.toks[len(e.toks)-1].end]
}

// Column is one COLUMNS item.
type Column struct {
	Expr  *Expr
	Alias string // "" when none given
	Pos   int
}
