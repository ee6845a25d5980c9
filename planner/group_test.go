package planner

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// slowPuts delays every durable write, so concurrent statements queue
// behind the commit in flight (as on a real disk or object store).
type slowPuts struct{ objstore.Store }

func (s slowPuts) Put(ctx context.Context, key string, data []byte) error {
	time.Sleep(time.Millisecond)
	return s.Store.Put(ctx, key, data)
}

func (s slowPuts) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	time.Sleep(time.Millisecond)
	return s.Store.PutIfAbsent(ctx, key, data)
}

// TestGroupCommitOverTheWire: concurrent autocommit INSERTs from several
// sessions share graph commits (group commit); every one of distinct
// keys commits and names its own commit in SHOW graph.last_commit (one
// row of graph.commits per insert, also inside a group commit);
// concurrent inserts of one primary key, or of one value of a UNIQUE
// column, leave exactly one winner and give every other session 23505.
func TestGroupCommitOverTheWire(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, slowPuts{objstore.NewMem()}, adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	setup := ts.connect(t, pgx.QueryExecModeExec)
	for _, q := range []string{"CREATE TABLE kv (id int8 PRIMARY KEY, v text)", "CREATE TABLE u (id int8 PRIMARY KEY, name text UNIQUE)"} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const clients, each = 8, 6
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = ts.connect(t, pgx.QueryExecModeExec)
	}
	run := func(f func(i int, c *pgx.Conn) error) []error {
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for i, c := range conns {
			wg.Go(func() { errs[i] = f(i, c) })
		}
		wg.Wait()
		return errs
	}
	lasts := make([][]string, clients)
	for i, err := range run(func(i int, c *pgx.Conn) error {
		for j := range each {
			if _, err := c.Exec(ctx, "INSERT INTO kv (id, v) VALUES ($1, 'x')", i*each+j); err != nil {
				return err
			}
			var last string
			if err := c.QueryRow(ctx, "SHOW graph.last_commit").Scan(&last); err != nil {
				return err
			}
			lasts[i] = append(lasts[i], last)
		}
		return nil
	}) {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	var n int
	if err := setup.QueryRow(ctx, "SELECT count(DISTINCT id) FROM kv").Scan(&n); err != nil || n != clients*each {
		t.Fatalf("%d distinct rows (%v), want %d", n, err, clients*each)
	}
	commits, members := g.GroupStats()
	if commits == 0 {
		t.Fatalf("no group commit among %d concurrent inserts", clients*each)
	}
	t.Logf("%d group commits carried %d of %d inserts", commits, members, clients*each)
	// each insert names its own commit (a group commit records each
	// member transaction), listed once in graph.commits
	seen := map[string]bool{}
	for _, ls := range lasts {
		for _, id := range ls {
			if seen[id] {
				t.Fatalf("two inserts name commit %s", id)
			}
			seen[id] = true
		}
	}
	for i, ls := range lasts {
		for j, id := range ls {
			var found int
			if err := setup.QueryRow(ctx, "SELECT count(*) FROM graph.commits WHERE id = $1", id).Scan(&found); err != nil || found != 1 {
				t.Fatalf("client %d insert %d: last_commit %q found %d times (%v)", i, j, id, found, err)
			}
		}
	}
	for _, tc := range []struct{ name, sql string }{
		{"primary key", "INSERT INTO kv (id, v) VALUES (1000 + 0 * $1, 'x')"},
		{"unique column", "INSERT INTO u (id, name) VALUES ($1, 'same')"},
	} {
		// hold the branch's group runner so that all the inserts queue
		// into one group
		release := make(chan struct{})
		held := holdGroupRunner(ctx, t, g, release)
		time.AfterFunc(300*time.Millisecond, func() { close(release) })
		errs := run(func(i int, c *pgx.Conn) error {
			_, err := c.Exec(ctx, tc.sql, 2000+i)
			return err
		})
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		ok := 0
		for i, err := range errs {
			var pe *pgconn.PgError
			switch {
			case err == nil:
				ok++
			case errors.As(err, &pe) && pe.Code == "23505":
			default:
				t.Fatalf("%s: client %d: %v, want success or 23505", tc.name, i, err)
			}
		}
		if ok != 1 {
			t.Fatalf("%s: %d concurrent inserts of one key succeeded, want 1", tc.name, ok)
		}
	}
}

// holdGroupRunner blocks the main branch's group runner with a grouped
// write until release is closed, so that the statements sent meanwhile
// queue into one group; the returned channel reports the write's end.
func holdGroupRunner(ctx context.Context, t *testing.T, g *adapters.Graph, release chan struct{}) chan error {
	t.Helper()
	started, held := make(chan struct{}), make(chan error, 1)
	go func() {
		_, err := g.Write(ctx, adapters.WriteOptions{Group: true}, func(context.Context, *adapters.Stage) error {
			select {
			case <-started:
			default:
				close(started)
			}
			<-release
			return nil
		})
		held <- err
	}()
	<-started
	return held
}

