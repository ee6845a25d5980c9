package planner

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// stagedScript is a session of transactions whose pending rows are read,
// changed, checked and committed in every way a statement can: each line
// is a statement, and its outcome (rows or SQLSTATE) is compared between
// a run that keeps pending rows in memory and one that stages every
// record to disk as soon as it is added.
var stagedScript = []string{
	"CREATE TABLE t (id int8 PRIMARY KEY, v text, n int4)",
	"CREATE TABLE vec (id int PRIMARY KEY, e vector(3))",
	"CREATE TABLE child (id int PRIMARY KEY, t_id int8 REFERENCES t(id))",
	"BEGIN",
	"INSERT INTO t SELECT g, 'row ' || g, g % 7 FROM generate_series(1, 5000) g",
	"INSERT INTO t VALUES (5001, 'one', 1)",
	"SELECT count(*), sum(id), min(v), max(n) FROM t",
	"SELECT v FROM t WHERE id = 4321",
	"INSERT INTO t VALUES (17, 'dup', 0)",
	"ROLLBACK",
	"BEGIN",
	"INSERT INTO t SELECT g, 'row ' || g, g % 7 FROM generate_series(1, 3000) g",
	"UPDATE t SET v = 'upd ' || id WHERE id % 10 = 0",
	"DELETE FROM t WHERE id BETWEEN 100 AND 199",
	"SAVEPOINT s1",
	"INSERT INTO t SELECT g, 'late', 1 FROM generate_series(3001, 3500) g",
	"UPDATE t SET n = n + 100 WHERE id > 2990",
	"ROLLBACK TO SAVEPOINT s1",
	"INSERT INTO child VALUES (1, 20), (2, 2999)",
	"INSERT INTO child VALUES (3, 150)",
	"ROLLBACK TO SAVEPOINT s1",
	"SELECT count(*), sum(id), count(*) FILTER (WHERE v LIKE 'upd%'), sum(n) FROM t",
	"INSERT INTO vec SELECT g, ARRAY[g, g + 1, g + 2]::vector(3) FROM generate_series(1, 200) g",
	"SELECT e FROM vec WHERE id = 150",
	"UPDATE vec SET e = ARRAY[0, 0, 0]::vector(3) WHERE id < 10",
	"INSERT INTO t VALUES (2999, 'dup', 0) ON CONFLICT (id) DO UPDATE SET v = 'conflict'",
	"INSERT INTO t VALUES (2998, 'dup', 0) ON CONFLICT DO NOTHING",
	"COMMIT",
	"SELECT count(*), sum(id), count(*) FILTER (WHERE v LIKE 'upd%'), sum(n), max(v) FROM t",
	"SELECT v FROM t WHERE id = 2999",
	"SELECT count(*), sum(id) FROM vec WHERE e = ARRAY[0, 0, 0]::vector(3)",
	"SELECT e FROM vec WHERE id = 150",
	// INSERT … SELECT streamed in chunks (every batch one chunk when
	// staged): a key repeated across chunks, a CHECK failing in a later
	// chunk, sequence defaults and RETURNING over every chunk, and a
	// source reading the target (not streamed: it reads the snapshot)
	"CREATE TABLE s (id serial PRIMARY KEY, k int8 UNIQUE, n int4 CHECK (n < 4500))",
	"INSERT INTO s SELECT g + 100000, g % 3000, 1 FROM generate_series(1, 4000) g",
	"INSERT INTO s SELECT g + 100000, g, g FROM generate_series(1, 5000) g",
	"INSERT INTO s (k, n) SELECT g, g % 4000 FROM generate_series(1, 5000) g RETURNING id % 1000, k",
	"SELECT count(*), sum(id), sum(k), max(id) FROM s",
	"BEGIN",
	"INSERT INTO s (k, n) SELECT k + 5000, n FROM s",
	"INSERT INTO s SELECT g + 100000, g + 20000, 1 FROM generate_series(1, 3000) g",
	"SELECT count(*), sum(id), sum(k), count(DISTINCT k) FROM s",
	"SAVEPOINT a",
	"INSERT INTO s SELECT g + 200000, g + 20000, 1 FROM generate_series(2500, 3100) g",
	"ROLLBACK TO SAVEPOINT a",
	"COMMIT",
	"SELECT count(*), sum(id), sum(k) FROM s",
	"BEGIN",
	"DELETE FROM t WHERE id > 1000",
	"INSERT INTO t SELECT g, 'again', 2 FROM generate_series(2001, 2600) g",
	"COMMIT",
	"SELECT count(*), sum(id), count(*) FILTER (WHERE v = 'again') FROM t",
	// sources reading the target through a view, a CTE and a correlated
	// subquery stream too and see the rows from before the statement,
	// never its earlier chunks
	"CREATE VIEW sv AS SELECT k FROM s WHERE k < 1000000",
	"INSERT INTO s (k, n) SELECT k + 1000000, 1 FROM sv",
	"WITH c AS (SELECT k FROM s) INSERT INTO s (k, n) SELECT k + 3000000, 2 FROM c",
	"INSERT INTO s (k, n) SELECT g, (SELECT count(*) FROM s s2 WHERE s2.k = g - 1) FROM generate_series(5000001, 5006000) g",
	"SELECT count(*), sum(k), sum(n), count(*) FILTER (WHERE k > 5000000 AND n = 1) FROM s",
	// UPDATE chunk by chunk: a plain one, one reading the target in a
	// correlated subquery (it sees the values from before the statement),
	// a join matching every row twice (updated once), a CHECK failing in
	// a later chunk (nothing of the statement stays), after pending
	// deletes, over the transaction's own pending rows (again reading
	// them, again matching them twice), in a savepoint; and the forms
	// that are not chunked (a key assigned, RETURNING). The self-reading
	// UPDATE after the pending deletes picks rows spread over the scan
	// (id % 100 = 1: rows an earlier statement did not rewrite together),
	// so staged it spans several chunks and a row of a later chunk reads
	// the base row an earlier chunk replaced (selfReading)
	"CREATE TABLE u (id int8 PRIMARY KEY, g int4, n int4 CHECK (n < 10000), v text)",
	"INSERT INTO u SELECT g, g % 10, g % 2000, 'v' || g FROM generate_series(1, 12000) g",
	"UPDATE u SET n = n + 1, v = v || 'x'",
	"SELECT count(*), sum(n), sum(length(v)) FROM u",
	"UPDATE u SET n = coalesce((SELECT u2.n FROM u u2 WHERE u2.id = u.id - 6000), -100) + 2 WHERE id % 100 = 0",
	"SELECT count(*), sum(n), min(n), max(n) FROM u",
	"UPDATE u SET n = u.n + 3 FROM (SELECT id FROM u UNION ALL SELECT id FROM u) d WHERE d.id = u.id AND u.g < 5",
	"SELECT count(*), sum(n) FROM u",
	"UPDATE u SET n = id",
	"SELECT count(*), sum(n) FROM u",
	"BEGIN",
	"DELETE FROM u WHERE id <= 50",
	"UPDATE u SET n = coalesce((SELECT u2.n FROM u u2 WHERE u2.id = u.id - 6000), -1) + 1 WHERE id % 100 = 1",
	"SELECT count(*), sum(n), min(n), count(*) FILTER (WHERE n = 0) FROM u",
	"UPDATE u SET n = 7 WHERE g <> 3",
	"UPDATE u SET n = coalesce((SELECT u2.n FROM u u2 WHERE u2.id = u.id - 6000), -1) % 1000 + 1 WHERE id % 100 = 50",
	"UPDATE u SET n = u.n + 3 FROM (SELECT id FROM u UNION ALL SELECT id FROM u) d WHERE d.id = u.id AND u.g < 5",
	"SELECT count(*), sum(n), min(n), count(*) FILTER (WHERE n = 0) FROM u",
	"SAVEPOINT a",
	"UPDATE u SET n = n + 1",
	"SELECT count(*), sum(n) FROM u",
	"UPDATE u SET n = id",
	"ROLLBACK TO SAVEPOINT a",
	"SELECT count(*), sum(n) FROM u",
	"UPDATE u SET id = id + 100000 WHERE g = 1",
	"UPDATE u SET n = n + 1 WHERE g = 2 RETURNING id % 7, n",
	"COMMIT",
	"SELECT count(*), sum(id), sum(n), sum(length(v)) FROM u",
	"BEGIN",
	"INSERT INTO u SELECT g, 1, 1, 'p' FROM generate_series(200001, 202500) g",
	"UPDATE u SET n = n + 1",
	"COMMIT",
	"SELECT count(*), sum(id), sum(n) FROM u",
	// MERGE chunk by chunk: updates and inserts, a source reading the
	// target (it sees the rows from before the statement), a row matched
	// twice across chunks (21000), deletes with updates, a CHECK failing
	// in a later chunk, a key inserted twice across chunks (23505)
	"CREATE TABLE mt (id int8 PRIMARY KEY, n int4 CHECK (n < 500000), v text)",
	"INSERT INTO mt SELECT g, g % 100, 'v' || g FROM generate_series(1, 3000) g",
	"MERGE INTO mt USING generate_series(1, 4500) AS s(x) ON mt.id = s.x WHEN MATCHED AND s.x % 2 = 0 THEN UPDATE SET n = n + 1 WHEN NOT MATCHED THEN INSERT VALUES (s.x, 0, 'new')",
	"SELECT count(*), sum(id), sum(n), count(*) FILTER (WHERE v = 'new') FROM mt",
	"MERGE INTO mt USING (SELECT id, n FROM mt) AS s ON mt.id = s.id + 1 WHEN MATCHED THEN UPDATE SET n = s.n + 1",
	"SELECT count(*), sum(n), min(n), max(n) FROM mt",
	"MERGE INTO mt USING (SELECT id FROM mt UNION ALL SELECT id FROM mt) AS s ON mt.id = s.id WHEN MATCHED THEN UPDATE SET n = 0",
	"MERGE INTO mt USING generate_series(1, 2000) AS s(x) ON mt.id = s.x WHEN MATCHED AND s.x % 3 = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET v = 'm'",
	"SELECT count(*), sum(id), count(*) FILTER (WHERE v = 'm') FROM mt",
	"MERGE INTO mt USING generate_series(1, 4500) AS s(x) ON mt.id = s.x WHEN MATCHED THEN UPDATE SET n = s.x * 200",
	"MERGE INTO mt USING (SELECT g FROM generate_series(10001, 12500) g UNION ALL SELECT 10002) AS s(x) ON mt.id = s.x WHEN NOT MATCHED THEN INSERT VALUES (s.x, 1, 'dup')",
	"BEGIN",
	"DELETE FROM mt WHERE id < 50",
	"MERGE INTO mt USING generate_series(1, 5000) AS s(x) ON mt.id = s.x WHEN MATCHED THEN UPDATE SET n = n + 2 WHEN NOT MATCHED THEN INSERT VALUES (s.x, 5, 'late')",
	"COMMIT",
	"SELECT count(*), sum(id), sum(n), count(*) FILTER (WHERE v = 'late') FROM mt",
	// INSERT … SELECT … ON CONFLICT chunk by chunk (conflictChunked):
	// DO NOTHING skipping keys an earlier chunk inserted, with RETURNING;
	// DO UPDATE over base rows, with WHERE; a key proposed again in a
	// later chunk (21000, whether the first proposal updated or
	// inserted); a CHECK failing in a later chunk; over the transaction's
	// own pending rows; and the forms not chunked (a key assigned, a
	// subquery in SET)
	"CREATE TABLE oc (id int8 PRIMARY KEY, k int8 UNIQUE, n int4 CHECK (n < 1000), v text)",
	"INSERT INTO oc SELECT g, g, 0, 'v' FROM generate_series(1, 3000) g",
	"INSERT INTO oc SELECT g % 4000 + 1, g % 4000 + 1, 1, 'new' FROM generate_series(1, 8000) g ON CONFLICT DO NOTHING",
	"INSERT INTO oc SELECT g, g, 1, 'r' FROM generate_series(3500, 6500) g ON CONFLICT (k) DO NOTHING RETURNING id % 1000, v",
	"SELECT count(*), sum(id), sum(n), count(*) FILTER (WHERE v = 'new') FROM oc",
	"INSERT INTO oc SELECT g, g, 2, 'x' FROM generate_series(2000, 8000) g ON CONFLICT (id) DO UPDATE SET n = oc.n + excluded.n, v = excluded.v || oc.v",
	"INSERT INTO oc SELECT g, g, 3, 'w' FROM generate_series(1, 9000) g ON CONFLICT (id) DO UPDATE SET n = 4 WHERE oc.n < 3",
	"SELECT count(*), sum(id), sum(n), count(*) FILTER (WHERE v = 'xv'), count(*) FILTER (WHERE n = 4) FROM oc",
	"INSERT INTO oc SELECT g % 3000 + 1, g % 3000 + 1, 5, 'y' FROM generate_series(1, 6000) g ON CONFLICT (id) DO UPDATE SET n = 9",
	"INSERT INTO oc SELECT g % 3000 + 10001, g % 3000 + 10001, 5, 'y' FROM generate_series(1, 6000) g ON CONFLICT (id) DO UPDATE SET n = 9",
	"INSERT INTO oc SELECT g, g, g / 11, 'c' FROM generate_series(5001, 12000) g ON CONFLICT DO NOTHING",
	"SELECT count(*), sum(id), sum(n) FROM oc",
	"BEGIN",
	"INSERT INTO oc SELECT g, g, 0, 'p' FROM generate_series(20001, 22000) g",
	"INSERT INTO oc SELECT g, g, 1, 'q' FROM generate_series(21001, 24000) g ON CONFLICT (id) DO UPDATE SET n = oc.n + 10, v = 'pq'",
	"SELECT count(*), sum(id), sum(n), count(*) FILTER (WHERE v = 'pq') FROM oc",
	"SAVEPOINT a",
	"INSERT INTO oc SELECT g % 3000 + 21001, g % 3000 + 21001, 1, 'z' FROM generate_series(1, 6000) g ON CONFLICT (id) DO UPDATE SET n = 8",
	"ROLLBACK TO SAVEPOINT a",
	"INSERT INTO oc SELECT g, g, 1, 'd' FROM generate_series(21501, 25000) g ON CONFLICT DO NOTHING",
	"INSERT INTO oc SELECT g, g, 1, 'e' FROM generate_series(1, 100) g ON CONFLICT (id) DO UPDATE SET k = excluded.k + 100000",
	"INSERT INTO oc SELECT g, g, 1, 'f' FROM generate_series(101, 200) g ON CONFLICT (id) DO UPDATE SET n = (SELECT count(*) FROM oc o2 WHERE o2.id < 10)",
	"COMMIT",
	"SELECT count(*), sum(id), sum(k), sum(n), count(*) FILTER (WHERE v = 'pq'), count(*) FILTER (WHERE v = 'd') FROM oc",
	// DELETE chunk by chunk: plain, with RETURNING (spilled past the
	// threshold), a join matching every row twice (deleted once), over
	// the transaction's own pending rows; UPDATE and MERGE with RETURNING
	// chunked too; a VALUES list with per-row DEFAULTs streamed (its
	// sequence masks cut per chunk)
	"CREATE TABLE d (id int8 PRIMARY KEY, n int4, v text)",
	"INSERT INTO d SELECT g, g % 10, 'v' || g FROM generate_series(1, 9000) g",
	"DELETE FROM d WHERE n = 3",
	"DELETE FROM d WHERE n = 2 RETURNING id % 97, v",
	"DELETE FROM d USING (SELECT id FROM d UNION ALL SELECT id FROM d) x WHERE x.id = d.id AND d.n = 4 RETURNING d.id % 100, d.v",
	"SELECT count(*), sum(id), sum(n) FROM d",
	"UPDATE d SET n = n + 10 WHERE n < 9 RETURNING id % 89, n, v",
	"UPDATE d SET n = d.n + x.k FROM (SELECT id, 1 AS k FROM d) x WHERE x.id = d.id RETURNING d.id % 7, d.n, (SELECT count(*) FROM d)",
	"UPDATE d SET n = n + 1 WHERE id < 100 RETURNING (SELECT count(*) FROM d WHERE n > 15)",
	"MERGE INTO d USING generate_series(1, 6000) AS s(x) ON d.id = s.x WHEN MATCHED THEN UPDATE SET n = 1 RETURNING merge_action(), d.id % 13, s.x",
	"BEGIN",
	"INSERT INTO d SELECT g, g % 3, 'p' FROM generate_series(10001, 13000) g",
	"DELETE FROM d WHERE n = 1 RETURNING id % 1000",
	"SELECT count(*), sum(id), sum(n) FROM d",
	"COMMIT",
	"SELECT count(*), sum(id), sum(n) FROM d",
	"CREATE TABLE dv (id serial PRIMARY KEY, k int8, v text)",
	valuesWithDefaults(4000),
	"SELECT count(*), sum(id), sum(k), max(id), count(*) FILTER (WHERE id > 900000) FROM dv",
}

