package exec

import "fmt"

// maxFuzzyColumnDistance is PostgreSQL's MAX_FUZZY_DISTANCE: a missing
// column's name suggests an existing one only within this many edits.
const maxFuzzyColumnDistance = 3

// fuzzyColumnMatch follows PostgreSQL's fuzzy attribute matching for the
// HINT of a missing column: the closest column names by edit distance
// across the query levels searched, one or two equally close ones
// suggested, none when three or more tie.
type fuzzyColumnMatch struct {
	distance      int
	first, second *scopeCol
}

func newFuzzyColumnMatch() *fuzzyColumnMatch {
	return &fuzzyColumnMatch{distance: maxFuzzyColumnDistance + 1}
}

// consider offers the columns of sc (those of alias table when it is
// given) as candidates for the missing name.
func (f *fuzzyColumnMatch) consider(sc *scope, table, name string) {
	for i := range sc.cols {
		c := &sc.cols[i]
		if c.hidden || c.table == "" || (table != "" && c.table != table) || c.merged != nil {
			continue
		}
		d := levenshtein(c.name, name)
		if d > len([]rune(name))/2 {
			continue // more than half the characters differ: not a suggestion
		}
		switch {
		case d < f.distance:
			f.distance, f.first, f.second = d, c, nil
		case d == f.distance && f.second != nil:
			// too many at this distance: only a closer one may be suggested
			f.first, f.second = nil, nil
		case d == f.distance && f.first != nil:
			f.second = c
		}
	}
}

// hint is the HINT text, "" when there is nothing to suggest.
func (f *fuzzyColumnMatch) hint() string {
	switch {
	case f.first == nil:
		return ""
	case f.second == nil:
		return fmt.Sprintf("Perhaps you meant to reference the column \"%s.%s\".", f.first.table, f.first.name)
	default:
		return fmt.Sprintf("Perhaps you meant to reference the column \"%s.%s\" or the column \"%s.%s\".",
			f.first.table, f.first.name, f.second.table, f.second.name)
	}
}

// levenshtein is the edit distance between a and b in characters, each
// insertion, deletion and substitution costing one.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
