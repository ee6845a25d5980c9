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
		out, ok, err := spliceGraphDDL(sql, toks)
		if err != nil {
			return "", err
		}
		if ok {
			if !clause {
				return out, nil
			}
			sql = out
			toks, _ = lex(sql) // lexed once already: only literals were added
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

// spliceGraphDDL replaces each property graph statement (CREATE [OR
// REPLACE] / ALTER / DROP PROPERTY GRAPH) by DO LANGUAGE
// pggraph_property_graph '<statement text>' after checking its syntax
// (ddl.go); ok false when sql has none.
func spliceGraphDDL(sql string, toks []token) (string, bool, error) {
	var b strings.Builder
	last, found := 0, false
	start := true
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.is(";") {
			start = true
			continue
		}
		if !start {
			continue
		}
		start = false
		if feature := unsupportedGraphStmt(toks, i); feature != "" {
			return "", false, errAt(CodeFeature, t.start, "%s is not supported", feature)
		}
		if !isGraphDDLStart(toks, i) {
			continue
		}
		j := i
		for j < len(toks) && !toks[j].is(";") {
			j++
		}
		end := len(sql)
		if j < len(toks) {
			end = toks[j].start
		}
		text := strings.TrimSpace(sql[t.start:end])
		if _, err := ParseGraphDDL(text); err != nil {
			if pe, ok := err.(*Error); ok && pe.Pos >= 0 {
				pe.Pos += t.start
			}
			return "", false, err
		}
		b.WriteString(sql[last:t.start])
		b.WriteString("DO LANGUAGE " + DDLLanguage + " ")
		b.WriteString(quoteLiteral(text))
		last, found = end, true
		i = j - 1
	}
	if !found {
		return sql, false, nil
	}
	b.WriteString(sql[last:])
	return b.String(), true, nil
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

// unsupportedGraphStmt names the PostgreSQL 19 statement on property
// graphs that toks[i:] starts and pggraph does not support (COMMENT ON,
// GRANT and REVOKE privileges, SECURITY LABEL ON PROPERTY GRAPH), so it
// answers 0A000 instead of the PostgreSQL 17 grammar's syntax error;
// "" for anything else.
func unsupportedGraphStmt(toks []token, i int) string {
	at := func(k int) token {
		if i+k < len(toks) {
			return toks[i+k]
		}
		return token{kind: tPunct}
	}
	// "ON PROPERTY GRAPH" before the statement ends
	onGraph := func(from int) bool {
		for k := from; i+k+2 < len(toks) && !at(k).is(";"); k++ {
			if at(k).isWord("on") && at(k+1).isWord("property") && at(k+2).isWord("graph") {
				return true
			}
		}
		return false
	}
	switch {
	case at(0).isWord("comment") && at(1).isWord("on") && at(2).isWord("property") && at(3).isWord("graph"):
		return "COMMENT ON PROPERTY GRAPH"
	case at(0).isWord("grant") && onGraph(1):
		return "GRANT on a property graph (privileges on property graphs)"
	case at(0).isWord("revoke") && onGraph(1):
		return "REVOKE on a property graph (privileges on property graphs)"
	case at(0).isWord("security") && at(1).isWord("label") && onGraph(2):
		return "SECURITY LABEL ON PROPERTY GRAPH"
	}
	return ""
}
