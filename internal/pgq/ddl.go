package pgq

import (
	"strings"
)

// Property graph DDL (CREATE [OR REPLACE] / ALTER / DROP PROPERTY GRAPH),
// which the PostgreSQL 17 grammar lacks: Splice checks a statement's
// syntax with ParseGraphDDL and replaces the statement by
// DO LANGUAGE pggraph_property_graph '<statement text>', a statement the
// grammar parses and the DDL planner recognises (planner/ddl/propgraph.go
// plans the text again with ParseGraphDDL).

// DDLLanguage is the DO language name that carries a property graph DDL
// statement's text from Splice to the DDL planner.
const DDLLanguage = "pggraph_property_graph"

// GraphDDL is one parsed property graph statement.
type GraphDDL struct {
	Verb      string // "CREATE", "ALTER" or "DROP"
	OrReplace bool
	IfExists  bool
	Schema    string
	Name      string
	// DROP: every graph named (Schema/Name is the first).
	Drops [][2]string
	// CREATE and ALTER … ADD: the element tables.
	Vertices, Edges []*ElementDef
	// ALTER … DROP VERTEX|EDGE TABLES (aliases).
	DropVertices, DropEdges []string
	// ALTER … ALTER VERTEX|EDGE TABLE alias …
	AlterAlias string
	AlterEdge  bool
	AddLabels  []*LabelDef
	DropLabel  string
	AlterLabel string // ALTER LABEL l ADD/DROP PROPERTIES
	AddProps   *PropsDef
	DropProps  []string
	RenameTo   string
	Cascade    bool
	Text       string
}

// ElementDef is one vertex or edge table definition.
type ElementDef struct {
	Schema, Table string
	Alias         string // the alias (the table name when none is given)
	Key           []string
	// Edges: the source and destination vertex aliases, with the edge's
	// key columns and the vertex's referenced columns (nil: from the
	// edge table's one foreign key to the vertex table).
	Src, Dst       string
	SrcKey, SrcRef []string
	DstKey, DstRef []string
	Labels         []*LabelDef // nil: one label named after the alias, all columns
	Pos            int
}

// LabelDef is one LABEL name [properties] or DEFAULT LABEL [properties].
type LabelDef struct {
	Name    string // "" for DEFAULT LABEL (the element's alias)
	Default bool
	Props   *PropsDef // nil: PROPERTIES ALL COLUMNS
}

// PropsDef is an element table properties clause.
type PropsDef struct {
	All   bool // PROPERTIES ALL COLUMNS
	None  bool // NO PROPERTIES
	Items []PropDef
}

// PropDef is one PROPERTIES item: an expression over the element table's
// columns and its name ("" when the expression is not a lone column and
// no AS was given: an error when planned).
type PropDef struct {
	Expr string
	Name string
	Pos  int
}

// ParseGraphDDL parses one property graph statement (text without the
// trailing semicolon).
func ParseGraphDDL(text string) (*GraphDDL, error) {
	toks, le := lex(text)
	if le != nil {
		return nil, errAt(CodeSyntaxError, le.pos, "%s", le.msg)
	}
	p := &parser{src: text, toks: toks, end: len(text)}
	d, err := p.graphDDL()
	if err != nil {
		return nil, err
	}
	d.Text = text
	return d, nil
}

// isGraphDDLStart reports whether toks[i:] starts CREATE [OR REPLACE] |
// ALTER | DROP PROPERTY GRAPH.
func isGraphDDLStart(toks []token, i int) bool {
	at := func(k int) token {
		if i+k < len(toks) {
			return toks[i+k]
		}
		return token{kind: tPunct}
	}
	j := 1
	switch {
	case at(0).isWord("create"):
		if at(1).isWord("or") && at(2).isWord("replace") {
			j = 3
		}
	case at(0).isWord("alter"), at(0).isWord("drop"):
	default:
		return false
	}
	return at(j).isWord("property") && at(j+1).isWord("graph")
}

func (p *parser) qualifiedName() (string, string, error) {
	n, err := p.name()
	if err != nil {
		return "", "", err
	}
	if p.peek(0).is(".") {
		p.i++
		m, err := p.name()
		if err != nil {
			return "", "", err
		}
		return n, m, nil
	}
	return "", n, nil
}

func (p *parser) word(w string) bool {
	if p.peek(0).isWord(w) {
		p.i++
		return true
	}
	return false
}

