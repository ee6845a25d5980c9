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

// modelStage is the merge the model expects staged with strategy 'stop':
// the rows (as modelMerge, but a conflicting row is the target's — for a
// row both sides updated its per-column merge with the target's values
// in the columns both set differently) and the conflicts by key with
// their columns. A row both sides made the same is no conflict.
func modelStage(base, ours, theirs modelTable) (modelTable, map[int]string) {
	out := modelTable{}
	conflicts := map[int]string{}
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
		switch {
		case inO && inS && o == s:
			out[k] = o
		case inO && inS && inB:
			var cols []string
			pick := func(name string, bv, ov, sv int) int {
				switch {
				case sv == bv || sv == ov:
					return ov
				case ov == bv:
					return sv
				}
				cols = append(cols, name)
				return ov
			}
			out[k] = modelRow{pick("a", b.a, o.a, s.a), pick("b", b.b, o.b, s.b)}
			if len(cols) > 0 {
				conflicts[k] = strings.Join(cols, ", ")
			}
		case inO && inS: // added on both, differently
			var cols []string
			if o.a != s.a {
				cols = append(cols, "a")
			}
			if o.b != s.b {
				cols = append(cols, "b")
			}
			out[k], conflicts[k] = o, strings.Join(cols, ", ")
		case !inB && (inO || inS): // added on one side
			out[k] = o
			if inS {
				out[k] = s
			}
		case !inO && !inS:
		case !inO: // deleted on ours
			if s != b {
				conflicts[k] = "k, a, b"
			}
		default: // deleted on theirs: a conflict if ours changed it
			if o != b {
				out[k], conflicts[k] = o, "k, a, b"
			}
		}
	}
	return out, conflicts
}

// modelOp sets row k of a scripted history's table to r (del: deletes it).
type modelOp struct {
	k   int
	r   modelRow
	del bool
}

// scriptedModel is TestMergeModelRandomized's first history (its first
// round): rows 1 and 2 updated on both branches in column a, one of
// them also in b on the source (staged per column: the source's b, the
// target's a, two staged rows so resolving one shifts the other's
// pending position); row 3 set differently in b on both (the target's
// row is staged as it is); row 4 deleted on the target and updated on
// the source; a clean insert.
var scriptedModel = struct{ setup, ours, theirs []modelOp }{
	setup:  []modelOp{{k: 1, r: modelRow{1, 1}}, {k: 2, r: modelRow{1, 1}}, {k: 3, r: modelRow{1, 1}}, {k: 4, r: modelRow{1, 1}}},
	ours:   []modelOp{{k: 1, r: modelRow{2, 1}}, {k: 2, r: modelRow{2, 1}}, {k: 3, r: modelRow{1, 2}}, {k: 4, del: true}},
	theirs: []modelOp{{k: 5, r: modelRow{1, 1}}, {k: 1, r: modelRow{0, 0}}, {k: 2, r: modelRow{0, 2}}, {k: 3, r: modelRow{1, 0}}, {k: 4, r: modelRow{2, 2}}},
}

