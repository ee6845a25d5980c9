package ddl

import (
	"fmt"
	"strings"
)

// maxIdentLen is PostgreSQL's NAMEDATALEN-1: longer names are truncated.
const maxIdentLen = 63

// truncateIdent cuts a name to maxIdentLen bytes on a rune boundary, as
// PostgreSQL does (with a NOTICE we do not send).
func truncateIdent(s string) string {
	return ClipRunes(s, maxIdentLen)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// makeObjectName joins name1, name2 (may be empty) and label with '_',
// shortening name1 and name2 until the result fits in 63 bytes exactly
// as PostgreSQL's makeObjectName does (the longer one loses a byte; on a
// tie name2 does), then clipping each to a character boundary.
func makeObjectName(name1, name2, label string) string {
	overhead := 0
	if label != "" {
		overhead += len(label) + 1
	}
	if name2 != "" {
		overhead++
	}
	avail := maxIdentLen - overhead
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail && n1+n2 > 0 {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := ClipRunes(name1, n1)
	if name2 != "" {
		out += "_" + ClipRunes(name2, n2)
	}
	if label != "" {
		out += "_" + label
	}
	return out
}

// ClipRunes cuts s to at most n bytes on a character boundary (as
// PostgreSQL's pg_mbcliplen does for UTF-8).
func ClipRunes(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// chooseName picks name1_name2_label, or name1_name2_labelN for the first
// N ≥ 1 that is not taken (PostgreSQL's ChooseRelationName /
// ChooseConstraintName), and marks it taken.
func chooseName(taken map[string]bool, name1, name2, label string) string {
	for pass := 0; ; pass++ {
		l := label
		if pass > 0 {
			l = fmt.Sprintf("%s%d", label, pass)
		}
		n := makeObjectName(name1, name2, l)
		if !taken[n] {
			taken[n] = true
			return n
		}
	}
}

// columnsLabel joins column names with '_' the way PostgreSQL's
// ChooseIndexColumnNames/ChooseForeignKeyConstraintNameAddition do.
func columnsLabel(cols []string) string { return strings.Join(cols, "_") }

// quoteIdent quotes an identifier when PostgreSQL would (quote_ident).
func quoteIdent(s string) string {
	if s == "" {
		return `""`
	}
	plain := s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z')
	for i := 0; plain && i < len(s); i++ {
		c := s[i]
		plain = c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
	}
	if plain && !reservedWords[s] {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// quoteLiteral renders a SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// nextvalSQL is the default expression of a serial column, as PostgreSQL
// shows it.
//
// A created schema's sequence is stored as "schema.name" (schema.go) and
// written schema-qualified; a public name with a dot in it is written
// the same way, which ParseRegclass reads back as the same storage name.
func nextvalSQL(seqName string) string {
	return "nextval(" + quoteLiteral(regclassText(seqName)) + "::regclass)"
}

// regclassText is a relation's storage name as regclass input that
// ParseRegclass reads back as the same name (schema-qualified for a
// created or temporary schema's relation).
func regclassText(name string) string {
	if i := strings.IndexByte(name, '.'); i > 0 {
		return quoteIdent(name[:i]) + "." + quoteIdent(name[i+1:])
	}
	return quoteIdent(name)
}

// reservedWords are the keywords quote_ident always quotes (reserved and
// column-name/type-function keywords of PostgreSQL 17).
var reservedWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`all analyse analyze and any array as asc asymmetric authorization binary
both case cast check collate collation column concurrently constraint create cross current_catalog
current_date current_role current_schema current_time current_timestamp current_user default deferrable
desc distinct do else end except false fetch for foreign freeze from full grant group having ilike in
initially inner intersect into is isnull join lateral leading left like limit localtime localtimestamp
natural not notnull null offset on only or order outer overlaps placing primary references returning
right select session_user similar some symmetric system_user table tablesample then to trailing true union
unique user using variadic verbose when where window with between bigint bit boolean char character
coalesce dec decimal exists extract float greatest grouping inout int integer interval least national
nchar none normalize nullif numeric out overlay position precision real row setof smallint substring time
timestamp treat trim values varchar xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces
xmlparse xmlpi xmlroot xmlserialize xmltable json json_array json_arrayagg json_exists json_object
json_objectagg json_query json_scalar json_serialize json_table json_value merge_action`) {
		m[w] = true
	}
	return m
}()
