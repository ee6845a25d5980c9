package planner

import (
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/wire"
)

// Printing parse trees back as SQL (PostgreSQL's own deparser) is for
// text that leaves the planner or is stored: EXPLAIN's and a cursor's
// statement text, CREATE TABLE AS's query, PREPARE's types. DML hands
// exec its queries as parse trees instead (querytree.go). Printing goes
// through pg_query directly because internal/sqlparse only parses.

// deparseExpr prints one expression node.
func deparseExpr(n *sqlparse.Node) (string, error) {
	sel := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(n, 0)}}
	s, err := deparseStmt(&pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}})
	if err != nil {
		return "", err
	}
	return "(" + strings.TrimPrefix(s, "SELECT ") + ")", nil
}

func deparseStmt(n *sqlparse.Node) (string, error) {
	s, err := pg_query.Deparse(&pg_query.ParseResult{Version: parseTreeVersion(), Stmts: []*pg_query.RawStmt{{Stmt: n}}})
	if err != nil {
		return "", wire.Errorf(wire.CodeFeatureNotSupported, "statement form is not supported: %v", err)
	}
	return s, nil
}

// parseExpr parses one SQL expression text into a node.
func parseExpr(sql string) (*sqlparse.Node, error) {
	tree, err := sqlparse.Parse("SELECT " + sql)
	if err != nil {
		return nil, err
	}
	return tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, nil
}

// rangeVars lists every RangeVar in a parse tree (tables a statement may
// read), found by walking the protobuf message reflectively so no node
// kind is missed.
func rangeVars(m protoreflect.ProtoMessage) []*sqlparse.RangeVar {
	var out []*sqlparse.RangeVar
	var walk func(protoreflect.Message)
	walk = func(msg protoreflect.Message) {
		if rv, ok := msg.Interface().(*pg_query.RangeVar); ok {
			out = append(out, rv)
		}
		msg.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			if fd.Kind() != protoreflect.MessageKind {
				return true
			}
			if fd.IsList() {
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			} else if !fd.IsMap() {
				walk(v.Message())
			}
			return true
		})
	}
	if m != nil {
		walk(m.ProtoReflect())
	}
	return out
}

// funcName is a FuncCall's unqualified lower-case name and its schema.
func funcName(fc *sqlparse.FuncCall) (schema, name string) {
	var parts []string
	for _, n := range fc.Funcname {
		parts = append(parts, strings.ToLower(n.GetString_().GetSval()))
	}
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// parseTreeVersion is the parser's tree version (the deparser checks it).
var parseTreeVersion = sync.OnceValue(func() int32 {
	t, err := sqlparse.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return t.Version
})
