package sqlparse

import (
	"strings"
	"sync"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// parseVersion is the parse-tree version Parse stamps on its trees (what
// the deparser expects).
var parseVersion = sync.OnceValue(func() int32 {
	t, err := pg_query.Parse("SELECT 1")
	if err != nil {
		return 0
	}
	return t.Version
})

// Deparse prints one statement tree back as SQL text with PostgreSQL's
// own deparser (libpg_query), without the trailing semicolon. The text
// parses back to an equivalent tree.
func Deparse(stmt *Node) (string, error) {
	s, err := pg_query.Deparse(&pg_query.ParseResult{Version: parseVersion(), Stmts: []*pg_query.RawStmt{{Stmt: stmt}}})
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSpace(s), ";"), nil
}
