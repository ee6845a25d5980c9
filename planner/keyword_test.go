package planner

import "testing"

func TestUnsupportedKeyword(t *testing.T) {
	cases := map[string]string{
		"select 1":                       "",
		"  -- c\n/* d */ VALUES (1)":     "",
		"(select 1) union (select 2)":    "",
		"with x as (select 1) table x":   "",
		"Table people":                   "",
		"insert into t values (1)":       "INSERT",
		"create unique index i on t (a)": "CREATE UNIQUE INDEX",
		"alter table t add column b int": "ALTER TABLE",
		"copy t from stdin":              "COPY",
		"explain select 1":               "EXPLAIN",
		"/* unterminated":                "",
	}
	for sql, want := range cases {
		if got := unsupportedKeyword(sql); got != want {
			t.Errorf("unsupportedKeyword(%q) = %q, want %q", sql, got, want)
		}
	}
}
