package exec

import (
	"fmt"

	"github.com/pggraph/pggraph/internal/sqlparse"
)

// Parsing a large statement (an IN list of a million literals, a huge
// multi-row VALUES) holds tens of bytes per byte of text until the tree
// is built; sqlparse charges that to the server-wide statement account
// while it parses, so it counts with the running statements' memory and
// fails with 53200 when the account has no room (docs/operations.md,
// "Memory").
func init() { sqlparse.SetMemoryGate(reserveParse) }

func reserveParse(n int64) (func(), error) {
	m := &memBudget{shared: &serverBudget}
	if err := m.reserve(n); err != nil {
		m.settle()
		if e, ok := err.(*Error); ok {
			e.Detail = fmt.Sprintf("Parsing the statement needs about %d bytes; %s", n, e.Detail)
		}
		return nil, err
	}
	return m.settle, nil
}
