package exec

import (
	"context"
	"testing"
)

// TestJSONAggLimits: the values json_agg, jsonb_agg, json_object_agg and
// jsonb_object_agg build count against the statement's memory budget
// (53200; they were not counted: a 100 MB jsonb_agg ran under a 16 MB
// budget) and stop at PostgreSQL's limits with its 54000 messages: the
// 1 GB string buffer for json, the jsonb container size for jsonb. The
// limits are lowered here; the sizes are the engine's estimates (text
// plus quotes, key and value for objects).
func TestJSONAggLimits(t *testing.T) {
	defer func(v, c int) { maxValueBytes, maxJSONBContainer = v, c }(maxValueBytes, maxJSONBContainer)
	maxValueBytes, maxJSONBContainer = 1<<20, 1<<19-1
	const rows = " FROM generate_series(1, 2000) g"
	cases := []struct {
		name   string
		limit  int64
		sql    string
		code   string
		msg    string
		detail string
	}{
		{"json_agg_budget", 256 << 10, "SELECT length(json_agg(repeat('x', 1000))::text)" + rows, "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"jsonb_agg_budget", 256 << 10, "SELECT length(jsonb_agg(repeat('x', 1000))::text)" + rows, "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"json_object_agg_budget", 256 << 10, "SELECT length(json_object_agg(g, repeat('x', 1000))::text)" + rows, "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"jsonb_object_agg_budget", 256 << 10, "SELECT length(jsonb_object_agg(g, repeat('x', 1000))::text)" + rows, "53200", "out of memory", "query exceeded its memory budget of 262144 bytes"},
		{"json_agg_value_limit", 0, "SELECT length(json_agg(repeat('x', 1000))::text)" + rows, "54000", "out of memory", "Cannot enlarge string buffer containing 1048092 bytes by 1002 more bytes."},
		{"json_object_agg_value_limit", 0, "SELECT length(json_object_agg(1000 + g, repeat('x', 1000))::text)" + rows, "54000", "out of memory", "Cannot enlarge string buffer containing 1048320 bytes by 1008 more bytes."},
		{"jsonb_agg_container", 0, "SELECT length(jsonb_agg(repeat('x', 1000))::text)" + rows, "54000", "total size of jsonb array elements exceeds the maximum of 524287 bytes", ""},
		{"jsonb_object_agg_container", 0, "SELECT length(jsonb_object_agg(g, repeat('x', 1000))::text)" + rows, "54000", "total size of jsonb object elements exceeds the maximum of 524287 bytes", ""},
		// the ordered form accumulates without an evaluation context: its
		// input rows count against the budget, its value gets the limit
		{"jsonb_agg_ordered_container", 0, "SELECT length(jsonb_agg(repeat('x', 1000) ORDER BY g DESC)::text)" + rows, "54000", "total size of jsonb array elements exceeds the maximum of 524287 bytes", ""},
		{"jsonb_agg_window_container", 0, "SELECT max(length(j::text)) FROM (SELECT jsonb_agg(repeat('x', 1000)) OVER (ORDER BY g) j" + rows + ") w", "54000", "total size of jsonb array elements exceeds the maximum of 524287 bytes", ""},
		{"fits", 0, "SELECT length(jsonb_agg(repeat('x', 998))::text)" + " FROM generate_series(1, 500) g", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := &Engine{Catalog: NewMemCatalog(), MemoryLimit: c.limit}
			p, err := eng.Prepare(c.sql, nil)
			if err == nil {
				var res *Result
				res, err = p.Execute(context.Background(), nil, nil)
				if err == nil && c.code == "" {
					// 500 strings of 1000 bytes with quotes, ", " between
					if got := oneText(t, res); got != "501000" {
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
