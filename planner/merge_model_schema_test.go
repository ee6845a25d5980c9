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

// schemaCol is one column of the schema model: a stable id (the model's
// column identity, as the catalog's column ids), its current name and
// its DEFAULT.
type schemaCol struct {
	id   int
	name string
	def  int
}

// schemaModel is one branch's table t(k int primary key, columns…):
// its non-key columns in order and its rows by key and column id.
type schemaModel struct {
	cols []schemaCol
	rows map[int]map[int]int
}

func (m *schemaModel) clone() *schemaModel {
	out := &schemaModel{cols: append([]schemaCol(nil), m.cols...), rows: map[int]map[int]int{}}
	for k, r := range m.rows {
		c := map[int]int{}
		for id, v := range r {
			c[id] = v
		}
		out.rows[k] = c
	}
	return out
}

func (m *schemaModel) col(id int) (schemaCol, bool) {
	for _, c := range m.cols {
		if c.id == id {
			return c, true
		}
	}
	return schemaCol{}, false
}

// String renders the model as the test reads the table: the column
// names, then the rows in key order.
func (m *schemaModel) String() string {
	names := []string{"k"}
	for _, c := range m.cols {
		names = append(names, c.name)
	}
	keys := make([]int, 0, len(m.rows))
	for k := range m.rows {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var b strings.Builder
	b.WriteString(strings.Join(names, ","))
	for _, k := range keys {
		fmt.Fprintf(&b, ";%d", k)
		for _, c := range m.cols {
			fmt.Fprintf(&b, "|%d", m.rows[k][c.id])
		}
	}
	return b.String()
}

// Outcomes of a modelled merge.
const (
	mergeClean          = iota
	mergeRowConflict    // 40001, settled by 'ours' / 'theirs' / 'stop'
	mergeSchemaConflict // 40001 for every strategy
)

// modelSchemaMerge is the merge the model expects of theirs (the source)
// into ours (the target) from base. Columns merge three ways by id: the
// target's in order, then the source's added ones; a rename or drop on
// one side applies, a column renamed on both, or dropped on one and
// renamed on the other, is a schema conflict. Rows merge per key and
// per column: a column only one side has takes that side's value (its
// DEFAULT for rows the other side added); a column both have merges
// three ways against the base (a column not in the base: its DEFAULT);
// a row one side deleted merges when the other left it as in the base
// (in every column it has); anything else is a row conflict, which
// strategy ("ours", "theirs") settles with that side's row whole (its
// missing columns their DEFAULT); "stop" is the staged result each
// conflict keeps when its staged row is accepted as it is: the target's
// row (none where it deleted the row), for a row both have its
// per-column merge with the target's values where both set a column.
func modelSchemaMerge(base, ours, theirs *schemaModel, strategy string) (*schemaModel, int) {
	out := &schemaModel{rows: map[int]map[int]int{}}
	schemaConflict := false
	for _, tc := range ours.cols {
		bc, inB := base.col(tc.id)
		if !inB {
			out.cols = append(out.cols, tc)
			continue
		}
		sc, inS := theirs.col(tc.id)
		switch {
		case !inS && tc.name != bc.name:
			schemaConflict = true
		case !inS:
		case sc.name != bc.name && tc.name != bc.name && sc.name != tc.name:
			schemaConflict = true
		case sc.name != bc.name:
			tc.name = sc.name
			out.cols = append(out.cols, tc)
		default:
			out.cols = append(out.cols, tc)
		}
	}
	for _, sc := range theirs.cols {
		bc, inB := base.col(sc.id)
		_, inT := ours.col(sc.id)
		switch {
		case !inB:
			out.cols = append(out.cols, sc)
		case !inT && sc.name != bc.name:
			schemaConflict = true
		}
	}
	if schemaConflict {
		return nil, mergeSchemaConflict
	}
	// bv is the base's value of column id in row b (its DEFAULT when the
	// base has no such column)
	bv := func(b map[int]int, id int) int {
		if _, ok := base.col(id); ok {
			return b[id]
		}
		for _, m := range []*schemaModel{ours, theirs} {
			if c, ok := m.col(id); ok {
				return c.def
			}
		}
		panic("unknown column")
	}
	unchanged := func(b, r map[int]int, side *schemaModel) bool {
		for _, c := range side.cols {
			if r[c.id] != bv(b, c.id) {
				return false
			}
		}
		return true
	}
	fill := func(r map[int]int, side *schemaModel) map[int]int {
		row := map[int]int{}
		for _, c := range out.cols {
			if _, ok := side.col(c.id); ok {
				row[c.id] = r[c.id]
			} else {
				row[c.id] = c.def
			}
		}
		return row
	}
	keys := map[int]bool{}
	for _, m := range []*schemaModel{base, ours, theirs} {
		for k := range m.rows {
			keys[k] = true
		}
	}
	conflict := false
	for k := range keys {
		b, inB := base.rows[k]
		o, inO := ours.rows[k]
		s, inS := theirs.rows[k]
		var row map[int]int
		ok := true
		switch {
		case !inO && !inS:
			continue
		case inB && !inS:
			if unchanged(b, o, ours) {
				continue
			}
			ok = false
		case inB && !inO:
			if unchanged(b, s, theirs) {
				continue
			}
			ok = false
		case !inO:
			row = fill(s, theirs)
		case !inS:
			row = fill(o, ours)
		case !inB:
			panic("the model's branches insert disjoint keys")
		default:
			row = map[int]int{}
			for _, c := range out.cols {
				_, cO := ours.col(c.id)
				_, cS := theirs.col(c.id)
				switch ov, sv := o[c.id], s[c.id]; {
				case !cS:
					row[c.id] = ov
				case !cO:
					row[c.id] = sv
				case sv == ov || sv == bv(b, c.id):
					row[c.id] = ov
				case ov == bv(b, c.id):
					row[c.id] = sv
				default:
					ok = false
					row[c.id] = ov
				}
			}
		}
		if !ok {
			conflict = true
			staged := row
			row = nil
			switch {
			case strategy == "ours" && inO:
				row = fill(o, ours)
			case strategy == "theirs" && inS:
				row = fill(s, theirs)
			case strategy == "stop" && inO && inS:
				row = staged
			case strategy == "stop" && inO:
				row = fill(o, ours)
			}
		}
		if row != nil {
			out.rows[k] = row
		}
	}
	if conflict {
		return out, mergeRowConflict
	}
	return out, mergeClean
}

// TestMergeModelSchemaRandomized runs random histories on two branches
// of a table whose columns change as well as its rows — ADD COLUMN with
// a DEFAULT, DROP COLUMN and RENAME COLUMN on either branch, inserts
// (disjoint keys per branch), per-column updates and deletes; three
// merge rounds (each round's base is the previous merge) — and checks
// every merge against modelSchemaMerge: the merged columns (names and
// order) and rows, a schema conflict refused for every strategy, a row
// conflict refused and then settled with 'ours' or 'theirs', or staged
// with 'stop' (the staged rows checked in the transaction, accepted with
// DELETE FROM graph.conflicts and committed). A refused
// merge changes nothing. This covers merges with schema changes on
// neither, one (merge_recolumn.go) or both sides
// (merge_recolumn_both.go), after earlier such merges. Bounded; the
// seed is printed on failure (rerun with -merge.seed).
func TestMergeModelSchemaRandomized(t *testing.T) {
	seed := *mergeModelSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("rerun with: go test ./planner -run TestMergeModelSchemaRandomized -merge.seed=%d", seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, 0x5c4e))
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
	var rowsOf func(table string) string
	read := func(branch, table string) string {
		t.Helper()
		must("set graph.branch = '" + branch + "'")
		return rowsOf(table)
	}
	rowsOf = func(table string) string {
		t.Helper()
		rows, err := c.Query(ctx, "select * from "+table+" order by k")
		if err != nil {
			t.Fatalf("seed %d: read %s: %v", seed, table, err)
		}
		var names []string
		for _, f := range rows.FieldDescriptions() {
			names = append(names, f.Name)
		}
		var b strings.Builder
		b.WriteString(strings.Join(names, ","))
		for rows.Next() {
			vals, err := rows.Values()
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				sep := "|"
				if i == 0 {
					sep = ";"
				}
				if v == nil {
					b.WriteString(sep + "NULL")
				} else {
					fmt.Fprintf(&b, "%s%v", sep, v)
				}
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	nextID, nextName := 100, 0
	name := func(prefix string) string {
		nextName++
		return fmt.Sprintf("%s%d", prefix, nextName)
	}
	// ops applies n random statements to one branch's table and model;
	// the branch inserts keys of its parity only
	ops := func(branch, table string, m *schemaModel, n, parity int) []string {
		must("set graph.branch = '" + branch + "'")
		var log []string
		for range n {
			keys := make([]int, 0, len(m.rows))
			for k := range m.rows {
				keys = append(keys, k)
			}
			sort.Ints(keys)
			var q string
			switch op := rng.IntN(10); {
			case op == 0: // ADD COLUMN
				col := schemaCol{id: nextID, name: name("c"), def: rng.IntN(3)}
				nextID++
				q = fmt.Sprintf("alter table %s add column %s int default %d", table, col.name, col.def)
				m.cols = append(m.cols, col)
				for _, r := range m.rows {
					r[col.id] = col.def
				}
			case op == 1 && len(m.cols) > 0: // DROP COLUMN
				i := rng.IntN(len(m.cols))
				q = fmt.Sprintf("alter table %s drop column %s", table, m.cols[i].name)
				for _, r := range m.rows {
					delete(r, m.cols[i].id)
				}
				m.cols = append(m.cols[:i:i], m.cols[i+1:]...)
			case op == 2 && len(m.cols) > 0: // RENAME COLUMN
				i := rng.IntN(len(m.cols))
				to := name("r")
				q = fmt.Sprintf("alter table %s rename column %s to %s", table, m.cols[i].name, to)
				m.cols[i].name = to
			case op <= 4 || len(keys) == 0: // INSERT
				k := 2*rng.IntN(8) + parity
				if _, ok := m.rows[k]; ok {
					continue
				}
				r := map[int]int{}
				names, vals := []string{"k"}, []string{fmt.Sprint(k)}
				for _, col := range m.cols {
					r[col.id] = rng.IntN(3)
					names, vals = append(names, col.name), append(vals, fmt.Sprint(r[col.id]))
				}
				q = fmt.Sprintf("insert into %s (%s) values (%s)", table, strings.Join(names, ", "), strings.Join(vals, ", "))
				m.rows[k] = r
			case op == 5: // DELETE
				k := keys[rng.IntN(len(keys))]
				q = fmt.Sprintf("delete from %s where k = %d", table, k)
				delete(m.rows, k)
			default: // UPDATE of one column
				if len(m.cols) == 0 {
					continue
				}
				k, col, v := keys[rng.IntN(len(keys))], m.cols[rng.IntN(len(m.cols))], rng.IntN(3)
				q = fmt.Sprintf("update %s set %s = %d where k = %d", table, col.name, v, k)
				m.rows[k][col.id] = v
			}
			must(q)
			log = append(log, branch+": "+q)
		}
		return log
	}
	const histories, rounds = 12, 3
	counts := map[string]int{}
	for h := range histories {
		table, dev := fmt.Sprintf("s%d", h), fmt.Sprintf("sdev%d", h)
		must("set graph.branch = 'main'")
		must("create table " + table + " (k int primary key, a int default 0, b int default 0)")
		ours := &schemaModel{cols: []schemaCol{{id: 1, name: "a"}, {id: 2, name: "b"}}, rows: map[int]map[int]int{}}
		log := ops("main", table, ours, 4, 0)
		must("set graph.branch = 'main'")
		must("call graph.create_branch('" + dev + "')")
		base, theirs := ours.clone(), ours.clone()
		for round := range rounds {
			log = append(log, ops("main", table, ours, 1+rng.IntN(4), 0)...)
			log = append(log, ops(dev, table, theirs, 1+rng.IntN(4), 1)...)
			want, outcome := modelSchemaMerge(base, ours, theirs, "")
			fail := func(format string, args ...any) {
				t.Fatalf("seed %d, history %d, round %d: %s\nbase   %v\nours   %v\ntheirs %v\nstatements:\n%s", seed, h, round,
					fmt.Sprintf(format, args...), base, ours, theirs, strings.Join(log, "\n"))
			}
			before := read("main", table)
			if before != ours.String() {
				fail("main holds %s, the model %s", before, ours)
			}
			must("set graph.branch = 'main'")
			err := exec("call graph.merge('" + dev + "')")
			switch outcome {
			case mergeSchemaConflict, mergeRowConflict:
				if sqlState(err) != "40001" {
					fail("merge: %v, want a 40001 conflict (outcome %d)", err, outcome)
				}
				if got := read("main", table); got != before {
					fail("a refused merge changed main: %s, was %s", got, before)
				}
				strategy := []string{"ours", "theirs", "stop", "stop"}[rng.IntN(4)]
				must("set graph.branch = 'main'")
				if strategy == "stop" && outcome == mergeRowConflict {
					// staged: the staged rows are the model's, every
					// conflict is listed; accepted as staged and committed
					must("begin")
					must("call graph.merge('" + dev + "', strategy => 'stop')")
					want, _ = modelSchemaMerge(base, ours, theirs, strategy)
					if got := rowsOf(table); got != want.String() {
						must("rollback")
						fail("staged %s, want %s", got, want)
					}
					var n int
					if err := c.QueryRow(ctx, "select count(*) from graph.conflicts").Scan(&n); err != nil || n == 0 {
						must("rollback")
						fail("graph.conflicts lists %d rows (%v), want the conflicts", n, err)
					}
					must("delete from graph.conflicts")
					err = exec("commit")
					log = append(log, fmt.Sprintf("merge conflict (outcome %d), then stop: %d conflicts accepted as staged", outcome, n))
					counts["row conflict staged"]++
					if err != nil {
						fail("commit of the staged merge: %v", err)
					}
					if got := read("main", table); got != want.String() {
						fail("merged %s, want %s", got, want)
					}
					log = append(log, fmt.Sprintf("merged → %s", want))
					ours, base = want, theirs.clone()
					continue
				}
				if strategy == "stop" { // a schema conflict: refused when staging
					must("begin")
					err = exec("call graph.merge('" + dev + "', strategy => 'stop')")
					must("rollback")
				} else {
					err = exec("call graph.merge('" + dev + "', strategy => '" + strategy + "')")
				}
				log = append(log, fmt.Sprintf("merge conflict (outcome %d), then %s", outcome, strategy))
				if outcome == mergeSchemaConflict {
					counts["schema conflict"]++
					if sqlState(err) != "40001" {
						fail("merge with %s of a schema conflict: %v, want 40001", strategy, err)
					}
					continue // not merged: the next round has the same base
				}
				counts["row conflict"]++
				if err != nil {
					fail("merge with %s: %v", strategy, err)
				}
				want, _ = modelSchemaMerge(base, ours, theirs, strategy)
			default:
				counts["clean"]++
				if err != nil {
					fail("merge: %v, want %v", err, want)
				}
			}
			if got := read("main", table); got != want.String() {
				fail("merged %s, want %s", got, want)
			}
			if got := read(dev, table); got != theirs.String() {
				fail("the source changed: %s, want %s", got, theirs)
			}
			log = append(log, fmt.Sprintf("merged → %s", want))
			ours, base = want, theirs.clone()
		}
	}
	t.Logf("seed %d: merges %v", seed, counts)
}
