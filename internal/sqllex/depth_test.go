package sqllex

import "testing"

// TestOperatorTokens: operator runs split as PostgreSQL's scanner splits
// them (scan.l: a multi-byte operator ends in + or - only if it holds
// one of ~!@#^&|`?%).
func TestOperatorTokens(t *testing.T) {
	cases := []struct {
		run  string
		want int
	}{
		{"+", 1}, {"||", 1}, {"<>", 1}, {">=", 1}, {"+-", 2}, {"=-", 2}, {"*-+", 3},
		{"|-", 1}, {"@-", 1}, {"<-", 2}, {"->>", 1}, {"-", 1}, {"!=-", 1}, {"<=+-", 3},
	}
	for _, c := range cases {
		if got := operatorTokens(c.run); got != c.want {
			t.Errorf("operatorTokens(%q) = %d, want %d", c.run, got, c.want)
		}
	}
}

// TestNestingBoundCounts: chains count one level per operator as the
// parser nests them, and a set operation's arms one level each.
func TestNestingBoundCounts(t *testing.T) {
	cases := []struct {
		sql  string
		want int
	}{
		{"SELECT 1+1+1", 3},
		{"SELECT 'a'||'a'||'a'", 3},
		{"SELECT 1+-1", 3},
		{"SELECT 1::int::int", 3},
		{"SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 1", 3},
		{"SELECT (SELECT (SELECT 1))", 5},
	}
	for _, c := range cases {
		if got := NestingBound(c.sql); got != c.want {
			t.Errorf("NestingBound(%q) = %d, want %d", c.sql, got, c.want)
		}
	}
}