// TestGroupCommitUpdatesOverTheWire: concurrent autocommit UPDATEs and
// DELETEs of distinct rows share group commits, and every change lands
// exactly once (no lost update: increments of one counter row from all
// sessions add up). A DELETE of a row another concurrent statement's
// foreign key points at never shares a group with that statement: one of
// them fails with 23503, never both succeed.
func TestGroupCommitUpdatesOverTheWire(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, slowPuts{objstore.NewMem()}, adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	setup := ts.connect(t, pgx.QueryExecModeExec)
	const clients, each = 6, 4
	for _, q := range []string{
		"CREATE TABLE acct (id int8 PRIMARY KEY, v int8)",
		"INSERT INTO acct SELECT i, 0 FROM generate_series(0, 1000) i",
		"CREATE TABLE p (id int8 PRIMARY KEY)",
		"CREATE TABLE c (id int8 PRIMARY KEY, pid int8 REFERENCES p)",
		"INSERT INTO p SELECT i FROM generate_series(1, 10) i",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = ts.connect(t, pgx.QueryExecModeExec)
	}
	run := func(f func(i int, c *pgx.Conn) error) []error {
		errs := make([]error, clients)
		var wg sync.WaitGroup
		for i, c := range conns {
			wg.Go(func() { errs[i] = f(i, c) })
		}
		wg.Wait()
		return errs
	}
	// one held group of updates of distinct rows
	_, before := g.GroupStats()
	release := make(chan struct{})
	held := holdGroupRunner(ctx, t, g, release)
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	for i, err := range run(func(i int, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "UPDATE acct SET v = v + 10 WHERE id = $1", 100+i)
		return err
	}) {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if _, after := g.GroupStats(); after-before < 2 {
		t.Fatalf("concurrent UPDATEs of distinct rows shared no group commit (%d members grouped)", after-before)
	}
	// free-running: own rows, deletes of own rows and one shared counter
	for i, err := range run(func(i int, c *pgx.Conn) error {
		for j := range each {
			for _, q := range []string{
				"UPDATE acct SET v = v + 1 WHERE id = $1",
				"UPDATE acct SET v = v + 1 WHERE id = 1000 + 0 * $1",
				"DELETE FROM acct WHERE id = $1",
			} {
				if _, err := c.Exec(ctx, q, 200+i*each+j); err != nil {
					return err
				}
			}
		}
		return nil
	}) {
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	var rows, counter, sum int64
	if err := setup.QueryRow(ctx, "SELECT count(*), sum(v) FILTER (WHERE id = 1000), sum(v) FILTER (WHERE id BETWEEN 100 AND 199) FROM acct").Scan(&rows, &counter, &sum); err != nil {
		t.Fatal(err)
	}
	if rows != 1001-clients*each || counter != clients*each || sum != 10*clients {
		t.Fatalf("%d rows, counter %d, updated sum %d; want %d, %d, %d", rows, counter, sum, 1001-clients*each, clients*each, 10*clients)
	}
	// a parent delete and a child insert referencing it, queued together
	for round := 1; round <= 3; round++ {
		release := make(chan struct{})
		held := holdGroupRunner(ctx, t, g, release)
		time.AfterFunc(300*time.Millisecond, func() { close(release) })
		errs := run(func(i int, c *pgx.Conn) error {
			var err error
			switch i {
			case 0:
				_, err = c.Exec(ctx, "DELETE FROM p WHERE id = $1", round)
			case 1:
				_, err = c.Exec(ctx, "INSERT INTO c VALUES ($1, $1)", round)
			}
			return err
		})
		if err := <-held; err != nil {
			t.Fatal(err)
		}
		var pe *pgconn.PgError
		if errs[0] == nil && errs[1] == nil {
			t.Fatalf("round %d: the parent delete and the child insert referencing it both committed", round)
		}
		for i, err := range errs[:2] {
			if err != nil && (!errors.As(err, &pe) || pe.Code != "23503") {
				t.Fatalf("round %d: client %d: %v, want success or 23503", round, i, err)
			}
		}
		var orphans int
		if err := setup.QueryRow(ctx, "SELECT count(*) FROM c WHERE pid NOT IN (SELECT id FROM p)").Scan(&orphans); err != nil || orphans != 0 {
			t.Fatalf("round %d: %d orphaned child rows (%v)", round, orphans, err)
		}
	}
}
