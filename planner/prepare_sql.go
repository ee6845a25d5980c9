package planner

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// SQL-level PREPARE name [(types)] AS statement and EXECUTE name [(args)]:
// the session keeps the statement's text and parameter types; EXECUTE
// runs the text with each $n replaced by its argument cast to the
// parameter's type (declared, or inferred by describing the statement as
// PostgreSQL infers it), so the statement binds and runs as a query of
// its own. DEALLOCATE [ALL] and DISCARD ALL drop them (DeallocateSQL);
// pg_prepared_statements does not list them.

// sqlPrepared is one statement of PREPARE.
type sqlPrepared struct {
	sql   string   // the statement after AS
	types []string // the parameter types, as SQL type names
}

// isSQLPrepare reports PREPARE and EXECUTE statements.
func isSQLPrepare(n *sqlparse.Node) bool {
	return n.GetPrepareStmt() != nil || n.GetExecuteStmt() != nil
}

// executeSQLPrepare runs PREPARE or EXECUTE.
func (s *session) executeSQLPrepare(ctx context.Context, st *wire.Statement, p *plan) (wire.Result, error) {
	if ps := p.node.GetPrepareStmt(); ps != nil {
		return s.sqlPrepare(ctx, st, ps)
	}
	return s.sqlExecute(ctx, p.node.GetExecuteStmt())
}

func (s *session) sqlPrepare(ctx context.Context, st *wire.Statement, ps *sqlparse.PrepareStmt) (wire.Result, error) {
	if _, ok := s.sqlStmts[ps.Name]; ok {
		return nil, wire.Errorf(pgerr.DuplicatePreparedStatement, "prepared statement \"%s\" already exists", ps.Name)
	}
	body, at, ok := afterTopLevel(st.SQL, pg_query.Token_AS)
	if !ok {
		return nil, wire.Errorf(wire.CodeSyntaxError, "syntax error in PREPARE")
	}
	inner, err := wire.ClassifyStatement(body)
	if err != nil {
		return nil, err
	}
	if inner.Kind != wire.KindQuery {
		return nil, notSupported("PREPARE of this statement")
	}
	sp := &sqlPrepared{sql: body}
	declared := make([]uint32, len(ps.Argtypes))
	for i, tn := range ps.Argtypes {
		t, err := deparseTypeName(tn.GetTypeName())
		if err != nil {
			return nil, err
		}
		sp.types = append(sp.types, t)
		oid, err := s.typeOID(ctx, t)
		if err != nil {
			if we, ok := err.(*wire.Error); ok {
				err = positioned(we, st.SQL, tn.GetTypeName().GetLocation())
			}
			return nil, err
		}
		declared[i] = oid
	}
	// describing binds the statement now (its errors are PREPARE's) and
	// infers the types of the parameters not declared
	d, err := s.Describe(ctx, inner, declared)
	if err != nil {
		if we, ok := err.(*wire.Error); ok && we.Position > 0 {
			// positions count from the start of PREPARE
			err = we.WithPosition(we.Position + int32(utf8.RuneCountInString(st.SQL[:at])))
		}
		return nil, err
	}
	used := paramsUsed(body)
	for i, oid := range d.Params {
		if oid == 0 || i >= len(declared) && !used[i+1] {
			// an undeclared parameter the statement never uses has no type
			return nil, wire.Errorf(pgerr.IndeterminateDatatype, "could not determine data type of parameter $%d", i+1)
		}
	}
	for i := len(sp.types); i < len(d.Params); i++ {
		sp.types = append(sp.types, exec.FormatType(d.Params[i], -1))
	}
	if s.sqlStmts == nil {
		s.sqlStmts = map[string]*sqlPrepared{}
	}
	s.sqlStmts[ps.Name] = sp
	return &rowsResult{tag: "PREPARE"}, nil
}

