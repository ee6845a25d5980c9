package exec

// SQL views in the system catalogs: pg_get_viewdef, the definition
// columns of pg_views and information_schema.views, pg_rewrite's _RETURN
// rule of each view, pg_depend rows for what a view reads, and pg_class
// columns as PostgreSQL fills them for views. The generic catalog code
// (syscat.go, syscat_depend.go) calls the hooks here.

// oidPgRewriteRel is pg_rewrite's OID (pg_depend.classid of view rules).
const oidPgRewriteRel = 2618

// rewriteOID is the OID of a view's _RETURN rule, in a range of its own
// (apart from row types 0x4000_0000+, constraints and defaults).
func rewriteOID(view uint32) uint32 { return 0x2000_0000 + view }

// sqlViews lists the SQL views of the catalog.
func (c *catalogSet) sqlViews() []*TableDef {
	var out []*TableDef
	for _, t := range c.userTables() {
		if t.View != nil {
			out = append(out, t)
		}
	}
	return out
}

// viewDefinitionOf is pg_views.definition of a relation (nil unless it is
// a SQL view: the generated graph.* views have no SQL text).
func viewDefinitionOf(t *TableDef) any {
	if s, ok := viewDefinition(t, false); ok {
		return s
	}
	return nil
}

// viewTableType is information_schema.tables' table_type and
// is_insertable_into of a relation.
func viewTableType(t *TableDef) (string, string) {
	insertable := "YES"
	if relkindOf(t) == "v" {
		insertable = "NO"
	}
	// PostgreSQL names every relation of the session's temporary schema
	// LOCAL TEMPORARY, a temporary view too
	if relPersistence(t.Schema) == "t" {
		return "LOCAL TEMPORARY", insertable
	}
	if relkindOf(t) == "v" {
		return "VIEW", insertable
	}
	return "BASE TABLE", "YES"
}

// viewColumnUpdatable is information_schema.columns.is_updatable: a
// view's columns are not (views are read-only here).
func viewColumnUpdatable(t *TableDef) string {
	if relkindOf(t) == "v" {
		return "NO"
	}
	return "YES"
}

// viewRewriteRows are pg_rewrite's rows: each SQL view's _RETURN rule
// (ev_action would be PostgreSQL's parse tree; pggraph keeps SQL text, so
// it is NULL).
func (c *catalogSet) viewRewriteRows() [][]any {
	var rows [][]any
	for _, v := range c.sqlViews() {
		rows = append(rows, []any{rewriteOID(v.OID), "_RETURN", v.OID, "1", "O", true, "<>", nil})
	}
	return rows
}

// viewDependRows are pg_depend's rows of the views' rules: internal on
// the view, normal on each relation the query reads (per referenced
// column, or the whole relation when it references none).
func (c *catalogSet) viewDependRows() [][]any {
	var rows [][]any
	dep := func(objid uint32, refobj uint32, refsub int, deptype string) {
		rows = append(rows, []any{uint32(oidPgRewriteRel), objid, 0, uint32(oidPgClassRel), refobj, refsub, deptype})
	}
	for _, v := range c.sqlViews() {
		rule := rewriteOID(v.OID)
		dep(rule, v.OID, 0, "i")
		dep(rule, v.OID, 0, "n")
		for _, d := range v.View.Depends {
			rt := c.table(d.Schema, d.Name)
			if rt == nil {
				continue
			}
			if len(d.Columns) == 0 {
				dep(rule, rt.OID, 0, "n")
			}
			for _, col := range d.Columns {
				for i, rc := range rt.Columns {
					if rc.Name == col {
						dep(rule, rt.OID, i+1, "n")
					}
				}
			}
		}
	}
	return rows
}

// infoSchemaViewRows are information_schema.views' rows. Views here are
// read-only: not updatable, no triggers, CHECK OPTION NONE.
func (c *catalogSet) infoSchemaViewRows() [][]any {
	var rows [][]any
	for _, v := range c.sqlViews() {
		rows = append(rows, []any{c.database(), v.Schema, v.RelName(), viewDefinitionOf(v), "NONE", "NO", "NO", "NO", "NO", "NO"})
	}
	return rows
}

func init() {
	// pg_get_viewdef(view [, pretty]): the view's definition text, NULL
	// for other relations; a name is resolved as regclass (42P01).
	defCustom("pg_get_viewdef", func(b *binder, args []Expr) (Expr, error) {
		if len(args) < 1 || len(args) > 2 {
			return nil, noFunction("pg_get_viewdef", args)
		}
		rel := args[0]
		var err error
		if t := rel.Type(); t.OID == OIDText || t.OID == OIDUnknown || t.OID == OIDVarchar {
			if rel, err = b.coerce(rel, TText, castImplicit, ""); err != nil {
				return nil, err
			}
			if rel, err = b.regCast(rel, TRegclass); err != nil {
				return nil, err
			}
		}
		if rel, err = b.coerce(rel, TOid, castImplicit, ""); err != nil {
			return nil, noFunction("pg_get_viewdef", args)
		}
		all := []Expr{rel}
		if len(args) == 2 {
			pr, err := b.coerce(args[1], TBool, castImplicit, "")
			if err != nil {
				return nil, noFunction("pg_get_viewdef", args)
			}
			all = append(all, pr)
		}
		cs := b.cat
		return &opExpr{name: "pg_get_viewdef", t: TText, args: all, strict: true, k: func(_ *evalCtx, x []*Vec, out *Vec, sel []int32) error {
			views := map[int64]*TableDef{}
			for _, v := range cs.sqlViews() {
				views[int64(v.OID)] = v
			}
			for _, i := range sel {
				pretty := len(x) == 2 && x[1].B[i]
				if s, ok := viewDefinition(views[x[0].I[i]], pretty); ok {
					out.S[i] = s
				} else {
					out.SetNull(int(i))
				}
			}
			return nil
		}}, nil
	})
}
