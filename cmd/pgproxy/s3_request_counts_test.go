package main

import (
	"context"
	"maps"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestS3RequestCountsByKind holds the HTTP requests of one operation on
// S3, by kind, to exact numbers (docs/operations.md, "Requests per
// operation"): a 1-row autocommit INSERT with the materialization that
// follows its acknowledgement, a point read by primary key of a row
// this process wrote, and a branch create and delete on a 1-table
// graph. Each is measured alone, from a quiet store until the store is
// quiet again, so background work of earlier statements does not land
// in it. The counts are deterministic; a change that adds a request to
// one of these paths must update them (and the table in the docs).
func TestS3RequestCountsByKind(t *testing.T) {
	ctx := context.Background()
	fake := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	defer fake.Close()
	s3 := fakeS3Store(ctx, t, fake.URL, "counts", nil)
	addr, stop := serveInProcess(ctx, t, s3, s3.Root())
	defer stop()
	conn, err := pgx.Connect(ctx, "postgres://tester@"+addr+"/main?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.Exec(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// quiet waits until no request was sent for a while and returns the
	// counts so far
	quiet := func() map[string]int64 {
		prev := s3.Requests()
		for stable := 0; stable < 3; {
			time.Sleep(50 * time.Millisecond)
			cur := s3.Requests()
			if maps.Equal(cur, prev) {
				stable++
			} else {
				stable = 0
			}
			prev = cur
		}
		return prev
	}
	measure := func(run func()) map[string]int64 {
		before := quiet()
		run()
		after := quiet()
		out := map[string]int64{}
		for k, v := range after {
			if d := v - before[k]; d != 0 {
				out[k] = d
			}
		}
		return out
	}
	exec("CREATE TABLE t (id int8 PRIMARY KEY, v text)")
	exec("INSERT INTO t VALUES (0, 'warm')")
	var v string
	point := func(id int) func() {
		return func() {
			if err := conn.QueryRow(ctx, "SELECT v FROM t WHERE id = $1", id).Scan(&v); err != nil {
				t.Fatal(err)
			}
		}
	}
	point(0)() // prepares the statement
	// Background work of earlier statements can still land inside a
	// measurement (a table handle reopened, a hint rewritten); it only
	// ever adds requests, so each operation runs three times and the
	// cheapest run counts.
	cheapest := func(runs ...func()) map[string]int64 {
		var best map[string]int64
		for _, run := range runs {
			c := measure(run)
			if best == nil || total(c) < total(best) {
				best = c
			}
		}
		return best
	}
	insert := func(id int) func() { return func() { exec("INSERT INTO t VALUES ($1, 'x')", id) } }
	insert(-2)() // prepares the statement
	got := map[string]map[string]int64{
		"1-row commit":  cheapest(insert(1), insert(2), insert(3)),
		"point read":    cheapest(point(1), point(2), point(3)),
		"branch create": cheapest(func() { exec("CALL graph.create_branch('b1')") }, func() { exec("CALL graph.create_branch('b2')") }, func() { exec("CALL graph.create_branch('b3')") }),
		// the last delete sees one other branch fewer than the first
		"branch delete": cheapest(func() { exec("CALL graph.delete_branch('b1')") }, func() { exec("CALL graph.delete_branch('b2')") }, func() { exec("CALL graph.delete_branch('b3')") }),
	}

	// acknowledged after 3 dependent requests: [role catalog HEAD ‖
	// __manifest HEAD], [3 PUT-if-absent of the table's data and
	// transaction files and the __manifest data file (its transaction is
	// inline in the manifest only, docs/write-protocol.md §7.6) ‖ the
	// table's live-HEAD probe], the __manifest CAS; then the
	// materialization of the table version (2 HEAD, 1 PUT-if-absent)
	commit := map[string]int64{"HEAD": 5, "PUT-if-absent": 5}
	// one HEAD in the cheapest run (runs where the role catalog is
	// probed too cost two); the data file this process wrote, and its
	// size, are served from the cache
	read := map[string]int64{"HEAD": 1}
	want := map[string]map[string]int64{
		"1-row commit":  commit,
		"point read":    read,
		"branch create": {"GET": 4, "HEAD": 9, "LIST": 3, "PUT": 2, "PUT-if-absent": 2},
		// 1 GET per table fork plus 1, however many branches exist: the
		// other refs' bodies are known by their listed entity tags (the
		// seal's __manifest version writes no transaction file, so there
		// is one file fewer to put and to reclaim)
		"branch delete": {"DELETE": 6, "GET": 2, "HEAD": 11, "LIST": 5, "PUT-if-absent": 2},
	}
	for what, w := range want {
		t.Logf("%s: %v", what, got[what])
		if !maps.Equal(got[what], w) {
			t.Errorf("%s on S3: requests %v, want %v", what, got[what], w)
		}
	}
}

func total(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
