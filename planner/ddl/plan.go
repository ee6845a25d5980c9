package ddl

import (
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Planner turns DDL parse trees into changes. The zero value is ready to
// use; NewKey overrides how sequence allocator keys are made (tests make
// them deterministic).
type Planner struct {
	// NewKey returns a fresh, globally unique sequence key.
	NewKey func() string
}

// Plan plans one DDL statement against cat with the default Planner.
func Plan(stmt *q.Node, cat Catalog) ([]Change, error) { return Planner{}.Plan(stmt, cat) }

// planCtx is one Plan call.
type planCtx struct {
	p Planner
	v *view
}

func (pc *planCtx) newKey() string {
	if pc.p.NewKey != nil {
		return pc.p.NewKey()
	}
	return ulid.MustNew(ulid.Now(), rand.Reader).String()
}

// Plan plans one DDL statement against cat.
func (p Planner) Plan(stmt *q.Node, cat Catalog) ([]Change, error) {
	if stmt == nil {
		return nil, errorf(CodeSyntaxError, "empty statement")
	}
	pc := &planCtx{p: p, v: newView(cat)}
	switch n := stmt.Node.(type) {
	case *q.Node_CreateStmt:
		return pc.createTable(n.CreateStmt)
	}
	return nil, errorf(CodeFeatureNotSupported, "%s is not supported", statementName(stmt))
}

// statementName is a human name of a statement kind ("ALTER DOMAIN").
func statementName(n *q.Node) string {
	s := strings.TrimSuffix(nodeName(n), "Stmt")
	// CamelCase → upper words
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}

func nodeName(n *q.Node) string {
	if n == nil || n.Node == nil {
		return "statement"
	}
	s := fmt.Sprintf("%T", n.Node)
	return s[strings.LastIndex(s, "_")+1:]
}
