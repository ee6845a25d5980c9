package exec

import (
	"context"
	"testing"
)

// TestValueAndBudgetLimits: a string_agg value past the value limit
// answers 54000 with PostgreSQL's message, and the bytes it builds count
// against the query's memory budget (53200).
func TestValueAndBudgetLimits(t *testing.T) {
	defer func(v int) { maxValueBytes = v }(maxValueBytes)
	maxValueBytes = 1 << 20
	const big = "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 2000)"
	cases := []struct {
		name   string
		limit  int64
		sql    string
		code   string
		msg    string
		detail string
	}{
		{"value_limit", 0, big, "54000", "out of memory", "Cannot enlarge string buffer containing 1048000 bytes by 1000 more bytes."},
		// the value is built in chunks that are never copied, so a budget
		// a little above the value limit is enough to reach 54000 (a
		// doubling buffer needed 1.5 times the value while it grew)
		{"value_limit_under_budget", 3 << 19, big, "54000", "out of memory", "Cannot enlarge string buffer containing 1048000 bytes by 1000 more bytes."},
		{"budget", 256 << 10, big, "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"ordered", 0, "SELECT length(string_agg(repeat('x', 1000), '' ORDER BY g DESC)) FROM generate_series(1, 2000) g", "54000", "out of memory", "Cannot enlarge string buffer containing 1048000 bytes by 1000 more bytes."},
		{"window", 0, "SELECT max(length(s)) FROM (SELECT string_agg(repeat('x', 1000), '') OVER (ORDER BY g) s FROM generate_series(1, 2000) g) w", "54000", "out of memory", "Cannot enlarge string buffer containing 1048000 bytes by 1000 more bytes."},
		{"array_agg_budget", 256 << 10, "SELECT array_length(array_agg(g), 1) FROM generate_series(1, 100000) g", "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"concat", 0, "SELECT length(repeat('x', 600000) || repeat('y', 600000))", "54000", "out of memory", "Cannot enlarge string buffer containing 600000 bytes by 600000 more bytes."},
		{"repeat_budget", 256 << 10, "SELECT length(repeat('x', 300000))", "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"concat_budget", 512 << 10, "SELECT length(repeat('x', 300000) || repeat('y', 300000))", "53200", "out of memory", "query exceeded its memory budget of 524288 bytes"},
		{"repeat", 0, "SELECT repeat('ab', 600000)", "54000", "requested length too large", ""},
		{"fits", 0, "SELECT length(string_agg(repeat('x', 1000), '')) FROM generate_series(1, 1000)", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := &Engine{Catalog: NewMemCatalog(), MemoryLimit: c.limit}
			p, err := eng.Prepare(c.sql, nil)
			if err == nil {
				var res *Result
				res, err = p.Execute(context.Background(), nil, nil)
				if err == nil && c.code == "" {
					if got := oneText(t, res); got != "1000000" {
						t.Fatalf("got %s", got)
					}
					return
				}
			}
			e, _ := err.(*Error)
			if e == nil || e.Code != c.code || e.Message != c.msg || e.Detail != c.detail {
				t.Fatalf("got %#v", err)
			}
		})
	}
}
