package planner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// A list-append history checker in the style of Jepsen's Elle, over the
// wire, against two pgproxy processes (two graph handles over one data
// directory, each with its own row locks and group commits). Each
// transaction reads some keys (SELECT) and appends unique elements to
// others (INSERT … ON CONFLICT (k) DO UPDATE SET v = t.v || ' ' ||
// excluded.v: the first append creates the key); a key's value is the
// list of its elements. Keys move on as a client's transactions do (a
// window of 6), so lists stay short in long runs. Because every element is unique and lists only grow, the
// final value of each key orders every append to it, and every read is
// a prefix of that order; from that the checker infers the
// write-write, write-read and read-write (anti-) dependencies between
// committed transactions and looks for the anomalies forbidden at the
// isolation level used:
//
//   - at every level: an aborted or intermediate write read (G1a, G1b),
//     an acknowledged append missing from or duplicated in the final
//     value, an aborted append present in it, a read that is no prefix
//     of the final value (incompatible order), and a cycle of
//     write-write and write-read dependencies (G0, G1c);
//   - REPEATABLE READ (snapshot isolation) also: a cycle with exactly
//     one anti-dependency (G-single: read skew, lost update);
//   - SERIALIZABLE: any cycle (G2: write skew included).
//
// PGGRAPH_LISTAPPEND_TXNS sets the transactions per client and level
// (default 20; the closing note's long run used more).

// laOp is one micro-operation: an append of elem to key, or a read of
// key (read holds what it returned).
type laOp struct {
	key    int
	append string
	read   []string
	isRead bool
}

type laTxn struct {
	id     int
	ops    []laOp
	status int    // laOK, laFailed, laUnknown
	code   string // the SQLSTATE that ended it, if any
}

const (
	laOK = iota
	laFailed
	laUnknown
)

func TestListAppendHistory(t *testing.T) {
	perClient := 20
	if v := os.Getenv("PGGRAPH_LISTAPPEND_TXNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("PGGRAPH_LISTAPPEND_TXNS=%q", v)
		}
		perClient = n
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var servers [2]*testServer
	for i := range servers {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: i == 0, Actor: "test", Location: dir, AutoOptimizeFragments: 64})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		servers[i] = startServerOn(t, g)
	}
	const keys, clients = 6, 8
	setup := servers[0].connect(t, pgx.QueryExecModeExec)
	for _, level := range isoLevels {
		table := "la_" + strings.ReplaceAll(strings.ToLower(level), " ", "_")
		if _, err := setup.Exec(ctx, "CREATE TABLE "+table+" (k int8 PRIMARY KEY, v text NOT NULL)"); err != nil {
			t.Fatal(err)
		}
		txns := runListAppend(t, servers, table, level, clients, perClient, keys)
		final := map[int][]string{}
		rows, err := setup.Query(ctx, "SELECT k, v FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k int
			var v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			final[k] = strings.Fields(v)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		ok, codes := 0, map[string]int{}
		for _, tx := range txns {
			if tx.status == laOK {
				ok++
			} else {
				codes[tx.code]++
			}
		}
		t.Logf("%s: %d transactions, %d committed, failed by SQLSTATE %v", level, len(txns), ok, codes)
		for code := range codes {
			if code != "40001" && code != "40P01" {
				t.Errorf("%s: %d transactions failed with %q (only serialization failures and deadlocks are expected)", level, codes[code], code)
			}
		}
		if ok == 0 {
			t.Fatalf("%s: no transaction committed", level)
		}
		for _, a := range checkListAppend(txns, final, level) {
			t.Errorf("%s: %s", level, a)
		}
	}
}

