package sqlparse

import (
	"errors"
	"slices"
	"strings"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"
	"google.golang.org/protobuf/reflect/protoreflect"

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

// NameRef is one column reference of a statement: its names (a
// qualified reference has several) and the byte span of its text.
type NameRef struct {
	Names      []string
	Start, End int
}

// ColumnRefs lists the column references of sql (one statement) where
// the grammar put them — not names in column lists, aliases, function or
// table names — with their spans: where PL/pgSQL would read a variable.
// A reference ending in * is left out.
func ColumnRefs(sql string) ([]NameRef, error) {
	tree, err := Parse(sql)
	if err != nil {
		return nil, err
	}
	scan, err := pg_query.Scan(sql)
	if err != nil {
		return nil, toSyntaxError(err)
	}
	var out []NameRef
	var walk func(m protoreflect.Message)
	walk = func(m protoreflect.Message) {
		if cr, ok := m.Interface().(*pg_query.ColumnRef); ok {
			var names []string
			for i, f := range cr.Fields {
				s := f.GetString_()
				if s == nil {
					if i == 0 || i != len(cr.Fields)-1 || f.GetAStar() == nil {
						return // * alone
					}
					names = append(names, "*") // a.*
					break
				}
				names = append(names, s.Sval)
			}
			if end, ok := refEnd(sql, scan.Tokens, int(cr.Location), len(names)); ok {
				out = append(out, NameRef{Names: names, Start: int(cr.Location), End: end})
			}
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					walk(l.Get(i).Message())
				}
			case fd.Message() != nil && !fd.IsMap():
				walk(v.Message())
			}
			return true
		})
	}
	walk(tree.ProtoReflect())
	slices.SortFunc(out, func(a, b NameRef) int { return a.Start - b.Start })
	return out, nil
}

// refEnd finds where a reference of n names starting at byte start ends:
// n name tokens joined by dots.
func refEnd(sql string, toks []*pg_query.ScanToken, start, n int) (int, bool) {
	i := slices.IndexFunc(toks, func(t *pg_query.ScanToken) bool { return int(t.Start) == start })
	if i < 0 {
		return 0, false
	}
	for k := 0; ; k++ {
		if i >= len(toks) || int(toks[i].End) > len(sql) {
			return 0, false
		}
		if k == n-1 {
			return int(toks[i].End), true
		}
		if i+1 >= len(toks) || sql[toks[i+1].Start:toks[i+1].End] != "." {
			return 0, false
		}
		i += 2
	}
}

// Words lists the words of sql in order — identifiers and keywords,
// lower-cased unless quoted — leaving out literals, operators and
// comments.
func Words(sql string) ([]string, error) {
	res, err := pg_query.Scan(sql)
	if err != nil {
		return nil, toSyntaxError(err)
	}
	var out []string
	for _, t := range res.Tokens {
		if t.Token != pg_query.Token_IDENT && t.KeywordKind == pg_query.KeywordKind_NO_KEYWORD || int(t.End) > len(sql) || t.Start < 0 || t.Start > t.End {
			continue
		}
		w := sql[t.Start:t.End]
		if !strings.HasPrefix(w, `"`) {
			w = strings.ToLower(w)
		}
		out = append(out, w)
	}
	return out, nil
}

// ParamSpan is one $n of a statement: n and the byte span of its text.
type ParamSpan struct {
	N          int
	Start, End int
}

// ParamRefs lists the $n parameter references of sql in text order (a
// SQL function's body reads its arguments so).
func ParamRefs(sql string) ([]ParamSpan, error) {
	scan, err := pg_query.Scan(sql)
	if err != nil {
		return nil, toSyntaxError(err)
	}
	var out []ParamSpan
	for _, t := range scan.Tokens {
		if t.Token != pg_query.Token_PARAM {
			continue
		}
		n := 0
		for _, c := range sql[t.Start+1 : t.End] {
			n = n*10 + int(c-'0')
		}
		out = append(out, ParamSpan{N: n, Start: int(t.Start), End: int(t.End)})
	}
	return out, nil
}
