package ddl

import (
	"strconv"
	"strings"

	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
)

// relName checks a relation name's schema (only public exists) and
// returns the bare name.
func publicRelName(rv *q.RangeVar) (string, error) {
	if rv == nil || rv.Relname == "" {
		return "", errorf(CodeSyntaxError, "missing relation name")
	}
	if rv.Catalogname != "" {
		return "", errorf(CodeFeatureNotSupported, "cross-database references are not implemented: \"%s.%s.%s\"", rv.Catalogname, rv.Schemaname, rv.Relname)
	}
	if rv.Schemaname == "pg_catalog" || rv.Schemaname == "information_schema" {
		return "", errorf(pgerr.InsufficientPrivilege, "permission denied for schema %s", rv.Schemaname)
	}
	if rv.Schemaname != "" && rv.Schemaname != "public" {
		return "", errorf(CodeInvalidSchemaName, "schema \"%s\" does not exist", rv.Schemaname)
	}
	return rv.Relname, nil
}
func (pc *planCtx) createTable(st *q.CreateStmt) ([]Change, error) {
	name, err := pc.createName(st.Relation)
	if err != nil {
		return nil, err
	}
	switch st.Relation.Relpersistence {
	case "t":
		// the session turns a temporary table into one of its
		// pg_temp_N schema before planning (planner/temp_tables.go)
		return nil, notSupported("CREATE TEMPORARY TABLE")
	}
	if len(st.InhRelations) > 0 {
		return nil, notSupported("CREATE TABLE … INHERITS")
	}
	if st.Partspec != nil || st.Partbound != nil {
		return nil, notSupported("partitioned tables")
	}
	if st.OfTypename != nil {
		return nil, notSupported("CREATE TABLE … OF type")
	}
	if st.Oncommit != q.OnCommitAction_ONCOMMIT_NOOP && st.Oncommit != q.OnCommitAction_ON_COMMIT_ACTION_UNDEFINED {
		return nil, notSupported("ON COMMIT")
	}
	if _, ok := pc.v.cat.Table(name); ok {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE TABLE", notes: notes{[]*pgerr.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", pc.shown(name))}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", pc.shown(name))
	}
	relTaken, err := pc.v.relationNames()
	if err != nil {
		return nil, err
	}
	if relTaken[name] {
		if st.IfNotExists {
			return []Change{&NoOp{CommandTag: "CREATE TABLE", notes: notes{[]*pgerr.Error{notice(CodeDuplicateTable, "relation \"%s\" already exists, skipping", pc.shown(name))}}}}, nil
		}
		return nil, errorf(CodeDuplicateTable, "relation \"%s\" already exists", pc.shown(name))
	}
	relTaken[name] = true
	conTaken, err := pc.v.constraintNames()
	if err != nil {
		return nil, err
	}
	b := &tableBuilder{pc: pc, name: name, relTaken: relTaken, conTaken: conTaken, own: map[string]bool{}, creating: true,
		meta: TableMeta{Version: metaVersionTables, Relkind: RelTable}}
	if err := b.options(st.Options); err != nil {
		return nil, err
	}
	var tableCons []*q.Constraint
	var likes []*likeSource
	for _, el := range st.TableElts {
		switch {
		case el.GetColumnDef() != nil:
			if err := b.addColumn(el.GetColumnDef()); err != nil {
				return nil, err
			}
		case el.GetConstraint() != nil:
			tableCons = append(tableCons, el.GetConstraint())
		case el.GetTableLikeClause() != nil:
			l, err := b.addLike(el.GetTableLikeClause()) // like.go
			if err != nil {
				return nil, err
			}
			if l != nil {
				likes = append(likes, l)
			}
		default:
			return nil, errorf(CodeSyntaxError, "unexpected table element")
		}
	}
	for _, c := range st.Constraints {
		if con := c.GetConstraint(); con != nil {
			tableCons = append(tableCons, con)
		}
	}
	for _, con := range tableCons {
		if err := b.addTableConstraint(con); err != nil {
			return nil, err
		}
	}
	for _, l := range likes {
		if err := b.addLikeConstraints(l); err != nil {
			return nil, err
		}
	}
	if len(b.cols) == 0 {
		// PostgreSQL allows zero-column tables; Lance needs a schema.
		return nil, notSupported("a table without columns")
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	for _, l := range likes {
		b.addLikeIndexes(l)
	}
	def, err := b.def()
	if err != nil {
		return nil, err
	}
	return []Change{&CreateTable{Name: name, Kind: b.meta.Graph.Kind, Def: def, Meta: b.meta}}, nil
}

// options reads WITH (…): graph.* options set the graph role, others are
// kept verbatim (storage parameters have no effect here).
func (b *tableBuilder) options(opts []*q.Node) error {
	for _, n := range opts {
		d := n.GetDefElem()
		if d == nil {
			continue
		}
		val := defArgString(d.Arg)
		if ns, name, ok := strings.Cut(d.Defname, "."); ok && d.Defnamespace == "" && ns == "graph" {
			// pg_dump quotes a qualified reloption: WITH ("graph.kind"=edge)
			d = &q.DefElem{Defnamespace: ns, Defname: name, Arg: d.Arg}
		}
		if d.Defnamespace != "graph" {
			key := d.Defname
			if d.Defnamespace != "" {
				key = d.Defnamespace + "." + key
			}
			if b.meta.Options == nil {
				b.meta.Options = map[string]string{}
			}
			b.meta.Options[key] = val
			continue
		}
		switch d.Defname {
		case "kind":
			switch strings.ToLower(val) {
			case "node":
				b.meta.Graph.Kind = graph.NodeTable
				b.meta.Graph.Declared = true
			case "edge":
				b.meta.Graph.Kind = graph.EdgeTable
				b.meta.Graph.Declared = true
			case "relation":
				b.meta.Graph.Kind = graph.RelationTable
				b.meta.Graph.Declared = true
			default:
				return errorf(CodeInvalidParameterValue, "invalid value for graph.kind: \"%s\"", val).WithHint("Valid values are \"node\", \"edge\" and \"relation\".")
			}
		case "source":
			b.meta.Graph.Source = val
		case "target":
			b.meta.Graph.Target = val
		case "max_out", "min_out":
			v, err := strconv.ParseInt(val, 10, 64)
			if err != nil || v < 0 {
				return errorf(CodeInvalidParameterValue, "invalid value for graph.%s: \"%s\"", d.Defname, val).WithHint("A non-negative integer is required.")
			}
			if d.Defname == "max_out" {
				b.meta.Graph.MaxOut = &v
			} else {
				b.meta.Graph.MinOut = &v
			}
		default:
			return errorf(CodeInvalidParameterValue, "unrecognized parameter \"graph.%s\"", d.Defname)
		}
	}
	return nil
}

// defArgString renders an option argument (identifier, string, number).
func defArgString(n *q.Node) string {
	if n == nil {
		return "true"
	}
	switch {
	case n.GetTypeName() != nil:
		s, _ := typeNameParts(n.GetTypeName())
		return s
	case n.GetString_() != nil:
		return n.GetString_().Sval
	case n.GetInteger() != nil:
		return strconv.Itoa(int(n.GetInteger().Ival))
	case n.GetFloat() != nil:
		return n.GetFloat().Fval
	case n.GetBoolean() != nil:
		return strconv.FormatBool(n.GetBoolean().Boolval)
	}
	return ""
}
