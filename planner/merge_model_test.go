package planner

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var mergeModelSeed = flag.Uint64("merge.seed", 0, "seed of TestMergeModelRandomized (0: a new one, printed on failure)")

// modelRow is one row of the model table t(k int primary key, a int, b int).
type modelRow struct{ a, b int }

type modelTable map[int]modelRow

func (m modelTable) clone() modelTable {
	out := modelTable{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (m modelTable) String() string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "%d|%d|%d", k, m[k].a, m[k].b)
	}
	return b.String()
}

// modelMerge is the three-way merge the model expects: per key and per
// column, a side's change wins over the other's keeping the base; the
// same column (or a row's existence) changed differently on both sides
// is a conflict. theirs settles conflicts with the source's row.
func modelMerge(base, ours, theirs modelTable, strategyTheirs bool) (modelTable, bool) {
	out := modelTable{}
	conflict := false
	keys := map[int]bool{}
	for _, m := range []modelTable{base, ours, theirs} {
		for k := range m {
			keys[k] = true
		}
	}
	for k := range keys {
		b, inB := base[k]
		o, inO := ours[k]
		s, inS := theirs[k]
		var r modelRow
		present, ok := false, true
		switch {
		case !inB && inO && inS:
			ok = false // inserted on both
		case !inB: // inserted on one side
			r, present = o, inO || inS
			if inS {
				r = s
			}
		case inO && inS:
			present = true
			pick := func(bv, ov, sv int) int {
				switch {
				case sv == bv || sv == ov:
					return ov
				case ov == bv:
					return sv
				}
				ok = false
				return ov
			}
			r = modelRow{pick(b.a, o.a, s.a), pick(b.b, o.b, s.b)}
		case !inO && !inS:
		case !inO: // deleted on ours: fine if theirs kept the base row
			ok = s == b
		default: // deleted on theirs
			ok = o == b
		}
		if !ok {
			conflict = true
			r, present = s, inS
		}
		if present {
			out[k] = r
		}
	}
	if conflict && !strategyTheirs {
		return nil, true
	}
	return out, conflict
}

// TestMergeModelRandomized runs random histories on two branches —
// inserts, per-column updates and deletes of a small table, two merge
// rounds (the second's base is the first merge) — and checks every
// merge against the model: the merged rows, or a 40001 conflict that
// changes nothing and then merges with strategy 'theirs'. Bounded: a
// fixed number of histories of a few statements; the seed is printed
// on failure (rerun with -merge.seed).
func TestMergeModelRandomized(t *testing.T) {
	seed := *mergeModelSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("rerun with: go test ./planner -run TestMergeModelRandomized -merge.seed=%d", seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	ts := startServer(t, nil)
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	exec := func(q string) error {
		_, err := c.Exec(ctx, q)
		return err
	}
	must := func(q string) {
		t.Helper()
		if err := exec(q); err != nil {
			t.Fatalf("seed %d: %s: %v", seed, q, err)
		}
	}
	read := func(branch, table string) string {
		t.Helper()
		must("set graph.branch = '" + branch + "'")
		rows, err := c.Query(ctx, "select k, a, b from "+table+" order by k")
		if err != nil {
			t.Fatalf("seed %d: read %s: %v", seed, table, err)
		}
		m := modelTable{}
		for rows.Next() {
			var k, a, b int
			if err := rows.Scan(&k, &a, &b); err != nil {
				t.Fatal(err)
			}
			m[k] = modelRow{a, b}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return m.String()
	}
	// ops applies n random statements to one branch's table and model
	ops := func(branch, table string, m modelTable, n int) []string {
		must("set graph.branch = '" + branch + "'")
		var log []string
		for range n {
			var q string
			keys := make([]int, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Ints(keys)
			switch op := rng.IntN(4); {
			case op == 0 || len(keys) == 0:
				k := rng.IntN(12)
				if _, ok := m[k]; ok {
					continue
				}
				r := modelRow{rng.IntN(3), rng.IntN(3)}
				q = fmt.Sprintf("insert into %s values (%d, %d, %d)", table, k, r.a, r.b)
				m[k] = r
			case op == 1:
				k := keys[rng.IntN(len(keys))]
				q = fmt.Sprintf("delete from %s where k = %d", table, k)
				delete(m, k)
			default:
				k := keys[rng.IntN(len(keys))]
				r, v := m[k], rng.IntN(3)
				col := "a"
				if rng.IntN(2) == 0 {
					r.a = v
				} else {
					col, r.b = "b", v
				}
				q = fmt.Sprintf("update %s set %s = %d where k = %d", table, col, v, k)
				m[k] = r
			}
			must(q)
			log = append(log, branch+": "+q)
		}
		return log
	}
	const histories, rounds = 12, 2
	for h := range histories {
		table, dev := fmt.Sprintf("t%d", h), fmt.Sprintf("dev%d", h)
		must("set graph.branch = 'main'")
		must("create table " + table + " (k int primary key, a int not null, b int not null)")
		ours := modelTable{}
		var log []string
		log = append(log, ops("main", table, ours, 4)...)
		must("set graph.branch = 'main'")
		must("call graph.create_branch('" + dev + "')")
		base, theirs := ours.clone(), ours.clone()
		for round := range rounds {
			log = append(log, ops("main", table, ours, 1+rng.IntN(4))...)
			log = append(log, ops(dev, table, theirs, 1+rng.IntN(4))...)
			want, conflict := modelMerge(base, ours, theirs, false)
			before := read("main", table)
			must("set graph.branch = 'main'")
			err := exec("call graph.merge('" + dev + "')")
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, history %d, round %d: %s\nbase   %v\nours   %v\ntheirs %v\nstatements:\n%s", seed, h, round,
					fmt.Sprintf(format, args...), base, ours, theirs, strings.Join(log, "\n"))
			}
			if conflict {
				if sqlState(err) != "40001" {
					fail("merge: %v, want a 40001 conflict", err)
				}
				if got := read("main", table); got != before {
					fail("a refused merge changed main: %s, was %s", got, before)
				}
				must("set graph.branch = 'main'")
				if err := exec("call graph.merge('" + dev + "', strategy => 'theirs')"); err != nil {
					fail("merge with 'theirs': %v", err)
				}
				want, _ = modelMerge(base, ours, theirs, true)
			} else if err != nil {
				fail("merge: %v, want the rows %v", err, want)
			}
			if got := read("main", table); got != want.String() {
				fail("merged rows %s, want %s", got, want)
			}
			if got := read(dev, table); got != theirs.String() {
				fail("the source changed: %s, want %s", got, theirs)
			}
			log = append(log, fmt.Sprintf("merge (conflict %v) → %s", conflict, want))
			// the next round's base is the source merged now
			ours, base = want, theirs.clone()
		}
	}
}