func (p *parser) graphDDL() (*GraphDDL, error) {
	d := &GraphDDL{}
	switch {
	case p.word("create"):
		d.Verb = "CREATE"
		if p.word("or") {
			if err := p.expectWord("replace"); err != nil {
				return nil, err
			}
			d.OrReplace = true
		}
	case p.word("alter"):
		d.Verb = "ALTER"
	case p.word("drop"):
		d.Verb = "DROP"
	default:
		return nil, p.syntaxError()
	}
	if err := p.expectWord("property"); err != nil {
		return nil, err
	}
	if err := p.expectWord("graph"); err != nil {
		return nil, err
	}
	if d.Verb != "CREATE" && p.peek(0).isWord("if") {
		p.i++
		if err := p.expectWord("exists"); err != nil {
			return nil, err
		}
		d.IfExists = true
	}
	var err error
	if d.Schema, d.Name, err = p.qualifiedName(); err != nil {
		return nil, err
	}
	switch d.Verb {
	case "CREATE":
		if err := p.elementTables(d, true); err != nil {
			return nil, err
		}
	case "DROP":
		d.Drops = append(d.Drops, [2]string{d.Schema, d.Name})
		for p.peek(0).is(",") {
			p.i++
			s, n, err := p.qualifiedName()
			if err != nil {
				return nil, err
			}
			d.Drops = append(d.Drops, [2]string{s, n})
		}
		p.dropBehavior(d)
	case "ALTER":
		if err := p.alterGraph(d); err != nil {
			return nil, err
		}
	}
	if !p.atEnd() {
		return nil, p.syntaxError()
	}
	return d, nil
}

func (p *parser) dropBehavior(d *GraphDDL) {
	if p.word("cascade") {
		d.Cascade = true
	} else {
		p.word("restrict")
	}
}

// vertexWord reads VERTEX or NODE (true) or EDGE or RELATIONSHIP (false).
func (p *parser) vertexWord() (vertex, ok bool) {
	switch {
	case p.word("vertex"), p.word("node"):
		return true, true
	case p.word("edge"), p.word("relationship"):
		return false, true
	}
	return false, false
}

// elementTables reads [VERTEX TABLES (…)] [EDGE TABLES (…)]; at least
// one unless optional (CREATE may define an empty graph).
func (p *parser) elementTables(d *GraphDDL, optional bool) error {
	seen := 0
	for !p.atEnd() {
		save := p.i
		vertex, ok := p.vertexWord()
		if !ok {
			break
		}
		if !p.word("tables") {
			p.i = save
			break
		}
		if err := p.expectPunct("("); err != nil {
			return err
		}
		for {
			el, err := p.elementDef(!vertex)
			if err != nil {
				return err
			}
			if vertex {
				d.Vertices = append(d.Vertices, el)
			} else {
				d.Edges = append(d.Edges, el)
			}
			if !p.peek(0).is(",") {
				break
			}
			p.i++
		}
		if err := p.expectPunct(")"); err != nil {
			return err
		}
		seen++
	}
	if seen == 0 && !optional {
		return p.syntaxError()
	}
	return nil
}

func (p *parser) columnList() ([]string, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.name()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.peek(0).is(",") {
			break
		}
		p.i++
	}
	return out, p.expectPunct(")")
}

func (p *parser) elementDef(edge bool) (*ElementDef, error) {
	el := &ElementDef{Pos: p.peek(0).start}
	var err error
	if el.Schema, el.Table, err = p.qualifiedName(); err != nil {
		return nil, err
	}
	el.Alias = el.Table
	if p.word("as") {
		if el.Alias, err = p.name(); err != nil {
			return nil, err
		}
	}
	if p.word("key") {
		if el.Key, err = p.columnList(); err != nil {
			return nil, err
		}
	}
	if edge {
		for _, end := range []string{"source", "destination"} {
			if err := p.expectWord(end); err != nil {
				return nil, err
			}
			var key, ref []string
			if p.word("key") {
				if key, err = p.columnList(); err != nil {
					return nil, err
				}
				if err := p.expectWord("references"); err != nil {
					return nil, err
				}
			}
			v, err := p.name()
			if err != nil {
				return nil, err
			}
			if key != nil {
				if ref, err = p.columnList(); err != nil {
					return nil, err
				}
			}
			if end == "source" {
				el.Src, el.SrcKey, el.SrcRef = v, key, ref
			} else {
				el.Dst, el.DstKey, el.DstRef = v, key, ref
			}
		}
	}
	if el.Labels, err = p.labelsAndProperties(); err != nil {
		return nil, err
	}
	return el, nil
}

// labelsAndProperties reads element_table_label_and_properties: a lone
// properties clause (the default label's), or LABEL l / DEFAULT LABEL
// each with an optional properties clause. nil when absent.
func (p *parser) labelsAndProperties() ([]*LabelDef, error) {
	if props, ok, err := p.properties(); err != nil {
		return nil, err
	} else if ok {
		return []*LabelDef{{Default: true, Props: props}}, nil
	}
	var out []*LabelDef
	for {
		l := &LabelDef{}
		switch {
		case p.peek(0).isWord("default") && p.peek(1).isWord("label"):
			p.i += 2
			l.Default = true
		case p.word("label"):
			n, err := p.name()
			if err != nil {
				return nil, err
			}
			l.Name = n
		default:
			return out, nil
		}
		props, _, err := p.properties()
		if err != nil {
			return nil, err
		}
		l.Props = props
		out = append(out, l)
	}
}

