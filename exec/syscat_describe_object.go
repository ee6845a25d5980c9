package exec

// pg_describe_object(classid, objid, objsubid): an object's description
// in PostgreSQL's words ("table person", "column name of table person",
// "function now()", "constraint person_pkey on table person"), for the
// object kinds the catalogs list. Relations and types outside the search
// path are schema-qualified, as PostgreSQL does. An object that does not
// exist, or of a kind pggraph does not have, answers NULL.

// Catalog relation OIDs pg_describe_object knows besides syscat_depend.go's.
const (
	oidPgProcRel      = 1255
	oidPgLanguageRel  = 2612
	oidPgExtensionRel = 3079
	oidPgAMRel        = 2601
	oidPgCastRel      = 2605
	oidPgOperatorRel  = 2617
	oidPgCollationRel = 3456
)

// describeObject is pg_describe_object; ok is false for NULL.
func (c *catalogSet) describeObject(classid, objid uint32, subid int32) (string, bool) {
	switch classid {
	case oidPgClassRel:
		return c.describeRelation(objid, subid)
	case oidPgProcRel:
		if f, ok := procByOID(objid); ok {
			return "function " + qualifiedName(f.nsp, f.name, f.nsp == "pg_catalog") + "(" + typeSQLList(f.args) + ")", true
		}
	case oidPgTypeRel:
		if _, ok := typeInfos[objid]; ok {
			return "type " + typeSQLName(objid), true
		}
		for _, t := range c.userTables() {
			if hasRowType(t) && rowTypeOID(t.OID) == objid {
				return "type " + c.relationName(t.Schema, t.RelName()), true
			}
		}
	case oidPgNamespaceRel:
		for _, ns := range c.namespaces() {
			if ns.oid == objid {
				return "schema " + ns.name, true
			}
		}
	case oidPgLanguageRel:
		for _, l := range pgLanguageFacts() {
			if l.oid == objid {
				return "language " + l.name, true
			}
		}
	case oidPgExtensionRel:
		if objid == oidPlpgsqlExtension {
			return "extension plpgsql", true
		}
	case oidPgAMRel:
		for _, a := range pgAMFacts() {
			if a.oid == objid {
				return "access method " + a.name, true
			}
		}
	case oidPgCastRel:
		for _, k := range catalogCasts() {
			if k.oid == objid {
				return "cast from " + typeSQLName(k.source) + " to " + typeSQLName(k.target), true
			}
		}
	case oidPgOperatorRel:
		for _, o := range catalogOperators() {
			if o.oid == objid {
				l := "NONE"
				if o.kind == 'b' {
					l = typeSQLName(o.left)
				}
				return "operator " + o.name + "(" + l + "," + typeSQLName(o.right) + ")", true
			}
		}
	case oidPgCollationRel:
		switch objid {
		case 100:
			return "collation default", true
		case 950:
			return `collation "C"`, true
		case 951:
			return `collation "POSIX"`, true
		}
	case oidPgConstraintRel:
		for _, k := range c.constraints() {
			if k.oid != 0 && k.oid == objid {
				return "constraint " + k.name + " on table " + c.relationName(k.table.Schema, k.table.RelName()), true
			}
		}
	case oidPgAttrdefRel:
		for _, t := range c.userTables() {
			for i, col := range t.Columns {
				if col.Default != "" && col.Identity == 0 && attrdefOID(t.OID, i) == objid {
					return "default value for column " + col.Name + " of table " + c.relationName(t.Schema, t.RelName()), true
				}
			}
		}
	}
	return "", false
}

// oidPlpgsqlExtension is the plpgsql extension's pg_extension OID.
const oidPlpgsqlExtension = 13559

// describeRelation describes a pg_class object or one of its columns.
func (c *catalogSet) describeRelation(oid uint32, subid int32) (string, bool) {
	kind, name, cols := "", "", []string(nil)
	for _, t := range c.userTables() {
		if t.OID == oid {
			kind, name = "table", c.relationName(t.Schema, t.RelName())
			if relkindOf(t) == "v" {
				kind = "view"
			}
			for _, col := range t.Columns {
				cols = append(cols, col.Name)
			}
		}
	}
	for _, s := range c.sequences() {
		if s.OID == oid {
			kind, name = "sequence", c.relationName(s.schema(), s.relName())
		}
	}
	for _, k := range c.constraints() {
		if k.hasIndex() && k.index == oid {
			kind, name = "index", c.relationName(k.table.Schema, k.name)
			for i := range k.cols {
				cols = append(cols, k.keyColumn(i).Name)
			}
		}
	}
	for _, r := range providedRelations() {
		if r.rel.oid == oid {
			kind, name = "table", c.relationName(r.schema, r.name)
			if f := pgRelFacts()[r.schema+"."+r.name]; f != nil && f.relkind == 'v' {
				kind = "view"
			}
			for _, col := range sysCols(r.rel.cols) {
				cols = append(cols, col.Name)
			}
		}
	}
	switch {
	case kind == "":
		return "", false
	case subid == 0:
		return kind + " " + name, true
	case subid > 0 && int(subid) <= len(cols):
		return "column " + cols[subid-1] + " of " + kind + " " + name, true
	}
	return "", false
}

// relationName is a relation's name, schema-qualified when its schema is
// not on the search path.
func (c *catalogSet) relationName(schema, name string) string {
	schema = schemaOrPublic(schema)
	return qualifiedName(schema, name, c.searchPathSchemas()[schema])
}

// qualifiedName quotes name and prefixes its schema unless visible.
func qualifiedName(schema, name string, visible bool) string {
	if visible {
		return quoteIdent(name)
	}
	return quoteIdent(schema) + "." + quoteIdent(name)
}

func init() {
	defCustom("pg_describe_object", func(b *binder, args []Expr) (Expr, error) {
		if len(args) != 3 {
			return nil, noFunction("pg_describe_object", args)
		}
		want := []Type{TOid, TOid, TInt4}
		for i := range args {
			var err error
			if args[i], err = b.coerce(args[i], want[i], castImplicit, ""); err != nil {
				return nil, noFunction("pg_describe_object", args)
			}
		}
		cs := b.cat
		return &opExpr{name: "pg_describe_object", t: TText, args: args, strict: true, k: func(_ *evalCtx, a []*Vec, out *Vec, sel []int32) error {
			for _, i := range sel {
				if s, ok := cs.describeObject(uint32(a[0].I[i]), uint32(a[1].I[i]), int32(a[2].I[i])); ok {
					out.S[i] = s
				} else {
					out.SetNull(int(i))
				}
			}
			return nil
		}}, nil
	})
}
