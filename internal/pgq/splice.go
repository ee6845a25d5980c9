package pgq

import (
	"strings"
)

// PlaceholderFunc is the set-returning function a GRAPH_TABLE clause is
// replaced by before the PostgreSQL 17 grammar (which has no GRAPH_TABLE)
// parses the statement: pg_catalog.pggraph_graph_table('<clause text>').
// The binder expands a call of it in FROM into the clause's query
// (exec/graph_table.go), so the clause may appear wherever a table
// function may: joins, subqueries, CTEs, views, COPY (query) TO.
const PlaceholderFunc = "pggraph_graph_table"

// Splice replaces every GRAPH_TABLE ( graph MATCH … ) in sql by a call of
// PlaceholderFunc whose argument is the clause's text, after checking the
// clause's syntax. Text without such a clause is returned as is. A
// clause that does not parse is a *Error with Pos a byte offset in sql.
func Splice(sql string) (string, error) {
	clause, ddl := containsFold(sql, "graph_table"), containsFold(sql, "property")
	if !clause && !ddl {
		return sql, nil
	}
	toks, le := lex(sql)
	if le != nil {
		return sql, nil // the SQL parser reports the unterminated literal
	}
	if ddl {
		if err := refuseGraphDDL(toks); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(toks); i++ {
		if !isClauseStart(toks, i) {
			continue
		}
		j, ok := matchingParen(toks, i+1)
		if !ok {
			return "", errAt(CodeSyntaxError, len(sql), "syntax error at end of input")
		}
		if _, err := parseTokens(sql, toks[i+2:j], toks[j].start); err != nil {
			return "", err
		}
		b.WriteString(sql[last:toks[i].start])
		b.WriteString("pg_catalog.")
		b.WriteString(PlaceholderFunc)
		b.WriteString("(")
		b.WriteString(quoteLiteral(sql[toks[i+1].end:toks[j].start]))
		b.WriteString(")")
		last = toks[j].end
		i = j
	}
	if last == 0 {
		return sql, nil
	}
	b.WriteString(sql[last:])
	return b.String(), nil
}

// refuseGraphDDL answers the property graph DDL statements (CREATE [OR
// REPLACE] / ALTER / DROP PROPERTY GRAPH) with 0A000 naming them: every
// branch has its implicit graph, and graphs as catalog objects are not
// built yet (docs/sql.md).
func refuseGraphDDL(toks []token) error {
	start := true
	for i, t := range toks {
		if t.is(";") {
			start = true
			continue
		}
		if !start {
			continue
		}
		start = false
		j := i + 1
		if !t.isWord("create") && !t.isWord("alter") && !t.isWord("drop") {
			continue
		}
		verb := strings.ToUpper(t.val)
		if t.isWord("create") && j+1 < len(toks) && toks[j].isWord("or") && toks[j+1].isWord("replace") {
			verb, j = "CREATE OR REPLACE", j+2
		}
		if j+1 < len(toks) && toks[j].isWord("property") && toks[j+1].isWord("graph") {
			return errAt(CodeFeature, t.start, "%s PROPERTY GRAPH is not supported", verb)
		}
	}
	return nil
}

// isClauseStart reports whether toks[i] starts GRAPH_TABLE ( name [. name] MATCH.
func isClauseStart(toks []token, i int) bool {
	at := func(k int) token {
		if i+k < len(toks) {
			return toks[i+k]
		}
		return token{kind: tPunct}
	}
	isName := func(t token) bool { return t.kind == tIdent || t.kind == tQIdent }
	if !at(0).isWord("graph_table") || !at(1).is("(") || !isName(at(2)) {
		return false
	}
	return at(3).isWord("match") || at(3).is(".") && isName(at(4)) && at(5).isWord("match")
}

// matchingParen finds the ")" closing the "(" at toks[open].
func matchingParen(toks []token, open int) (int, bool) {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch {
		case toks[j].is("("):
			depth++
		case toks[j].is(")"):
			depth--
			if depth == 0 {
				return j, true
			}
		}
	}
	return 0, false
}

func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

func containsFold(s, sub string) bool {
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		if strings.EqualFold(s[i:i+n], sub) {
			return true
		}
	}
	return false
}
