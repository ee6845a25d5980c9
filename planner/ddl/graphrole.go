package ddl

import (
	"fmt"

	"github.com/pggraph/pggraph/graph"
)

// graphRole sets and validates the graph kind: explicit graph.kind, else
// node when the table has a primary key, else a plain relation.
func (b *tableBuilder) graphRole() error {
	g := &b.meta.Graph
	if !g.Declared {
		g.Kind = graph.RelationTable
		if b.meta.PrimaryKey != nil {
			g.Kind = graph.NodeTable
		}
	}
	if g.Kind != graph.EdgeTable {
		switch {
		case g.Source != "" || g.Target != "":
			return errorf(CodeInvalidParameterValue, "graph.source and graph.target apply to edge tables only").WithHint("Add graph.kind = edge to the WITH clause.")
		case g.MaxOut != nil || g.MinOut != nil:
			return errorf(CodeInvalidParameterValue, "graph.max_out and graph.min_out apply to edge tables only").WithHint("Add graph.kind = edge to the WITH clause.")
		case g.Kind == graph.NodeTable && b.meta.PrimaryKey == nil:
			return errorf(CodeInvalidTableDefinition, "node table \"%s\" must have a primary key", b.name)
		}
		return nil
	}
	if g.Source == "" {
		g.Source = "src"
	}
	if g.Target == "" {
		g.Target = "dst"
	}
	if g.Source == g.Target {
		return errorf(CodeInvalidTableDefinition, "edge table \"%s\": graph.source and graph.target must be different columns", b.name)
	}
	if g.MaxOut != nil && g.MinOut != nil && *g.MinOut > *g.MaxOut {
		return errorf(CodeInvalidParameterValue, "graph.min_out (%d) must not exceed graph.max_out (%d)", *g.MinOut, *g.MaxOut)
	}
	for _, end := range []string{g.Source, g.Target} {
		c := b.col(end)
		if c == nil {
			return errorf(CodeUndefinedColumn, "edge endpoint column \"%s\" does not exist in table \"%s\"", end, b.name).
				WithHint("Name the endpoint columns src and dst, or set graph.source / graph.target.")
		}
		if err := b.pc.checkEndpoint(b.name, b.meta, end); err != nil {
			return err
		}
		// An edge without an endpoint is meaningless: endpoints are NOT NULL.
		c.notNull = true
	}
	return nil
}

// checkEndpoint verifies that an edge's endpoint column references the
// primary key of a node table.
func (pc *planCtx) checkEndpoint(table string, m TableMeta, end string) error {
	for _, fk := range m.ForeignKeys {
		if len(fk.Columns) != 1 || fk.Columns[0] != end {
			continue
		}
		var refMeta TableMeta
		if fk.RefTable == table {
			refMeta = m
		} else {
			_, rm, ok, err := pc.v.table(fk.RefTable)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			refMeta = rm
		}
		if refMeta.Graph.Kind == graph.NodeTable && refMeta.PrimaryKey != nil &&
			len(refMeta.PrimaryKey.Columns) == 1 && refMeta.PrimaryKey.Columns[0] == fk.RefColumns[0] {
			return nil
		}
	}
	return errorf(CodeInvalidTableDefinition, "edge endpoint \"%s\" of table \"%s\" must reference the primary key of a node table", end, table).
		WithHint(fmt.Sprintf("Declare %s … REFERENCES node_table (id).", quoteIdent(end)))
}
