package planner

import (
	"fmt"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// CREATE TABLE … AS and SELECT … INTO create a table from a query's
// result columns and fill it with the query's rows in the same pending
// state, so an autocommit statement publishes both as one graph commit
// (and a failure publishes neither). The table is planned as the CREATE
// TABLE PostgreSQL would have run (same privileges, options, name
// checks), the rows are inserted as INSERT … SELECT would insert them.
// The order of failures is PostgreSQL's: the query is bound first
// (unknown relations, type errors), then the table is created (42P07),
// then the query runs (division by zero).

// ctasOf returns the CREATE TABLE … AS statement a tree is, turning
// SELECT … INTO into one (nil for any other statement).
func ctasOf(n *sqlparse.Node) *sqlparse.CreateTableAsStmt {
	if c := n.GetCreateTableAsStmt(); c != nil {
		return c
	}
	sel := intoSelect(n.GetSelectStmt())
	if sel == nil {
		return nil
	}
	into := sel.IntoClause
	q := proto.Clone(n.GetSelectStmt()).(*sqlparse.SelectStmt)
	intoSelect(q).IntoClause = nil
	return &sqlparse.CreateTableAsStmt{
		Query:   &sqlparse.Node{Node: &sqlparse.Node_SelectStmt{SelectStmt: q}},
		Into:    into,
		Objtype: sqlparse.ObjectType_OBJECT_TABLE,
	}
}

// intoSelect is the SELECT of a statement that holds its INTO clause:
// the statement, or the first SELECT of a set operation (nil: none).
func intoSelect(sel *sqlparse.SelectStmt) *sqlparse.SelectStmt {
	for sel != nil {
		if sel.IntoClause != nil {
			return sel
		}
		if sel.Op == sqlparse.SetOperation_SETOP_NONE {
			return nil
		}
		sel = sel.Larg
	}
	return nil
}

// isSelectInto reports SELECT … INTO (which PostgreSQL tags SELECT n).
func isSelectInto(n *sqlparse.Node) bool { return intoSelect(n.GetSelectStmt()) != nil }

// intoKeywords may stand between INTO and the table's name.
var intoKeywords = map[pg_query.Token]bool{pg_query.Token_TEMPORARY: true, pg_query.Token_TEMP: true, pg_query.Token_UNLOGGED: true,
	pg_query.Token_TABLE: true, pg_query.Token_LOCAL: true, pg_query.Token_GLOBAL: true}

// ctasQueryText is the statement's text with everything but the query
// blanked (each character a space), so positions in errors are the
// statement's: CREATE TABLE … AS up to the first AS outside
// parentheses and a trailing WITH [NO] DATA, or SELECT … INTO's INTO
// clause. ok is false when the text could not be scanned.
func ctasQueryText(sql string, selectInto bool) (string, bool) {
	sc, err := pg_query.Scan(sql)
	if err != nil {
		return "", false
	}
	toks := sc.Tokens
	depth := 0
	from, to := -1, -1 // the byte range to blank
	for i, t := range toks {
		switch t.Token {
		case pg_query.Token_ASCII_40:
			depth++
		case pg_query.Token_ASCII_41:
			depth--
		}
		if depth != 0 {
			continue
		}
		if !selectInto && t.Token == pg_query.Token_AS {
			from, to = 0, int(t.End)
			break
		}
		if selectInto && t.Token == pg_query.Token_INTO {
			j := i + 1
			for j < len(toks) && intoKeywords[toks[j].Token] {
				j++
			}
			for j < len(toks) {
				j++ // a name part
				if j < len(toks) && toks[j].Token == pg_query.Token_ASCII_46 {
					j++
					continue
				}
				break
			}
			from, to = int(t.Start), int(toks[j-1].End)
			break
		}
	}
	if from < 0 || to > len(sql) {
		return "", false
	}
	end := len(sql)
	if n := len(toks); !selectInto && n >= 2 && toks[n-1].Token == pg_query.Token_DATA_P && toks[n-2].Token == pg_query.Token_WITH {
		end = int(toks[n-2].Start)
	} else if n >= 3 && !selectInto && toks[n-1].Token == pg_query.Token_DATA_P && toks[n-2].Token == pg_query.Token_NO && toks[n-3].Token == pg_query.Token_WITH {
		end = int(toks[n-3].Start)
	}
	blank := func(s string) string { return strings.Repeat(" ", utf8.RuneCountInString(s)) }
	return sql[:from] + blank(sql[from:to]) + sql[to:end], true
}

// createTableAs runs CREATE TABLE … AS / SELECT … INTO.
func (w *writer) createTableAs(c *sqlparse.CreateTableAsStmt, selectInto bool) (*writeOut, error) {
	if c.Objtype == sqlparse.ObjectType_OBJECT_MATVIEW {
		return nil, notSupported("CREATE MATERIALIZED VIEW")
	}
	into := c.Into
	if into == nil || into.Rel == nil {
		return nil, wire.Errorf(wire.CodeSyntaxError, "CREATE TABLE AS without a target")
	}
	if c.Query.GetExecuteStmt() != nil {
		return nil, notSupported("CREATE TABLE … AS EXECUTE")
	}
	if c.Query.GetSelectStmt() == nil {
		return nil, notSupported("CREATE TABLE … AS with this query form")
	}
	if into.ViewQuery != nil {
		return nil, notSupported("CREATE MATERIALIZED VIEW")
	}
	rv := into.Rel
	if c.IfNotExists && (rv.Schemaname == "" || rv.Schemaname == "public") {
		if _, ok := w.v.base.tables[rv.Relname]; ok && rv.Relpersistence != "t" {
			if w.s.info.Notice != nil && !w.describe {
				w.s.info.Notice(&wire.Error{Severity: "NOTICE", Code: pgerr.DuplicateTable, Message: fmt.Sprintf("relation \"%s\" already exists, skipping", rv.Relname)})
			}
			return &writeOut{tag: "CREATE TABLE AS"}, nil
		}
	}
	if sel := c.Query.GetSelectStmt(); intoSelect(sel) != nil {
		return nil, positioned(wire.Errorf(wire.CodeSyntaxError, "SELECT ... INTO is not allowed here"), w.sql, intoSelect(sel).IntoClause.Rel.GetLocation())
	}
	sql, ok := ctasQueryText(w.sql, selectInto)
	if !ok {
		var err error
		if sql, err = deparseStmt(c.Query); err != nil {
			return nil, err
		}
	}
	// bind the query: its result columns are the table's
	pc, err := w.s.privileges(w.ctx)
	if err != nil {
		return nil, err
	}
	eng := &exec.Engine{Catalog: w.v, MemoryLimit: w.s.memLimit}
	prep, err := eng.PrepareFor(w.s.execSession(), sql, w.declared)
	if err != nil {
		return nil, err
	}
	if err := pc.checkReads(prep.Relations(), 0, false); err != nil {
		return nil, err
	}
	// CREATE on the schema, unpositioned as PostgreSQL reports it for
	// CREATE TABLE AS (schema_privileges.go)
	if err := w.needCreate(pc, rv.Schemaname); err != nil {
		return nil, err
	}
	// USAGE on the domains of the result's columns, before the table's
	// own checks (type_privileges.go)
	if err := w.typeUsageCheck(pc, nil, w.resultDomainColumns(plainColumns(c.Query.GetSelectStmt(), prep.Columns))...); err != nil {
		return nil, err
	}
	create, err := ctasCreateStmt(into, c.IfNotExists, prep.Columns)
	if err != nil {
		return nil, err
	}
	if _, err := w.ddl(create); err != nil {
		return nil, err
	}
	if into.SkipData {
		return &writeOut{tag: "CREATE TABLE AS"}, nil
	}
	// the rows: INSERT INTO the new table SELECT the query (its reads
	// were checked above; the owner may insert into its own table)
	target := proto.Clone(rv).(*sqlparse.RangeVar)
	target.Relpersistence = "p"
	target.Alias = nil
	out, err := w.insert(&sqlparse.InsertStmt{Relation: target, SelectStmt: c.Query})
	if err != nil {
		return nil, err
	}
	n := strings.TrimPrefix(out.tag, "INSERT 0 ")
	return &writeOut{tag: "SELECT " + n}, nil
}

// ctasCreateStmt is the CREATE TABLE statement for a query's result
// columns: the column name list overrides the leading names, the types
// are the columns' (an unknown-typed literal becomes text, as
// PostgreSQL resolves it), and the INTO clause's relation, options,
// ON COMMIT and access method are kept.
func ctasCreateStmt(into *sqlparse.IntoClause, ifNotExists bool, cols []exec.Column) (*sqlparse.Node, error) {
	if len(into.ColNames) > len(cols) {
		return nil, wire.Errorf(wire.CodeSyntaxError, "too many column names were specified")
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE t (")
	seen := map[string]bool{}
	for i, c := range cols {
		name := c.Name
		if i < len(into.ColNames) {
			name = into.ColNames[i].GetString_().GetSval()
		}
		if seen[name] {
			return nil, wire.Errorf(pgerr.DuplicateColumn, "column \"%s\" specified more than once", name)
		}
		seen[name] = true
		oid := c.TypeOID
		switch oid {
		case exec.OIDUnknown:
			oid = exec.OIDText
		case exec.OIDRecord:
			return nil, wire.Errorf(pgerr.InvalidTableDefinition, "column \"%s\" has pseudo-type record", name)
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", quoteIdent(name), exec.FormatType(oid, c.TypeMod))
	}
	b.WriteString(")")
	tree, err := sqlparse.Parse(b.String())
	if err != nil || len(tree.Stmts) != 1 {
		return nil, notSupported("CREATE TABLE AS with these result column types")
	}
	n := tree.Stmts[0].Stmt
	cs := n.GetCreateStmt()
	cs.Relation = into.Rel
	cs.Options = into.Options
	cs.Oncommit = into.OnCommit
	cs.Tablespacename = into.TableSpaceName
	cs.AccessMethod = into.AccessMethod
	cs.IfNotExists = ifNotExists
	return n, nil
}

// plainColumns are the result columns of sel that are a column as it is
// read (a column reference or a star's), the only ones whose domain type
// PostgreSQL's result keeps through a table's column: id::int is an
// integer even where the engine still names the column it came from.
func plainColumns(sel *sqlparse.SelectStmt, cols []exec.Column) []exec.Column {
	if sel == nil || len(sel.TargetList) == 0 {
		return nil
	}
	var out []exec.Column
	for i, t := range sel.TargetList {
		cr := t.GetResTarget().GetVal().GetColumnRef()
		if cr != nil && len(cr.Fields) > 0 && cr.Fields[len(cr.Fields)-1].GetAStar() != nil {
			return cols // a star's columns and the others: all of them, as read
		}
		if cr != nil && i < len(cols) {
			out = append(out, cols[i])
		}
	}
	return out
}
