package exec

import (
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// ViewRename is a rename of a relation, or of one of its columns, that a
// view's stored query must follow.
type ViewRename struct {
	Schema, Relation string // the renamed relation (its schema and storage name), or the one whose column is renamed
	Column           string // the renamed column; "" renames the relation
	NewName          string // the new column name, or the relation's new storage name
	// NewSchema is the relation's schema after the rename (ALTER … SET
	// SCHEMA); "" is Schema.
	NewSchema string
}

func (r ViewRename) newSchema() string {
	if r.NewSchema == "" {
		return r.Schema
	}
	return r.NewSchema
}

// bareName is a relation's name without its storage name's schema
// prefix (a created schema's relations are stored as "schema.name").
func bareName(schema, storage string) string {
	if rest, ok := strings.CutPrefix(storage, schema+"."); ok && schema != "public" {
		return rest
	}
	return storage
}

// RenameInView rewrites the stored query of a view (named view) for a
// rename, binding it against cat as it is before the rename: references
// that resolve to the renamed relation or column are renamed, and so are
// column qualifiers that were the relation's implicit alias. The result
// is bound again against cat with the rename applied and must give the
// same columns; when renaming the implicit alias does not bind (another
// entry already has the new name), the entry keeps the old name as an
// explicit alias (FROM t2 t). A column a USING or NATURAL join matches by
// name cannot follow a rename of one side: 0A000.
func RenameInView(cat Catalog, view, query string, cols []ViewColumn, r ViewRename) (*ViewAnalysis, error) {
	renamed := &renamedCatalog{Catalog: cat, r: r}
	attempt := func(keepAlias bool) (string, error) {
		tree, err := q.Parse(query)
		if err != nil || len(tree.Stmts) != 1 {
			return "", errf(CodeInternalError, "view \"%s\" has an unreadable definition", view)
		}
		stmt := proto.Clone(tree.Stmts[0].Stmt).(*q.Node)
		_, tr, err := bindTraced(cat, "", stmt)
		if err != nil {
			return "", err
		}
		is := func(td *TableDef) bool { return td != nil && td.Schema == r.Schema && td.Name == r.Relation }
		if r.Column == "" {
			oldName, newName := bareName(r.Schema, r.Relation), bareName(r.newSchema(), r.NewName)
			for rv, td := range tr.rels {
				if !is(td) {
					continue
				}
				rv.Relname = newName
				if r.newSchema() != r.Schema {
					// moved to another schema: named there
					rv.Schemaname = r.newSchema()
				}
				if rv.Alias != nil || oldName == newName {
					continue
				}
				if keepAlias {
					rv.Alias = &q.Alias{Aliasname: oldName}
					continue
				}
				for cr, c := range tr.cols {
					if c.from == rv && len(cr.Fields) >= 2 && cr.Fields[len(cr.Fields)-2].GetString_().GetSval() == oldName {
						cr.Fields[len(cr.Fields)-2] = strNode(newName)
					}
				}
			}
		} else {
			for _, c := range tr.usings {
				if is(c.base) && c.name == r.Column {
					return "", unsupported("cannot rename column \"%s\" of relation \"%s\": view \"%s\" joins on it by name (USING or NATURAL)", r.Column, r.Relation, view)
				}
			}
			for cr, c := range tr.cols {
				if is(c.base) && c.name == r.Column {
					cr.Fields[len(cr.Fields)-1] = strNode(r.NewName)
				}
			}
		}
		return q.Deparse(stmt)
	}
	var lastErr error
	for _, keepAlias := range []bool{false, true} {
		text, err := attempt(keepAlias)
		if err != nil {
			if Code(err) == CodeFeatureNotSupported {
				return nil, err
			}
			lastErr = err
			continue
		}
		deps, graphs, err := verifyView(renamed, text, cols)
		if err != nil {
			lastErr = err
			continue
		}
		return &ViewAnalysis{Query: text, Columns: cols, Depends: deps, Graphs: graphs}, nil
	}
	e := unsupported("view \"%s\" cannot follow the rename of \"%s\"", view, r.Relation)
	if lastErr != nil {
		e.Detail = pgerr.Message(lastErr)
	}
	return nil, e
}

// renamedCatalog is a catalog as it will be after a rename.
type renamedCatalog struct {
	Catalog
	r ViewRename
}

func (c *renamedCatalog) apply(td *TableDef) *TableDef {
	if td == nil || td.Schema != c.r.Schema || td.Name != c.r.Relation {
		return td
	}
	cp := *td
	if c.r.Column == "" {
		cp.Name, cp.Schema = c.r.NewName, c.r.newSchema()
		return &cp
	}
	cp.Columns = slices.Clone(td.Columns)
	for i := range cp.Columns {
		if cp.Columns[i].Name == c.r.Column {
			cp.Columns[i].Name = c.r.NewName
		}
	}
	return &cp
}

// Tables implements Catalog.
func (c *renamedCatalog) Tables(schema string) []*TableDef {
	ts := c.Catalog.Tables(schema)
	out := make([]*TableDef, 0, len(ts)+1)
	for _, t := range ts {
		if c.moved(t) && c.r.newSchema() != schema {
			continue // now in another schema's list
		}
		out = append(out, c.apply(t))
	}
	if c.r.Column == "" && c.r.newSchema() != c.r.Schema && schema == c.r.newSchema() {
		if t := c.Catalog.Table(c.r.Schema, c.r.Relation); t != nil {
			out = append(out, c.apply(t))
		}
	}
	return out
}

// moved reports the relation a rename (or move) renames.
func (c *renamedCatalog) moved(td *TableDef) bool {
	return td != nil && c.r.Column == "" && td.Schema == c.r.Schema && td.Name == c.r.Relation
}

// Table implements Catalog.
func (c *renamedCatalog) Table(schema, name string) *TableDef {
	if c.r.Column == "" {
		if (schema == "" || schema == c.r.Schema) && name == c.r.Relation {
			return nil
		}
		if (schema == "" || schema == c.r.newSchema()) && name == c.r.NewName {
			return c.apply(c.Catalog.Table(c.r.Schema, c.r.Relation))
		}
	}
	return c.apply(c.Catalog.Table(schema, name))
}