func (s *session) sqlExecute(ctx context.Context, es *sqlparse.ExecuteStmt) (wire.Result, error) {
	sp, ok := s.sqlStmts[es.Name]
	if !ok {
		return nil, wire.Errorf(pgerr.InvalidSQLStatementName, "prepared statement \"%s\" does not exist", es.Name)
	}
	if len(es.Params) != len(sp.types) {
		e := wire.Errorf(wire.CodeSyntaxError, "wrong number of parameters for prepared statement \"%s\"", es.Name)
		e.Detail = fmt.Sprintf("Expected %d parameters but got %d.", len(sp.types), len(es.Params))
		return nil, e
	}
	args := make([]string, len(es.Params))
	for i, a := range es.Params {
		text, err := deparseExpr(a)
		if err != nil {
			return nil, err
		}
		args[i] = "CAST(" + text + " AS " + sp.types[i] + ")"
	}
	sql, err := substituteParams(sp.sql, args)
	if err != nil {
		return nil, err
	}
	inner, err := wire.ClassifyStatement(sql)
	if err != nil {
		return nil, err
	}
	res, err := s.Execute(ctx, inner, nil)
	if we, ok := err.(*wire.Error); ok && we.Position > 0 {
		// a position in the substituted text is none of EXECUTE's
		err = we.WithPosition(0)
	}
	return res, err
}

// afterTopLevel is the text after the first keyword token kw (AS of
// PREPARE, FOR of DECLARE) outside parentheses, and the byte offset it
// starts at.
func afterTopLevel(sql string, kw pg_query.Token) (string, int, bool) {
	sc, err := pg_query.Scan(sql)
	if err != nil {
		return "", 0, false
	}
	depth := 0
	for _, t := range sc.Tokens {
		switch t.Token {
		case pg_query.Token_ASCII_40:
			depth++
		case pg_query.Token_ASCII_41:
			depth--
		case kw:
			if depth == 0 {
				rest := sql[t.End:]
				body := strings.TrimLeft(rest, " \t\r\n")
				return strings.TrimSpace(body), int(t.End) + len(rest) - len(body), true
			}
		}
	}
	return "", 0, false
}

// substituteParams replaces every $n token of sql by args[n-1].
func substituteParams(sql string, args []string) (string, error) {
	sc, err := pg_query.Scan(sql)
	if err != nil {
		return "", wire.Errorf(wire.CodeSyntaxError, "%v", err)
	}
	var b strings.Builder
	last := 0
	for _, t := range sc.Tokens {
		if t.Token != pg_query.Token_PARAM {
			continue
		}
		var n int
		if _, err := fmt.Sscanf(sql[t.Start+1:t.End], "%d", &n); err != nil || n < 1 || n > len(args) {
			return "", wire.Errorf(pgerr.UndefinedParameter, "there is no parameter %s", sql[t.Start:t.End])
		}
		b.WriteString(sql[last:t.Start])
		b.WriteString("(" + args[n-1] + ")")
		last = int(t.End)
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}

// deparseTypeName prints a type name as SQL.
func deparseTypeName(tn *sqlparse.TypeName) (string, error) {
	cast := &sqlparse.Node{Node: &sqlparse.Node_TypeCast{TypeCast: &sqlparse.TypeCast{
		Arg:      &sqlparse.Node{Node: &sqlparse.Node_AConst{AConst: &sqlparse.A_Const{Isnull: true}}},
		TypeName: tn,
	}}}
	text, err := deparseExpr(cast)
	if err != nil {
		return "", err
	}
	// "(NULL::type)"
	text = strings.TrimSuffix(strings.TrimPrefix(text, "("), ")")
	return strings.TrimPrefix(text, "NULL::"), nil
}

// typeOID resolves a type name as the engine does.
func (s *session) typeOID(ctx context.Context, name string) (uint32, error) {
	_, cat, _, err := s.readCatalog(ctx)
	if err != nil {
		return 0, err
	}
	eng := &exec.Engine{Catalog: cat, MemoryLimit: s.memLimit}
	prep, err := eng.PrepareFor(s.execSession(), "SELECT CAST(NULL AS "+name+")", nil)
	if err != nil {
		return 0, err
	}
	return prep.Columns[0].TypeOID, nil
}

// paramsUsed lists the $n a statement's text names.
func paramsUsed(sql string) map[int]bool {
	used := map[int]bool{}
	sc, err := pg_query.Scan(sql)
	if err != nil {
		return used
	}
	for _, t := range sc.Tokens {
		var n int
		if t.Token == pg_query.Token_PARAM {
			if _, err := fmt.Sscanf(sql[t.Start+1:t.End], "%d", &n); err == nil {
				used[n] = true
			}
		}
	}
	return used
}

// DeallocateSQL implements wire.SQLPreparedStatements.
func (s *session) DeallocateSQL(name string) bool {
	if name == "" {
		clear(s.sqlStmts)
		return true
	}
	if _, ok := s.sqlStmts[name]; !ok {
		return false
	}
	delete(s.sqlStmts, name)
	return true
}
