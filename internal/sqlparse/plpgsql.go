package sqlparse

import (
	"errors"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/pggraph/pggraph/internal/sqllex"
)

// ParsePLpgSQL compiles the PL/pgSQL body of a DO statement with
// PostgreSQL's own PL/pgSQL grammar (libpg_query) and returns the
// compiled function as libpg_query's JSON: statements are nodes
// ({"PLpgSQL_stmt_if": {…}}), their SQL expressions stay text
// ("PLpgSQL_expr": {"query": "…"}). A grammar error (an unknown
// variable, a missing END IF) is a *SyntaxError; the guards of Parse
// (nesting, memory) apply to the text first.
func ParsePLpgSQL(sql string) (string, error) {
	if g := gate; g != nil && len(sql) >= gatedText {
		release, err := g(int64(len(sql)) * parseBytesPerTextByte)
		if err != nil {
			return "", err
		}
		defer release()
	}
	if len(sql) > maxNesting && sqllex.NestingBound(sql) > maxNesting {
		return "", &StackDepthError{}
	}
	out, err := pg_query.ParsePlPgSqlToJSON(sql)
	if err != nil {
		var pe *parser.Error
		if errors.As(err, &pe) {
			// the position is inside the body, which PostgreSQL reports
			// as context, not as a cursor into the statement
			return "", &SyntaxError{Message: pe.Message, Context: pe.Context}
		}
		return "", toSyntaxError(err)
	}
	return out, nil
}

// Identifier is one identifier token of a text: its name (lower-cased
// unless quoted) and its byte span.
type Identifier struct {
	Name       string
	Start, End int
}

// Identifiers lists the identifier tokens of sql, keywords excluded:
// what a PL/pgSQL expression could name a variable with.
func Identifiers(sql string) ([]Identifier, error) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return nil, toSyntaxError(err)
	}
	var out []Identifier
	for _, t := range res.Tokens {
		if t.Token != pg_query.Token_IDENT || int(t.End) > len(sql) || t.Start < 0 || t.Start > t.End {
			continue
		}
		id := sql[t.Start:t.End]
		if strings.HasPrefix(id, `"`) {
			id = strings.ReplaceAll(strings.Trim(id, `"`), `""`, `"`)
		} else {
			id = strings.ToLower(id)
		}
		out = append(out, Identifier{Name: id, Start: int(t.Start), End: int(t.End)})
	}
	return out, nil
}
