package exec

import (
	"slices"

	"google.golang.org/protobuf/proto"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// ViewRename is a rename of a relation, or of one of its columns, that a
// view's stored query must follow.
type ViewRename struct {
	Schema, Relation string // the renamed relation, or the one whose column is renamed
	Column           string // the renamed column; "" renames the relation
	NewName          string
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
			for rv, td := range tr.rels {
				if !is(td) {
					continue
				}
				rv.Relname = r.NewName
				if rv.Alias != nil {
					continue
				}
				if keepAlias {
					rv.Alias = &q.Alias{Aliasname: r.Relation}
					continue
				}
				for cr, c := range tr.cols {
					if c.from == rv && len(cr.Fields) >= 2 && cr.Fields[len(cr.Fields)-2].GetString_().GetSval() == r.Relation {
						cr.Fields[len(cr.Fields)-2] = strNode(r.NewName)
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
		e.Detail = lastErr.Error()
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
		cp.Name = c.r.NewName
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
	out := make([]*TableDef, len(ts))
	for i, t := range ts {
		out[i] = c.apply(t)
	}
	return out
}

// Table implements Catalog.
func (c *renamedCatalog) Table(schema, name string) *TableDef {
	if c.r.Column == "" && (schema == "" || schema == c.r.Schema) {
		switch name {
		case c.r.Relation:
			return nil
		case c.r.NewName:
			return c.apply(c.Catalog.Table(schema, c.r.Relation))
		}
	}
	return c.apply(c.Catalog.Table(schema, name))
}
