package ddl

import (
	"regexp"
	"strings"

	"github.com/pggraph/pggraph/exec"
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// A DEFAULT written as a bare string literal is stored the way
// PostgreSQL shows it after coercing it to the column's type (\d,
// pg_get_expr, information_schema.columns.column_default): 'x'::text,
// 'x'::character varying, 5 for integers, true/false for booleans.

var (
	unsignedInt = regexp.MustCompile(`^[0-9]+$`)
	unsignedDec = regexp.MustCompile(`^[0-9]*\.[0-9]+$|^[0-9]+\.[0-9]*$`)
)

// cookLiteral returns the stored form of a string-literal default, ok
// false when expr is not a bare string literal or the type has no rule.
func cookLiteral(expr *q.Node, t PGType) (string, bool) {
	k := expr.GetAConst()
	if k == nil || k.GetSval() == nil {
		return "", false
	}
	lit := k.GetSval().Sval
	quoted := quoteLiteral(lit)
	if t.IsVector() {
		return quoted + "::" + t.String(), true
	}
	switch t.OID {
	case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8:
		if s := strings.TrimSpace(lit); unsignedInt.MatchString(s) {
			return s, true
		}
		return quoted + "::" + exec.FormatType(t.OID, -1), true
	case exec.OIDNumeric:
		if s := strings.TrimSpace(lit); unsignedDec.MatchString(s) {
			return s, true
		}
		return quoted + "::numeric", true
	case exec.OIDBool:
		switch strings.ToLower(strings.TrimSpace(lit)) {
		case "t", "tr", "tru", "true", "y", "ye", "yes", "on", "1":
			return "true", true
		case "f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0":
			return "false", true
		}
		return "", false // invalid input: left for evaluation to report
	case exec.OIDBpchar:
		return quoted + "::bpchar", true
	}
	// other types keep the modifier-free type name, as PostgreSQL shows
	return quoted + "::" + exec.FormatType(t.OID, -1), true
}

// sqlValueKeywords are the SQL-standard value functions PostgreSQL shows
// in upper case (the deparser writes them in lower case).
var sqlValueKeywords = map[string]bool{
	"current_timestamp": true, "current_date": true, "current_time": true, "localtimestamp": true,
	"localtime": true, "current_user": true, "session_user": true, "current_role": true,
	"current_catalog": true, "current_schema": true, "user": true,
}

// upperValueKeywords upper-cases those keywords outside quoted strings
// and identifiers (as keywords they cannot be bare identifiers).
func upperValueKeywords(sql string) string {
	var b strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			for j < len(sql) {
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j < len(sql) {
				j++
			}
			b.WriteString(sql[i:j])
			i = j
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(sql) && (sql[j] == '_' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9' || sql[j] == '$') {
				j++
			}
			w := sql[i:j]
			if sqlValueKeywords[w] && (i == 0 || sql[i-1] != '.') {
				w = strings.ToUpper(w)
			}
			b.WriteString(w)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// isNullConst reports a bare NULL (a DEFAULT NULL stores no default, as
// in PostgreSQL).
func isNullConst(n *q.Node) bool {
	k := n.GetAConst()
	return k != nil && k.Isnull
}
