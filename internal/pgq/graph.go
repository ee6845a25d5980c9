package pgq

// Graph is a property graph as the rewrite needs it: its element tables
// with their labels and properties, and each edge table's endpoints.
type Graph struct {
	Name     string
	Vertices []*ElementTable
	Edges    []*ElementTable
}

// ElementTable is one vertex or edge table of a graph.
type ElementTable struct {
	Schema, Table string
	Labels        []string
	// Props maps a property name to the column that holds it.
	Props map[string]string
	// Exprs maps a computed property's name to its SQL expression over
	// the table's unqualified columns (PROPERTIES (expr AS name)).
	Exprs map[string]string
	// Columns are the table's columns (to qualify Exprs).
	Columns []string
	// PropTypes maps a property name to its SQL type (for NULL::type when
	// another element table of a disjunction lacks the property).
	PropTypes map[string]string
	// Key is the table's key column(s) (an edge table's may be nil), and
	// KeyTypes their SQL types (TRAIL keeps edge keys in an array).
	Key      []string
	KeyTypes []string
	// Src and Dst are an edge table's endpoints.
	Src, Dst *Endpoint
}

// Endpoint is one end of an edge table: its columns and the vertex
// table's columns they equal.
type Endpoint struct {
	Columns []string
	Vertex  *ElementTable
	Refs    []string
	// Total says every edge row references exactly one vertex row (the
	// columns are NOT NULL and a foreign key to Refs holds): a vertex
	// reached through it that the pattern reads nothing of need not be
	// joined (its key is the edge's column).
	Total bool
}

// simple reports whether the endpoint is one column referencing the
// vertex table's one key column (what quantified patterns walk over).
func (ep *Endpoint) simple() bool {
	return len(ep.Columns) == 1 && len(ep.Refs) == 1 && len(ep.Vertex.Key) == 1 && ep.Refs[0] == ep.Vertex.Key[0]
}

// hasLabel reports whether t carries label l.
func (t *ElementTable) hasLabel(l string) bool {
	for _, x := range t.Labels {
		if x == l {
			return true
		}
	}
	return false
}

// labelExists reports whether any element table of g carries l.
func (g *Graph) labelExists(l string) bool {
	for _, ts := range [][]*ElementTable{g.Vertices, g.Edges} {
		for _, t := range ts {
			if t.hasLabel(l) {
				return true
			}
		}
	}
	return false
}

// propType is the SQL type of property name in g ("" when no element
// table has it).
func (g *Graph) propType(name string) string {
	for _, ts := range [][]*ElementTable{g.Vertices, g.Edges} {
		for _, t := range ts {
			if ty, ok := t.PropTypes[name]; ok {
				return ty
			}
		}
	}
	return ""
}

// matches evaluates a label expression against t's labels (nil: any).
func (l *Label) matches(t *ElementTable) bool {
	if l == nil {
		return true
	}
	switch l.Op {
	case "name":
		return t.hasLabel(l.Name)
	case "%":
		return len(t.Labels) > 0
	case "!":
		return !l.Args[0].matches(t)
	case "|":
		return l.Args[0].matches(t) || l.Args[1].matches(t)
	case "&":
		return l.Args[0].matches(t) && l.Args[1].matches(t)
	}
	return false
}

// checkLabels reports a label name no element table of g carries.
func (l *Label) checkLabels(g *Graph) error {
	if l == nil {
		return nil
	}
	if l.Op == "name" && !g.labelExists(l.Name) {
		return errAt(CodeUndefinedObject, l.Pos, "label \"%s\" does not exist in property graph \"%s\"", l.Name, g.Name)
	}
	for _, a := range l.Args {
		if err := a.checkLabels(g); err != nil {
			return err
		}
	}
	return nil
}
