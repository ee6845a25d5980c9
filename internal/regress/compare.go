package regress

import (
	"fmt"
	"strings"
)

// markerPrefix starts the line psql prints after each unit, so the two
// outputs can be cut into the same pieces.
const markerPrefix = "@@regress-unit "

// Script is the psql input that runs units with a marker printed after
// each: unit i's output is what psql prints between marker i-1 and i.
func Script(units []Unit) string {
	var b strings.Builder
	for i, u := range units {
		b.WriteString(u.Text)
		b.WriteString("\n\\echo '")
		fmt.Fprintf(&b, "%s%d@@'\n", markerPrefix, i)
	}
	return b.String()
}

// Outputs cuts psql's combined output of Script(units) into one string
// per unit. A unit whose marker psql never printed (one in an inactive
// \if branch, after \quit, or after a run was stopped) has ran[i] false
// and no output; the next printed marker's piece starts after the last
// marker found.
func Outputs(out string, n int) (pieces []string, ran []bool) {
	pieces, ran = make([]string, n), make([]bool, n)
	rest := out
	for i := 0; i < n; i++ {
		m := fmt.Sprintf("%s%d@@\n", markerPrefix, i)
		k := strings.Index(rest, m)
		if k < 0 {
			continue
		}
		pieces[i], ran[i] = rest[:k], true
		rest = rest[k+len(m):]
	}
	return pieces, ran
}

// last is the index of the last true element, -1 if none.
func last(ran []bool) int {
	for i := len(ran) - 1; i >= 0; i-- {
		if ran[i] {
			return i
		}
	}
	return -1
}

// FileResult is the comparison of one script's run on PostgreSQL and on
// pgproxy.
type FileResult struct {
	Name string
	// Statements counts the SQL statements and the meta-commands that
	// print something on PostgreSQL (\d …; \set and the like print
	// nothing and are not counted); Same counts those whose output was
	// identical.
	Statements, Same int
	// Diffs lists the differing statements, in script order.
	Diffs []Diff
	// Stopped reports that pgproxy's run ended before the last unit
	// PostgreSQL's run reached (timeout, lost connection); the statements
	// after it differ. Units PostgreSQL's run skipped (an inactive \if
	// branch, a script that ends itself with \quit) are not counted.
	Stopped bool
}

// Diff is one statement whose outputs differ.
type Diff struct {
	Unit            Unit
	Postgres, Proxy string
}

// Compare compares the outputs unit by unit; the first skip units (a
// setup script) run but are not counted.
func Compare(name string, units []Unit, skip int, pgOut, proxyOut string) FileResult {
	want, pgRan := Outputs(pgOut, len(units))
	got, proxyRan := Outputs(proxyOut, len(units))
	r := FileResult{Name: name, Stopped: last(proxyRan) < last(pgRan)}
	for i, u := range units {
		if !pgRan[i] {
			continue // PostgreSQL's run skipped it (\if, \quit): not counted
		}
		if i < skip || u.Meta && want[i] == "" {
			continue
		}
		r.Statements++
		if proxyRan[i] && want[i] == got[i] {
			r.Same++
			continue
		}
		r.Diffs = append(r.Diffs, Diff{Unit: u, Postgres: want[i], Proxy: got[i]})
	}
	return r
}

// Share is Same/Statements as a percentage (100 for an empty script).
func (r FileResult) Share() float64 {
	if r.Statements == 0 {
		return 100
	}
	return 100 * float64(r.Same) / float64(r.Statements)
}

// Report renders a file's differing statements with both outputs.
func Report(r FileResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d statements identical\n", r.Name, r.Same, r.Statements)
	for _, d := range r.Diffs {
		fmt.Fprintf(&b, "\n=== line %d\n%s\n--- postgres\n%s--- pgproxy\n%s", d.Unit.Line, d.Unit.Text, d.Postgres, d.Proxy)
	}
	return b.String()
}
