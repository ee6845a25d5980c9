package ddl

import (
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Expressions (DEFAULT, CHECK, USING) are stored as SQL text, produced by
// PostgreSQL's own deparser (through pg_query) from the parse tree, so
// the text re-parses to the same tree whatever the client's spelling.

// deparseExpr renders one expression node as SQL text.
func deparseExpr(n *q.Node) (string, error) {
	tree := &pg_query.ParseResult{Version: parserVersion(), Stmts: []*pg_query.RawStmt{{Stmt: &pg_query.Node{Node: &pg_query.Node_SelectStmt{
		SelectStmt: &pg_query.SelectStmt{TargetList: []*pg_query.Node{{Node: &pg_query.Node_ResTarget{ResTarget: &pg_query.ResTarget{Val: n}}}}},
	}}}}}
	s, err := pg_query.Deparse(tree)
	if err != nil {
		return "", errorf(CodeSyntaxError, "cannot store expression: %v", err)
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), ";")
	if !strings.HasPrefix(s, "SELECT ") {
		return "", errorf(CodeSyntaxError, "cannot store expression %q", s)
	}
	return s[len("SELECT "):], nil
}

// parserVersion is the parse-tree version the deparser expects (the
// version Parse stamps on its trees).
var parserVersion = sync.OnceValue(func() int32 {
	t, err := q.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return t.Version
})

// parseExpr parses stored expression text back into a node.
func parseExpr(sql string) (*q.Node, error) {
	tree, err := q.Parse("SELECT " + sql)
	if err != nil {
		return nil, err
	}
	if len(tree.Stmts) != 1 {
		return nil, errorf(CodeSyntaxError, "invalid stored expression %q", sql)
	}
	sel := tree.Stmts[0].Stmt.GetSelectStmt()
	if sel == nil || len(sel.TargetList) != 1 || sel.TargetList[0].GetResTarget() == nil {
		return nil, errorf(CodeSyntaxError, "invalid stored expression %q", sql)
	}
	return sel.TargetList[0].GetResTarget().Val, nil
}

// walk calls fn for every message reachable from m (m included), depth
// first. fn returning false skips the message's children.
func walk(m protoreflect.Message, fn func(protoreflect.Message) bool) {
	if !m.IsValid() || !fn(m) {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind && fd.Kind() != protoreflect.GroupKind {
			return true
		}
		switch {
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walk(l.Get(i).Message(), fn)
			}
		case fd.IsMap():
		default:
			walk(v.Message(), fn)
		}
		return true
	})
}

// columnRefs lists the column names an expression references (last name
// part of each ColumnRef), in first-use order without duplicates.
// Subqueries are refused by the caller separately.
func columnRefs(n *q.Node) []string {
	var out []string
	seen := map[string]bool{}
	walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		cr, ok := m.Interface().(*pg_query.ColumnRef)
		if !ok {
			return true
		}
		if len(cr.Fields) == 0 {
			return false
		}
		if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil && !seen[s.Sval] {
			seen[s.Sval] = true
			out = append(out, s.Sval)
		}
		return false
	})
	return out
}

// hasNode reports whether the expression contains a node for which pred holds.
func hasNode(n *q.Node, pred func(proto.Message) bool) bool {
	found := false
	walk(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if found {
			return false
		}
		if pred(m.Interface()) {
			found = true
			return false
		}
		return true
	})
	return found
}

// isSubqueryOrAgg reports nodes a DEFAULT or CHECK may not contain.
func isSubquery(m proto.Message) bool {
	_, ok := m.(*pg_query.SubLink)
	return ok
}

// renameColumnInExpr rewrites references to column from into to in the
// stored expression text.
func renameColumnInExpr(sql, from, to string) (string, error) {
	n, err := parseExpr(sql)
	if err != nil {
		return "", err
	}
	c := proto.Clone(n).(*q.Node)
	changed := false
	walk(c.ProtoReflect(), func(m protoreflect.Message) bool {
		cr, ok := m.Interface().(*pg_query.ColumnRef)
		if !ok {
			return true
		}
		if len(cr.Fields) > 0 {
			if s := cr.Fields[len(cr.Fields)-1].GetString_(); s != nil && s.Sval == from {
				s.Sval = to
				changed = true
			}
		}
		return false
	})
	if !changed {
		return sql, nil
	}
	return deparseExpr(c)
}

// canonicalNextval rewrites nextval/currval/setval('name' [::regclass])
// calls to nextval('canonical'::regclass) after checking that the
// sequence exists (pending: created by the same statement).
func (pc *planCtx) canonicalNextval(n *q.Node, pending func(string) bool) (*q.Node, error) {
	if !hasNode(n, isSeqCall) {
		return n, nil
	}
	c := proto.Clone(n).(*q.Node)
	var ferr error
	walk(c.ProtoReflect(), func(m protoreflect.Message) bool {
		fc, ok := m.Interface().(*pg_query.FuncCall)
		if !ok || ferr != nil || !isSeqCall(fc) || len(fc.Args) == 0 {
			return ferr == nil
		}
		arg := fc.Args[0]
		if tc := arg.GetTypeCast(); tc != nil {
			arg = tc.Arg
		}
		k := arg.GetAConst()
		if k == nil || k.GetSval() == nil {
			return true // computed argument: resolved at run time
		}
		name, err := ParseRegclass(k.GetSval().Sval)
		if err != nil {
			ferr = err
			return false
		}
		for _, k := range SequenceCandidates(name, pc.searchPath(), pc.tempSchemaName()) {
			if _, ok, err := pc.v.lookupSequence(k); err == nil && (ok || pending(k)) {
				name = k
				break
			}
		}
		if _, ok, err := pc.v.lookupSequence(name); err != nil || (!ok && !pending(name)) {
			if err == nil {
				err = errorf(CodeUndefinedTable, "relation \"%s\" does not exist", name)
			}
			ferr = err
			return false
		}
		fc.Args[0] = &pg_query.Node{Node: &pg_query.Node_TypeCast{TypeCast: &pg_query.TypeCast{
			Arg:      &pg_query.Node{Node: &pg_query.Node_AConst{AConst: &pg_query.A_Const{Val: &pg_query.A_Const_Sval{Sval: &pg_query.String{Sval: regclassText(name)}}}}},
			TypeName: &pg_query.TypeName{Names: []*pg_query.Node{{Node: &pg_query.Node_String_{String_: &pg_query.String{Sval: "regclass"}}}}, Typemod: -1},
		}}}
		return true
	})
	return c, ferr
}

// isSeqCall matches calls of the sequence functions.
func isSeqCall(m proto.Message) bool {
	fc, ok := m.(*pg_query.FuncCall)
	if !ok || len(fc.Funcname) == 0 {
		return false
	}
	switch fc.Funcname[len(fc.Funcname)-1].GetString_().GetSval() {
	case "nextval", "currval", "setval":
		return true
	}
	return false
}
