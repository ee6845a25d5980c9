package planner

import (
	"testing"
	"unicode/utf8"
)

// TestCharPos: charPos counts characters incrementally and answers as
// counting from the start does, for offsets in order, backwards, and
// after the statement text changes.
func TestCharPos(t *testing.T) {
	w := &writer{}
	for _, tc := range []struct {
		sql  string
		locs []int
	}{
		{"INSERT INTO t VALUES ('é', 1), ('ü', 2), ('x', 3)", []int{22, 30, 37, 44, 49}},
		{"VALUES ('日本', 1), ('語', 2)", []int{8, 20, 3, 27, 0, 27}},
		{"plain ascii", []int{0, 5, 11}},
	} {
		w.sql = tc.sql
		for _, loc := range tc.locs {
			if got, want := w.charPos(loc), utf8.RuneCountInString(tc.sql[:loc]); got != want {
				t.Errorf("%q at byte %d: %d characters, want %d", tc.sql, loc, got, want)
			}
		}
	}
}
