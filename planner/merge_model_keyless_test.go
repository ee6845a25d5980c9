package planner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// bagTable is the model of a table without a primary key: how many
// copies of each row value it holds.
type bagTable map[modelRow]int

func (m bagTable) clone() bagTable {
	out := bagTable{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (m bagTable) String() string {
	var rows []string
	for r, n := range m {
		for range n {
			rows = append(rows, fmt.Sprintf("%d|%d", r.a, r.b))
		}
	}
	sort.Strings(rows)
	return strings.Join(rows, ";")
}

// bagMerge is the by-value merge the model expects: per value, a side's
// change to its count applies where the other left it, the same change
// on both applies once, different changes conflict (the whole merge).
// tbase and sbase are the target's and the source's bases.
func bagMerge(tbase, sbase, ours, theirs bagTable) (bagTable, bool) {
	out := ours.clone()
	vals := map[modelRow]bool{}
	for _, m := range []bagTable{tbase, sbase, ours, theirs} {
		for v := range m {
			vals[v] = true
		}
	}
	for v := range vals {
		ds, dt := theirs[v]-sbase[v], ours[v]-tbase[v]
		switch {
		case ds == 0 || ds == dt:
		case dt == 0:
			out[v] += ds
			if out[v] < 0 {
				return nil, true
			}
		default:
			return nil, true
		}
		if out[v] == 0 {
			delete(out, v)
		}
	}
	return out, false
}

// TestMergeModelKeyless runs random histories of a table without a
// primary key on two branches (inserts of possibly equal rows, deletes
// and updates of every copy of a value), two merge rounds, and checks
// every merge against the by-value model: the merged rows, or a 40001
// conflict that changes nothing. The seed is printed on failure (rerun
// with -merge.seed).
func TestMergeModelKeyless(t *testing.T) {
	seed := *mergeModelSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("rerun with: go test ./planner -run TestMergeModelKeyless -merge.seed=%d", seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, 0xba9))
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	must := func(q string) {
		t.Helper()
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, q, err)
		}
	}
	read := func(branch, table string) string {
		t.Helper()
		must("set graph.branch = '" + branch + "'")
		rows, err := c.Query(ctx, "select a, b from "+table)
		if err != nil {
			t.Fatalf("seed %d: read %s: %v", seed, table, err)
		}
		m := bagTable{}
		for rows.Next() {
			var r modelRow
			if err := rows.Scan(&r.a, &r.b); err != nil {
				t.Fatal(err)
			}
			m[r]++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return m.String()
	}
	ops := func(branch, table string, m bagTable, n int) []string {
		must("set graph.branch = '" + branch + "'")
		var log []string
		for range n {
			vals := make([]modelRow, 0, len(m))
			for v := range m {
				vals = append(vals, v)
			}
			sort.Slice(vals, func(i, j int) bool { return vals[i].a*10+vals[i].b < vals[j].a*10+vals[j].b })
			var q string
			switch op := rng.IntN(3); {
			case op == 0 || len(vals) == 0:
				v := modelRow{rng.IntN(3), rng.IntN(3)}
				q = fmt.Sprintf("insert into %s values (%d, %d)", table, v.a, v.b)
				m[v]++
			case op == 1:
				v := vals[rng.IntN(len(vals))]
				q = fmt.Sprintf("delete from %s where a = %d and b = %d", table, v.a, v.b)
				delete(m, v)
			default:
				v := vals[rng.IntN(len(vals))]
				w := modelRow{v.a, rng.IntN(3)}
				q = fmt.Sprintf("update %s set b = %d where a = %d and b = %d", table, w.b, v.a, v.b)
				n := m[v]
				delete(m, v)
				m[w] += n
			}
			must(q)
			log = append(log, branch+": "+q)
		}
		return log
	}
	const histories, rounds = 10, 2
	merged, refused := 0, 0
	defer func() { t.Logf("seed %d: %d merges, %d conflicts", seed, merged, refused) }()
	for h := range histories {
		table, dev := fmt.Sprintf("e%d", h), fmt.Sprintf("edev%d", h)
		must("set graph.branch = 'main'")
		must("create table " + table + " (a int not null, b int not null)")
		ours := bagTable{}
		log := ops("main", table, ours, 4)
		must("set graph.branch = 'main'")
		must("call graph.create_branch('" + dev + "')")
		tbase, sbase, theirs := ours.clone(), ours.clone(), ours.clone()
		for round := range rounds {
			log = append(log, ops("main", table, ours, 1+rng.IntN(3))...)
			log = append(log, ops(dev, table, theirs, 1+rng.IntN(3))...)
			want, conflict := bagMerge(tbase, sbase, ours, theirs)
			before := read("main", table)
			must("set graph.branch = 'main'")
			_, err := c.Exec(ctx, "call graph.merge('"+dev+"')")
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, history %d, round %d: %s\ntarget base %v\nsource base %v\nours   %v\ntheirs %v\nstatements:\n%s", seed, h, round,
					fmt.Sprintf(format, args...), tbase, sbase, ours, theirs, strings.Join(log, "\n"))
			}
			if conflict {
				if sqlState(err) != "40001" {
					fail("merge: %v, want a 40001 conflict", err)
				}
				if got := read("main", table); got != before {
					fail("a refused merge changed main: %s, was %s", got, before)
				}
				refused++
				break // the history ends at a conflict
			}
			if err != nil {
				fail("merge: %v, want the rows %v", err, want)
			}
			if got := read("main", table); got != want.String() {
				fail("merged rows %s, want %s", got, want)
			}
			merged++
			log = append(log, fmt.Sprintf("merge → %s", want))
			// the next round's bases: the merge on the target, the
			// source as merged on the source
			ours, tbase, sbase = want, want.clone(), theirs.clone()
		}
	}
}