// TestMergeModelRandomized runs random histories on two branches —
// inserts, per-column updates and deletes of a small table, two merge
// rounds (the second's base is the first merge) — and checks every
// merge against the model: the merged rows, or a 40001 conflict that
// changes nothing and then merges with strategy 'theirs' or is staged
// with strategy 'stop' (the staged rows and graph.conflicts checked
// against the model), resolved row by row in SQL to the source's rows
// in a random order (each resolution closes its own conflict only) and
// committed. Bounded: a
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
	rowsOf := func(table string) string {
		t.Helper()
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
	read := func(branch, table string) string {
		t.Helper()
		must("set graph.branch = '" + branch + "'")
		return rowsOf(table)
	}
	conflictsOf := func() map[int]string {
		t.Helper()
		rows, err := c.Query(ctx, "select (key->>'k')::int, columns from graph.conflicts")
		if err != nil {
			t.Fatalf("seed %d: graph.conflicts: %v", seed, err)
		}
		out := map[int]string{}
		for rows.Next() {
			var k int
			var cols string
			if err := rows.Scan(&k, &cols); err != nil {
				t.Fatal(err)
			}
			out[k] = cols
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
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
				k := rng.IntN(8)
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
			case op == 2 && rng.IntN(2) == 0:
				// both columns: with one-column updates on the other
				// branch, a row changed on both in one column and on one
				// side in the other (staged per column with 'stop')
				k := keys[rng.IntN(len(keys))]
				r := modelRow{rng.IntN(3), rng.IntN(3)}
				q = fmt.Sprintf("update %s set a = %d, b = %d where k = %d", table, r.a, r.b, k)
				m[k] = r
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
	// set applies a scripted history's row changes
	set := func(branch, table string, m modelTable, script []modelOp) []string {
		must("set graph.branch = '" + branch + "'")
		var log []string
		for _, op := range script {
			_, had := m[op.k]
			var q string
			switch {
			case op.del:
				q = fmt.Sprintf("delete from %s where k = %d", table, op.k)
				delete(m, op.k)
			case had:
				q = fmt.Sprintf("update %s set a = %d, b = %d where k = %d", table, op.r.a, op.r.b, op.k)
				m[op.k] = op.r
			default:
				q = fmt.Sprintf("insert into %s values (%d, %d, %d)", table, op.k, op.r.a, op.r.b)
				m[op.k] = op.r
			}
			must(q)
			log = append(log, branch+": "+q)
		}
		return log
	}
	const histories, rounds = 16, 2
	for h := range histories {
		// history 0 starts scripted: rows both branches updated in one
		// column, one of them also in the other column
		scripted := h == 0
		table, dev := fmt.Sprintf("t%d", h), fmt.Sprintf("dev%d", h)
		must("set graph.branch = 'main'")
		must("create table " + table + " (k int primary key, a int not null, b int not null)")
		ours := modelTable{}
		var log []string
		if scripted {
			log = append(log, set("main", table, ours, scriptedModel.setup)...)
		} else {
			log = append(log, ops("main", table, ours, 4)...)
		}
		must("set graph.branch = 'main'")
		must("call graph.create_branch('" + dev + "')")
		base, theirs := ours.clone(), ours.clone()
		for round := range rounds {
			if scripted && round == 0 {
				log = append(log, set("main", table, ours, scriptedModel.ours)...)
				log = append(log, set(dev, table, theirs, scriptedModel.theirs)...)
			} else {
				log = append(log, ops("main", table, ours, 1+rng.IntN(4))...)
				log = append(log, ops(dev, table, theirs, 1+rng.IntN(4))...)
			}
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
				want, _ = modelMerge(base, ours, theirs, true)
				if !scripted && rng.IntN(3) == 0 {
					if err := exec("call graph.merge('" + dev + "', strategy => 'theirs')"); err != nil {
						fail("merge with 'theirs': %v", err)
					}
				} else {
					// staged, checked, then resolved to the source's rows
					staged, conflicts := modelStage(base, ours, theirs)
					must("begin")
					if err := exec("call graph.merge('" + dev + "', strategy => 'stop')"); err != nil {
						fail("merge with 'stop': %v", err)
					}
					if got := rowsOf(table); got != staged.String() {
						fail("staged rows %s, want %s", got, staged)
					}
					if got := conflictsOf(); fmt.Sprint(got) != fmt.Sprint(conflicts) {
						fail("graph.conflicts %v, want %v", got, conflicts)
					}
					keys := make([]int, 0, len(conflicts))
					for k := range conflicts {
						keys = append(keys, k)
					}
					sort.Ints(keys)
					rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
					for _, k := range keys {
						s, inS := theirs[k]
						_, inStaged := staged[k]
						var qs []string
						switch {
						case !inS:
							qs = []string{fmt.Sprintf("delete from %s where k = %d", table, k)}
						case inStaged:
							qs = []string{fmt.Sprintf("update %s set a = %d, b = %d where k = %d", table, s.a, s.b, k)}
						default: // deleted on the target: insert, then mark resolved
							qs = []string{fmt.Sprintf("insert into %s values (%d, %d, %d)", table, k, s.a, s.b),
								fmt.Sprintf("delete from graph.conflicts where key->>'k' = '%d'", k)}
						}
						for _, q := range qs {
							if err := exec(q); err != nil {
								fail("resolving: %s: %v", q, err)
							}
							log = append(log, "resolve: "+q)
						}
						delete(conflicts, k)
						if got := conflictsOf(); fmt.Sprint(got) != fmt.Sprint(conflicts) {
							fail("graph.conflicts after resolving %d: %v, want %v", k, got, conflicts)
						}
					}
					if err := exec("commit"); err != nil {
						fail("commit of the resolved merge: %v", err)
					}
				}
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