// valuesWithDefaults is an INSERT of n VALUES rows into dv, every other
// one taking its id from the sequence (DEFAULT) and the rest an explicit
// id.
func valuesWithDefaults(n int) string {
	var b strings.Builder
	b.WriteString("INSERT INTO dv VALUES ")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if i%2 == 0 {
			fmt.Fprintf(&b, "(DEFAULT, %d, 'd%d')", i, i)
		} else {
			fmt.Fprintf(&b, "(%d, %d, 'e%d')", 900000+i, i, i)
		}
	}
	return b.String()
}

// conflictChunked reports an INSERT … ON CONFLICT of stagedScript that
// is streamed in chunks: staged, it must span several.
func conflictChunked(q string) bool {
	return strings.Contains(q, "ON CONFLICT") && strings.Contains(q, "generate_series") &&
		!strings.Contains(q, "SET k =") && !strings.Contains(q, "(SELECT")
}

// runStagedScript runs stagedScript on a fresh server and returns each
// statement's outcome and the chunks it added after its first.
func runStagedScript(t *testing.T) ([]string, []int64) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	var out []string
	var chunks []int64
	for _, q := range stagedScript {
		before := allChunksAfterFirst()
		rows, err := c.Query(ctx, q)
		var got []string
		if err == nil {
			for rows.Next() {
				vals, err := rows.Values()
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, fmt.Sprint(vals...))
			}
			rows.Close()
			err = rows.Err()
		}
		if err != nil {
			got = append(got, "ERROR "+sqlState(err))
		}
		out = append(out, q+" → "+strings.Join(got, "; "))
		chunks = append(chunks, allChunksAfterFirst()-before)
	}
	return out, chunks
}

