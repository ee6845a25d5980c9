package ddl

import (
	"fmt"

	"github.com/pggraph/pggraph/graph"
)

// graphRole sets and validates the graph kind: explicit graph.kind, else
// node when the table has a primary key, else a plain relation.
//
// A table created WITH (graph.kind = edge) whose endpoint columns have no
// REFERENCES yet is a pending edge: a plain relation (endpoints NOT NULL)
// until ALTER TABLE … ADD FOREIGN KEY gives every endpoint its node
// reference, which makes it an edge table. pg_dump writes tables this
// way (foreign keys after the data), so a dump restores edge tables as
// edge tables. An endpoint that references anything but a node table's
// primary key is an error, pending or not.
func (b *tableBuilder) graphRole() error {
	g := &b.meta.Graph
	// CREATE TABLE may leave both endpoints without references (as
	// pg_dump does), never one of them (a mistake); a pending edge
	// gets its references one ALTER TABLE at a time
	wasPending := g.Pending
	if g.Pending {
		g.Kind, g.Pending = graph.EdgeTable, false
	}
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
	pendingOK := wasPending || b.creating && !hasSingleFK(b.meta, g.Source) && !hasSingleFK(b.meta, g.Target)
	pending := false
	for _, end := range []string{g.Source, g.Target} {
		c := b.col(end)
		if c == nil {
			return errorf(CodeUndefinedColumn, "edge endpoint column \"%s\" does not exist in table \"%s\"", end, b.name).
				WithHint("Name the endpoint columns src and dst, or set graph.source / graph.target.")
		}
		if pendingOK && !hasSingleFK(b.meta, end) {
			pending = true
		} else if err := b.pc.checkEndpoint(b.name, b.meta, end); err != nil {
			return err
		}
		// An edge without an endpoint is meaningless: endpoints are NOT NULL.
		c.notNull = true
	}
	if pending {
		g.Kind, g.Pending = graph.RelationTable, true
	}
	return nil
}

// hasSingleFK reports whether column col has a one-column foreign key.
func hasSingleFK(m TableMeta, col string) bool {
	for _, fk := range m.ForeignKeys {
		if len(fk.Columns) == 1 && fk.Columns[0] == col {
			return true
		}
	}
	return false
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