// properties reads NO PROPERTIES | PROPERTIES ALL COLUMNS |
// PROPERTIES (expr [AS name], …); ok false when none is there.
func (p *parser) properties() (*PropsDef, bool, error) {
	switch {
	case p.peek(0).isWord("no") && p.peek(1).isWord("properties"):
		p.i += 2
		return &PropsDef{None: true}, true, nil
	case p.peek(0).isWord("properties") && p.peek(1).isWord("all"):
		p.i += 2
		if err := p.expectWord("columns"); err != nil {
			return nil, false, err
		}
		return &PropsDef{All: true}, true, nil
	case p.peek(0).isWord("properties"):
		p.i++
		items, err := p.propItems()
		if err != nil {
			return nil, false, err
		}
		return &PropsDef{Items: items}, true, nil
	}
	return nil, false, nil
}

func (p *parser) propItems() ([]PropDef, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	var out []PropDef
	for {
		pos := p.peek(0).start
		e, err := p.exprUntil(func(t token, depth int) bool {
			return depth == 0 && (t.is(",") || t.isWord("as"))
		})
		if err != nil {
			return nil, err
		}
		it := PropDef{Expr: e.Text(), Pos: pos}
		if p.word("as") {
			if it.Name, err = p.name(); err != nil {
				return nil, err
			}
		} else if len(e.toks) == 1 && isNameTok(e.toks[0]) {
			it.Name = e.toks[0].val
		}
		out = append(out, it)
		if !p.peek(0).is(",") {
			break
		}
		p.i++
	}
	return out, p.expectPunct(")")
}

func (p *parser) alterGraph(d *GraphDDL) error {
	switch {
	case p.word("add"):
		return p.elementTables(d, false)
	case p.word("drop"):
		vertex, ok := p.vertexWord()
		if !ok {
			return p.syntaxError()
		}
		if err := p.expectWord("tables"); err != nil {
			return err
		}
		names, err := p.columnList()
		if err != nil {
			return err
		}
		if vertex {
			d.DropVertices = names
		} else {
			d.DropEdges = names
		}
		p.dropBehavior(d)
		return nil
	case p.word("rename"):
		if err := p.expectWord("to"); err != nil {
			return err
		}
		n, err := p.name()
		d.RenameTo = n
		return err
	case p.word("alter"):
		vertex, ok := p.vertexWord()
		if !ok {
			return p.syntaxError()
		}
		d.AlterEdge = !vertex
		if err := p.expectWord("table"); err != nil {
			return err
		}
		var err error
		if d.AlterAlias, err = p.name(); err != nil {
			return err
		}
		switch {
		case p.peek(0).isWord("add") && p.peek(1).isWord("label"):
			for p.peek(0).isWord("add") && p.peek(1).isWord("label") {
				p.i += 2
				n, err := p.name()
				if err != nil {
					return err
				}
				props, _, err := p.properties()
				if err != nil {
					return err
				}
				d.AddLabels = append(d.AddLabels, &LabelDef{Name: n, Props: props})
			}
			return nil
		case p.peek(0).isWord("drop") && p.peek(1).isWord("label"):
			p.i += 2
			if d.DropLabel, err = p.name(); err != nil {
				return err
			}
			p.dropBehavior(d)
			return nil
		case p.peek(0).isWord("alter") && p.peek(1).isWord("label"):
			p.i += 2
			if d.AlterLabel, err = p.name(); err != nil {
				return err
			}
			switch {
			case p.word("add"):
				if err := p.expectWord("properties"); err != nil {
					return err
				}
				items, err := p.propItems()
				if err != nil {
					return err
				}
				d.AddProps = &PropsDef{Items: items}
				return nil
			case p.word("drop"):
				if err := p.expectWord("properties"); err != nil {
					return err
				}
				if d.DropProps, err = p.columnList(); err != nil {
					return err
				}
				p.dropBehavior(d)
				return nil
			}
		}
		return p.syntaxError()
	case p.peek(0).isWord("owner") || p.peek(0).isWord("set"):
		return errAt(CodeFeature, p.peek(0).start, "ALTER PROPERTY GRAPH … %s is not supported", strings.ToUpper(p.peek(0).val))
	}
	return p.syntaxError()
}

// LoneIdent returns the name an expression consists of when it is one
// identifier (folded when unquoted): a property defined as a plain column.
func LoneIdent(expr string) (string, bool) {
	toks, le := lex(expr)
	if le != nil || len(toks) != 1 || !isNameTok(toks[0]) {
		return "", false
	}
	return toks[0].val, true
}

// RenameIdent renames column from to to in an expression over a table's
// unqualified columns (the identifiers that are no function name,
// qualifier or qualified name), leaving the rest of its text as is.
func RenameIdent(expr, from, to string) string {
	toks, le := lex(expr)
	if le != nil {
		return expr
	}
	var b strings.Builder
	prev := 0
	for i, t := range toks {
		if !isNameTok(t) || t.val != from || i > 0 && toks[i-1].is(".") || i+1 < len(toks) && (toks[i+1].is("(") || toks[i+1].is(".")) {
			continue
		}
		b.WriteString(expr[prev:t.start])
		b.WriteString(quoteIdent(to))
		prev = t.end
	}
	b.WriteString(expr[prev:])
	return b.String()
}

// UsesIdent reports whether an expression over a table's columns reads
// column name (see RenameIdent).
func UsesIdent(expr, name string) bool {
	return RenameIdent(expr, name, name+"\x00") != expr
}
