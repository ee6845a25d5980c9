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
// per unit. Units after the last marker psql printed (a run that was
// stopped) get no output and complete=false for them.
func Outputs(out string, n int) (pieces []string, printed int) {
	pieces = make([]string, n)
	rest := out
	for i := 0; i < n; i++ {
		m := fmt.Sprintf("%s%d@@\n", markerPrefix, i)
		k := strings.Index(rest, m)
		if k < 0 {
			return pieces, i
		}
		pieces[i] = rest[:k]
		rest = rest[k+len(m):]
	}
	return pieces, n
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
	// after it differ. Units PostgreSQL's run did not reach (a script
	// that ends itself with \quit) are not counted.
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
	want, reached := Outputs(pgOut, len(units))
	got, printed := Outputs(proxyOut, len(units))
	r := FileResult{Name: name, Stopped: printed < reached}
	for i, u := range units {
		if i >= reached {
			break // PostgreSQL's run ended here too (\quit): not run, not counted
		}
		if i < skip || u.Meta && want[i] == "" {
			continue
		}
		r.Statements++
		if i < printed && want[i] == got[i] {
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
