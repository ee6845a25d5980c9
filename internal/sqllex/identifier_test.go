package sqllex

import (
	"reflect"
	"strings"
	"testing"
)

func TestTruncatedIdentifiers(t *testing.T) {
	long := strings.Repeat("a", 70)
	upper := strings.Repeat("B", 64)
	// 62 ASCII bytes then a 2-byte character: byte 63 falls inside it.
	multi := strings.Repeat("c", 62) + "é" + "dd"
	cases := []struct {
		name, sql string
		want      []TruncatedIdentifier
	}{
		{"short statement", "SELECT 1", nil},
		{"exactly 63", "SELECT 1 AS " + strings.Repeat("x", 63), nil},
		{"unquoted folds", "SELECT 1 AS " + upper, []TruncatedIdentifier{{strings.ToLower(upper), strings.Repeat("b", 63)}}},
		{"quoted keeps case", `SELECT 1 AS "` + upper + `"`, []TruncatedIdentifier{{upper, strings.Repeat("B", 63)}}},
		{"quoted undoubles", `SELECT 1 AS "` + strings.Repeat(`""`, 40) + `"`, nil},
		{"character boundary", "SELECT 1 AS " + multi, []TruncatedIdentifier{{multi, strings.Repeat("c", 62)}}},
		{"in order", "SELECT " + long + " FROM " + upper, []TruncatedIdentifier{
			{long, long[:63]}, {strings.ToLower(upper), strings.Repeat("b", 63)}}},
		{"string", "SELECT '" + long + "'", nil},
		{"escape string", `SELECT E'\'` + long + `'`, nil},
		{"dollar quote", "SELECT $q$" + long + "$q$", nil},
		{"comment", "SELECT 1 -- " + long + "\n", nil},
		{"block comment", "SELECT 1 /* " + long + " */", nil},
		{"number glued", "SELECT 1e" + strings.Repeat("5", 70), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := TruncatedIdentifiers(c.sql); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}