// runListAppend runs clients (half on each server) each running n
// random transactions at level, without retries, and returns the
// history.
func runListAppend(t *testing.T, servers [2]*testServer, table, level string, clients, n, keys int) []*laTxn {
	t.Helper()
	ctx := context.Background()
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = servers[i%2].connect(t, pgx.QueryExecModeExec)
	}
	var mu sync.Mutex
	var all []*laTxn
	var wg sync.WaitGroup
	for ci, c := range conns {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(ci), uint64(len(table))))
			for i := range n {
				tx := &laTxn{id: ci*n + i}
				for j, m := 0, 1+r.IntN(4); j < m; j++ {
					op := laOp{key: 1 + i/40*2 + r.IntN(keys), isRead: r.IntN(2) == 0}
					if !op.isRead {
						op.append = fmt.Sprintf("%d.%d.%d", ci, i, j)
					}
					tx.ops = append(tx.ops, op)
				}
				tx.status = runLATxn(ctx, c, table, level, tx)
				mu.Lock()
				all = append(all, tx)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return all
}

// runLATxn runs one transaction and classifies its outcome: committed,
// definitely failed (a serialization failure or deadlock, after which
// nothing of it is visible), or unknown.
func runLATxn(ctx context.Context, c *pgx.Conn, table, level string, tx *laTxn) int {
	outcome := func(err error) int {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			tx.code = pe.Code
		}
		if tx.code == "40001" || tx.code == "40P01" {
			return laFailed
		}
		return laUnknown
	}
	if _, err := c.Exec(ctx, "BEGIN ISOLATION LEVEL "+level); err != nil {
		return laUnknown
	}
	for i := range tx.ops {
		op := &tx.ops[i]
		var err error
		if op.isRead {
			var v string
			err = c.QueryRow(ctx, "SELECT v FROM "+table+" WHERE k = $1", op.key).Scan(&v)
			if errors.Is(err, pgx.ErrNoRows) {
				err = nil // a key not appended to yet: the empty list
			}
			op.read = strings.Fields(v)
		} else {
			_, err = c.Exec(ctx, "INSERT INTO "+table+" AS t (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = t.v || ' ' || excluded.v", op.key, op.append)
		}
		if err != nil {
			_, _ = c.Exec(ctx, "ROLLBACK")
			if o := outcome(err); o == laFailed {
				return o
			}
			// any other error before COMMIT also aborts the transaction
			return laFailed
		}
	}
	if _, err := c.Exec(ctx, "COMMIT"); err != nil {
		return outcome(err)
	}
	return laOK
}

