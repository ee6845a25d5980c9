package planner

import (
	"strings"

	"github.com/pggraph/pggraph/wire"
)

// copyQuery is the query a COPY … TO STDOUT runs: the parenthesized query
// of COPY (query) TO STDOUT, or SELECT of the listed (or all) columns of
// COPY table [(cols)] TO STDOUT. wire frames the rows.
func copyQuery(st *wire.Statement) string {
	if st.Copy.Table == "" {
		return innerParens(st.SQL)
	}
	cols := "*"
	if len(st.Copy.Columns) > 0 {
		q := make([]string, len(st.Copy.Columns))
		for i, c := range st.Copy.Columns {
			q[i] = quoteIdent(c)
		}
		cols = strings.Join(q, ", ")
	}
	parts := strings.Split(st.Copy.Table, ".")
	for i, p := range parts {
		parts[i] = quoteIdent(p)
	}
	return "SELECT " + cols + " FROM " + strings.Join(parts, ".")
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// innerParens returns the text inside the first balanced parentheses of
// sql, skipping quoted strings, identifiers and comments. A malformed text
// yields "" (exec then reports the empty query).
func innerParens(sql string) string {
	depth, start := 0, -1
	for i := 0; i < len(sql); i++ {
		switch c := sql[i]; {
		case c == '\'' || c == '"':
			j := strings.IndexByte(sql[i+1:], c)
			if j < 0 {
				return ""
			}
			i += j + 1 // a doubled quote re-enters the string on the next byte
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return ""
			}
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i:], "*/")
			if j < 0 {
				return ""
			}
			i += j + 1
		case c == '(':
			if depth == 0 {
				start = i + 1
			}
			depth++
		case c == ')':
			depth--
			if depth == 0 && start >= 0 {
				return sql[start:i]
			}
		}
	}
	return ""
}
