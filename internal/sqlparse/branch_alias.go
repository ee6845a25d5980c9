package sqlparse

import (
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
)

// branchAlias rewrites pggraph's GRANT/REVOKE … ON BRANCH b into
// PostgreSQL's ON DATABASE b, since a branch is a database
// (docs/operations.md, branch privileges). It is asked only after the
// text failed to parse, so valid SQL (a table named branch) never
// changes: BRANCH is taken as the object kind only right after the ON of
// a GRANT or REVOKE and when a name follows it, which no valid ON clause
// allows. ok is false when there is nothing to rewrite.
func branchAlias(text string) (string, bool) {
	scan, err := pg_query.Scan(text)
	if err != nil {
		return "", false
	}
	toks := scan.GetTokens()
	var b strings.Builder
	last := 0
	grant := false // the statement so far is a GRANT or REVOKE
	first := true
	for i, t := range toks {
		switch {
		case t.Token == pg_query.Token_ASCII_59:
			grant, first = false, true
			continue
		case first:
			grant, first = t.Token == pg_query.Token_GRANT || t.Token == pg_query.Token_REVOKE, false
			continue
		}
		if !grant || t.Token != pg_query.Token_IDENT || i == 0 || i+1 >= len(toks) ||
			toks[i-1].Token != pg_query.Token_ON || !strings.EqualFold(text[t.Start:t.End], "branch") {
			continue
		}
		if next := toks[i+1]; next.Token != pg_query.Token_IDENT && next.KeywordKind == pg_query.KeywordKind_NO_KEYWORD ||
			next.KeywordKind == pg_query.KeywordKind_RESERVED_KEYWORD {
			continue // ON branch, … / ON branch TO: a table named branch
		}
		b.WriteString(text[last:t.Start])
		b.WriteString("DATABASE")
		last = int(t.End)
	}
	if last == 0 {
		return "", false
	}
	b.WriteString(text[last:])
	return b.String(), true
}