// checkListAppend returns the anomalies of the history forbidden at
// level (see TestListAppendHistory).
func checkListAppend(txns []*laTxn, final map[int][]string, level string) []string {
	var bad []string
	type pos struct{ key, idx int }
	writer := map[string]*laTxn{}  // element -> the transaction that appended it
	lastOwn := map[[2]int]string{} // (txn, key) -> its last append to key
	for _, tx := range txns {
		for _, op := range tx.ops {
			if !op.isRead {
				writer[op.append] = tx
				lastOwn[[2]int{tx.id, op.key}] = op.append
			}
		}
	}
	where := map[string]pos{}
	for k, l := range final {
		for i, e := range l {
			if p, dup := where[e]; dup {
				bad = append(bad, fmt.Sprintf("element %s appears twice (key %d at %d, key %d at %d)", e, p.key, p.idx, k, i))
			}
			where[e] = pos{k, i}
			w := writer[e]
			switch {
			case w == nil:
				bad = append(bad, fmt.Sprintf("key %d holds %s, which no transaction appended", k, e))
			case w.status == laFailed:
				bad = append(bad, fmt.Sprintf("key %d holds %s of aborted transaction %d (G1a)", k, e, w.id))
			}
		}
	}
	for _, tx := range txns {
		for _, op := range tx.ops {
			if _, in := where[op.append]; !op.isRead && tx.status == laOK && !in {
				bad = append(bad, fmt.Sprintf("committed transaction %d's append %s to key %d is lost", tx.id, op.append, op.key))
			}
		}
	}
	// dependency graph among committed transactions
	idx := map[int]int{}
	var nodes []*laTxn
	for _, tx := range txns {
		if tx.status == laOK {
			idx[tx.id] = len(nodes)
			nodes = append(nodes, tx)
		}
	}
	const (
		ww = 1 << iota
		wr
		rw
	)
	edges := make([]map[int]int, len(nodes))
	add := func(from, to *laTxn, kind int) {
		if from == nil || to == nil || from == to || from.status != laOK || to.status != laOK {
			return
		}
		a, b := idx[from.id], idx[to.id]
		if edges[a] == nil {
			edges[a] = map[int]int{}
		}
		edges[a][b] |= kind
	}
	for _, l := range final {
		for i := 1; i < len(l); i++ {
			add(writer[l[i-1]], writer[l[i]], ww)
		}
	}
	for _, tx := range txns {
		for _, op := range tx.ops {
			if !op.isRead {
				continue
			}
			l := final[op.key]
			for _, e := range op.read {
				if w := writer[e]; w != nil && w != tx && w.status == laFailed {
					bad = append(bad, fmt.Sprintf("transaction %d read %s of aborted transaction %d (G1a)", tx.id, e, w.id))
				}
			}
			if tx.status != laOK {
				continue
			}
			if len(op.read) > len(l) || !slices.Equal(op.read, l[:len(op.read)]) {
				bad = append(bad, fmt.Sprintf("transaction %d read key %d as %v, not a prefix of its final value %v (incompatible order)", tx.id, op.key, op.read, l))
				continue
			}
			if n := len(op.read); n > 0 {
				w := writer[op.read[n-1]]
				if w != nil && w != tx && lastOwn[[2]int{w.id, op.key}] != op.read[n-1] {
					bad = append(bad, fmt.Sprintf("transaction %d read key %d ending in %s, an intermediate append of transaction %d (G1b)", tx.id, op.key, op.read[n-1], w.id))
				}
				add(w, tx, wr)
			}
			if len(op.read) < len(l) {
				add(tx, writer[l[len(op.read)]], rw)
			}
		}
	}
	reach := func(from, to, mask int) bool {
		seen := make([]bool, len(nodes))
		stack := []int{from}
		seen[from] = true
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == to {
				return true
			}
			for m, kind := range edges[n] {
				if kind&mask != 0 && !seen[m] {
					seen[m] = true
					stack = append(stack, m)
				}
			}
		}
		return false
	}
	// a cycle through edge a→b is a path b ⇝ a: only edges inside one
	// strongly connected component need the search
	sccW, sccAll := components(edges, ww|wr), components(edges, ww|wr|rw)
	for a := range nodes {
		for b, kind := range edges[a] {
			if sccAll[a] != sccAll[b] {
				continue
			}
			if kind&(ww|wr) != 0 && sccW[a] == sccW[b] && reach(b, a, ww|wr) {
				bad = append(bad, fmt.Sprintf("cycle of write dependencies through transactions %d and %d (G0/G1c)", nodes[a].id, nodes[b].id))
			} else if level != "READ COMMITTED" && kind&rw != 0 && reach(b, a, ww|wr) {
				bad = append(bad, fmt.Sprintf("cycle with one anti-dependency %d → %d (G-single)", nodes[a].id, nodes[b].id))
			} else if level == "SERIALIZABLE" && reach(b, a, ww|wr|rw) {
				bad = append(bad, fmt.Sprintf("dependency cycle through transactions %d and %d (G2)", nodes[a].id, nodes[b].id))
			}
		}
	}
	if len(bad) > 10 {
		bad = append(bad[:10], fmt.Sprintf("… and %d more", len(bad)-10))
	}
	return bad
}

