package sqllex

import "testing"

func TestSkipSpace(t *testing.T) {
	cases := []struct {
		sql        string
		from       int
		next, open int
	}{
		{"select", 0, 0, -1},
		{"  \t\n x", 0, 5, -1},
		{"-- c\nx", 0, 5, -1},
		{"-- only a comment", 0, 17, -1},
		{"/* a /* nested */ still */x", 0, 26, -1},
		{"/* a */ -- b\r\n  y", 0, 16, -1},
		{"x /* open", 1, 9, 2},
		{"/* /* */", 0, 8, 0},
		{"a", 1, 1, -1},
	}
	for _, c := range cases {
		if next, open := SkipSpace(c.sql, c.from); next != c.next || open != c.open {
			t.Errorf("SkipSpace(%q, %d) = %d, %d; want %d, %d", c.sql, c.from, next, open, c.next, c.open)
		}
	}
}
