package exec

import (
	"google.golang.org/protobuf/reflect/protoreflect"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// checkColumns lists the table columns a CHECK expression reads, in order
// of first appearance (pg_constraint.conkey of a check constraint).
func checkColumns(t *TableDef, expr string) []int {
	tree, err := q.Parse("SELECT " + expr)
	if err != nil || len(tree.Stmts) != 1 {
		return nil
	}
	var out []int
	seen := map[int]bool{}
	walkProto(tree.Stmts[0].Stmt.ProtoReflect(), func(m protoreflect.Message) {
		cr, ok := m.Interface().(*q.ColumnRef)
		if !ok || len(cr.Fields) == 0 {
			return
		}
		name := cr.Fields[len(cr.Fields)-1].GetString_().GetSval()
		for i, c := range t.Columns {
			if c.Name == name && !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	})
	return out
}

// walkProto visits every message of a parse tree, depth first.
func walkProto(m protoreflect.Message, fn func(protoreflect.Message)) {
	fn(m)
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				walkProto(l.Get(i).Message(), fn)
			}
		case fd.IsMap():
		case fd.Message() != nil:
			walkProto(v.Message(), fn)
		}
		return true
	})
}