func allChunksAfterFirst() int64 {
	return insertChunksAfterFirst.Load() + updateChunksAfterFirst.Load() + mergeChunksAfterFirst.Load() + deleteChunksAfterFirst.Load()
}

// streamedDML reports a statement of stagedScript's last part that must
// span several chunks when staged: the DELETEs of d, its UPDATE and
// MERGE with RETURNING (not the one whose RETURNING has a subquery) and
// the VALUES list with DEFAULTs.
func streamedDML(q string) bool {
	return strings.HasPrefix(q, "DELETE FROM d ") || strings.HasPrefix(q, "INSERT INTO dv VALUES") ||
		strings.HasPrefix(q, "MERGE INTO d ") || (strings.HasPrefix(q, "UPDATE d ") && !strings.Contains(q, "WHERE id < 100"))
}

// selfReading reports a statement of stagedScript whose query reads its
// own target (aliased u2 or read as the MERGE source): staged, it must
// span several chunks, or reading a frozen copy of the pending rows
// (view.snapshot) would be untested — a chunk sees the rows an earlier
// chunk deleted only when there is an earlier chunk.
func selfReading(q string) bool {
	return strings.Contains(q, "FROM u u2") || strings.Contains(q, "USING (SELECT id, n FROM mt)")
}

// TestStagedPendingRows: every statement answers the same whether the
// transaction's pending rows are in memory or staged to disk (and an
// INSERT … SELECT's rows added all at once or chunk by chunk, every
// batch one chunk), and staging and chunking really happened in the
// second run.
func TestStagedPendingRows(t *testing.T) {
	chunks, updChunks, mergeChunks, delChunks := insertChunksAfterFirst.Load(), updateChunksAfterFirst.Load(), mergeChunksAfterFirst.Load(), deleteChunksAfterFirst.Load()
	spilled := returningChunksSpilled.Load()
	inMemory, _ := runStagedScript(t)
	if n := insertChunksAfterFirst.Load(); n != chunks {
		t.Fatalf("%d INSERT … SELECT chunks in memory, want one per statement", n-chunks)
	}
	if n := updateChunksAfterFirst.Load(); n != updChunks {
		t.Fatalf("%d UPDATE chunks in memory, want one per statement", n-updChunks)
	}
	if n := mergeChunksAfterFirst.Load(); n != mergeChunks {
		t.Fatalf("%d MERGE chunks in memory, want one per statement", n-mergeChunks)
	}
	if n := deleteChunksAfterFirst.Load(); n != delChunks {
		t.Fatalf("%d DELETE chunks in memory, want one per statement", n-delChunks)
	}
	_, before, _ := PendingRowStats()
	forceStagedSpill = 1
	t.Cleanup(func() { forceStagedSpill = 0 })
	staged, stagedChunks := runStagedScript(t)
	for i, q := range stagedScript {
		if selfReading(q) && stagedChunks[i] == 0 {
			t.Errorf("%s: one chunk when staged; a self-reading statement must span several", q)
		}
		if streamedDML(q) && stagedChunks[i] == 0 {
			t.Errorf("%s: one chunk when staged; it must be streamed", q)
		}
		if conflictChunked(q) && stagedChunks[i] == 0 {
			t.Errorf("%s: one chunk when staged; INSERT … ON CONFLICT must be streamed", q)
		}
	}
	_, after, _ := PendingRowStats()
	if after == before {
		t.Fatal("no record was staged")
	}
	if insertChunksAfterFirst.Load() == chunks {
		t.Fatal("no INSERT … SELECT was streamed in chunks")
	}
	if updateChunksAfterFirst.Load() == updChunks {
		t.Fatal("no UPDATE was applied in chunks")
	}
	if mergeChunksAfterFirst.Load() == mergeChunks {
		t.Fatal("no MERGE was applied in chunks")
	}
	if deleteChunksAfterFirst.Load() == delChunks {
		t.Fatal("no DELETE was applied in chunks")
	}
	if returningChunksSpilled.Load() == spilled {
		t.Fatal("no RETURNING rows were spilled")
	}
	for i := range inMemory {
		if inMemory[i] != staged[i] {
			t.Errorf("in memory: %s\n     staged: %s", inMemory[i], staged[i])
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%d statements agree; %d KB staged", len(stagedScript), (after-before)>>10)
	if testing.Verbose() {
		for _, line := range staged {
			t.Log(line)
		}
	}
	// the staged files went with their transactions
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if _, _, open := PendingRowStats(); open == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("%d staged files still open after every transaction ended", open)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReturningSpills: a chunked INSERT … SELECT holds one chunk of new
// rows, and its RETURNING rows past the staging threshold go to a spill
// file read back as they are sent (was 53200 past the session memory
// limit), over the simple and the extended protocol; a later chunk that
// fails leaves nothing, and the rows kept in memory come first, in order.
func TestReturningSpills(t *testing.T) {
	ts := startServer(t, nil)
	ts.backend.MemoryLimit = 256 << 10
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeSimpleProtocol, pgx.QueryExecModeCacheStatement} {
		c := ts.connect(t, mode)
		runScript(t, c, []step{
			{sql: "drop table if exists r"},
			{sql: "create table r (id int8 primary key, v text, n int4 check (n < 4900))"},
			{sql: "insert into r select g, repeat('x', 100) || g, g from generate_series(1, 5000) g returning v", code: "23514"},
			{sql: "select count(*) from r", rows: "0"},
		})
		before := returningChunksSpilled.Load()
		rows, err := c.Query(context.Background(), "insert into r select g, repeat('x', 100) || g, 1 from generate_series(1, 5000) g returning id, v")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int64
			var v string
			if err := rows.Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			n++
			if id != int64(n) || v != strings.Repeat("x", 100)+fmt.Sprint(n) {
				t.Fatalf("row %d: %d %q", n, id, v)
			}
		}
		if err := rows.Err(); err != nil || n != 5000 || rows.CommandTag().String() != "INSERT 0 5000" {
			t.Fatalf("%v: %d rows, %s", err, n, rows.CommandTag())
		}
		if returningChunksSpilled.Load() == before {
			t.Fatal("no RETURNING rows were spilled")
		}
		runScript(t, c, []step{
			{sql: "select count(*), sum(id)::int8 from r", rows: "5000|12502500"},
			{sql: "insert into r select g, 'y', 1 from generate_series(10001, 10100) g returning id", tag: "INSERT 0 100"},
		})
	}
}