// components numbers the strongly connected components of the graph of
// the edges whose kind has a bit of mask (Tarjan's algorithm, with an
// explicit stack: histories are long).
func components(edges []map[int]int, mask int) []int {
	n := len(edges)
	index, low, comp := make([]int, n), make([]int, n), make([]int, n)
	for i := range index {
		index[i], comp[i] = -1, -1
	}
	onStack := make([]bool, n)
	var stack []int
	next, ncomp := 0, 0
	type frame struct {
		v    int
		succ []int
		i    int
	}
	for root := range n {
		if index[root] >= 0 {
			continue
		}
		succOf := func(v int) []int {
			var out []int
			for m, kind := range edges[v] {
				if kind&mask != 0 {
					out = append(out, m)
				}
			}
			return out
		}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		calls := []frame{{v: root, succ: succOf(root)}}
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			if f.i < len(f.succ) {
				w := f.succ[f.i]
				f.i++
				if index[w] < 0 {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					calls = append(calls, frame{v: w, succ: succOf(w)})
				} else if onStack[w] {
					low[f.v] = min(low[f.v], index[w])
				}
				continue
			}
			v := f.v
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp
}

// TestListAppendChecker: the checker finds each anomaly in a small
// hand-made history and none in a serial one.
func TestListAppendChecker(t *testing.T) {
	ap := func(k int, e string) laOp { return laOp{key: k, append: e} }
	rd := func(k int, l ...string) laOp { return laOp{key: k, isRead: true, read: l} }
	tx := func(id, status int, ops ...laOp) *laTxn { return &laTxn{id: id, status: status, ops: ops} }
	for _, tc := range []struct {
		name  string
		txns  []*laTxn
		final map[int][]string
		level string
		want  string // a substring of the first anomaly; "" = none
	}{
		{"serial", []*laTxn{tx(1, laOK, ap(1, "a"), rd(2)), tx(2, laOK, rd(1, "a"), ap(2, "b")), tx(3, laFailed, ap(1, "x"), rd(1, "a", "x"))},
			map[int][]string{1: {"a"}, 2: {"b"}}, "SERIALIZABLE", ""},
		{"lost append", []*laTxn{tx(1, laOK, ap(1, "a")), tx(2, laOK, ap(1, "b"))},
			map[int][]string{1: {"b"}}, "READ COMMITTED", "is lost"},
		{"aborted append visible", []*laTxn{tx(1, laFailed, ap(1, "a"))},
			map[int][]string{1: {"a"}}, "READ COMMITTED", "G1a"},
		{"aborted read", []*laTxn{tx(1, laFailed, ap(1, "a")), tx(2, laOK, rd(1, "a"))},
			map[int][]string{1: {}}, "READ COMMITTED", "G1a"},
		{"intermediate read", []*laTxn{tx(1, laOK, ap(1, "a"), ap(1, "b")), tx(2, laOK, rd(1, "a"))},
			map[int][]string{1: {"a", "b"}}, "READ COMMITTED", "G1b"},
		{"incompatible order", []*laTxn{tx(1, laOK, ap(1, "a")), tx(2, laOK, ap(1, "b")), tx(3, laOK, rd(1, "b"))},
			map[int][]string{1: {"a", "b"}}, "READ COMMITTED", "not a prefix"},
		{"write cycle", []*laTxn{tx(1, laOK, ap(1, "a"), ap(2, "d")), tx(2, laOK, ap(1, "b"), ap(2, "c"))},
			map[int][]string{1: {"a", "b"}, 2: {"c", "d"}}, "READ COMMITTED", "G0/G1c"},
		// T2 reads key 1 before T1's append but key 2 after it
		{"read skew", []*laTxn{tx(1, laOK, ap(1, "a"), ap(2, "b")), tx(2, laOK, rd(1), rd(2, "b"))},
			map[int][]string{1: {"a"}, 2: {"b"}}, "REPEATABLE READ", "G-single"},
		{"read skew allowed at read committed", []*laTxn{tx(1, laOK, ap(1, "a"), ap(2, "b")), tx(2, laOK, rd(1), rd(2, "b"))},
			map[int][]string{1: {"a"}, 2: {"b"}}, "READ COMMITTED", ""},
		// each reads the key the other appends to, before the append
		{"write skew", []*laTxn{tx(1, laOK, rd(2), ap(1, "a")), tx(2, laOK, rd(1), ap(2, "b"))},
			map[int][]string{1: {"a"}, 2: {"b"}}, "SERIALIZABLE", "G2"},
		{"write skew allowed at repeatable read", []*laTxn{tx(1, laOK, rd(2), ap(1, "a")), tx(2, laOK, rd(1), ap(2, "b"))},
			map[int][]string{1: {"a"}, 2: {"b"}}, "REPEATABLE READ", ""},
	} {
		got := checkListAppend(tc.txns, tc.final, tc.level)
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: unexpected anomalies %v", tc.name, got)
		case tc.want != "" && (len(got) == 0 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s: anomalies %v, want one naming %q", tc.name, got, tc.want)
		}
	}
}
