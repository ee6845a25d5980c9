package planner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// holdTxnGroupRunner occupies the main branch's group-commit runner with a
// write that waits for the returned release, so grouped writes queue
// behind it and the next group takes them all.
func holdTxnGroupRunner(t *testing.T, g *adapters.Graph) (release func()) {
	t.Helper()
	rel := make(chan struct{})
	held := holdGroupRunner(context.Background(), t, g, rel)
	return func() {
		close(rel)
		if err := <-held; err != nil {
			t.Fatal(err)
		}
	}
}

// TestGroupCommitExplicitTransactions: COMMITs of explicit transactions
// that update disjoint rows share one graph commit (group commit with
// deletes by address), each arbitrated at row level against the group's
// base; a transaction deleting a row a foreign key references is not
// grouped, so a concurrent insert of a child referencing that row can
// never commit with it (each member sees only the base: grouped, both
// would commit and leave the child dangling); SERIALIZABLE transactions
// are not grouped (a member could change a table another read).
func TestGroupCommitExplicitTransactions(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, slowPuts{objstore.NewMem()}, adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	setup := ts.connect(t, pgx.QueryExecModeExec)
	for _, q := range []string{
		"CREATE TABLE acct (id int8 PRIMARY KEY, bal int8 NOT NULL)",
		"INSERT INTO acct SELECT g, 100 FROM generate_series(1, 8) g",
		"CREATE TABLE parent (id int8 PRIMARY KEY)",
		"CREATE TABLE child (id int8 PRIMARY KEY, pid int8 REFERENCES parent (id))",
		"INSERT INTO parent VALUES (1), (2)",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	const clients = 6
	conns := make([]*pgx.Conn, clients)
	for i := range conns {
		conns[i] = ts.connect(t, pgx.QueryExecModeExec)
	}
	// commitAll runs each session's statements in a transaction up to
	// COMMIT, then sends every COMMIT while the group runner is held
	commitAll := func(level string, stmts []string) []error {
		t.Helper()
		for i, q := range stmts {
			for _, s := range []string{"BEGIN ISOLATION LEVEL " + level, q} {
				if _, err := conns[i].Exec(ctx, s); err != nil {
					t.Fatalf("session %d: %s: %v", i, s, err)
				}
			}
		}
		release := holdTxnGroupRunner(t, g)
		errs := make([]error, len(stmts))
		var wg sync.WaitGroup
		for i := range stmts {
			wg.Go(func() {
				_, errs[i] = conns[i].Exec(ctx, "COMMIT")
			})
		}
		// the COMMITs queue behind the held runner (a late one only
		// lands in a later group)
		time.Sleep(500 * time.Millisecond)
		release()
		wg.Wait()
		return errs
	}

	for _, level := range []string{"READ COMMITTED", "REPEATABLE READ"} {
		_, m0 := g.GroupStats()
		stmts := make([]string, clients)
		for i := range stmts {
			stmts[i] = fmt.Sprintf("UPDATE acct SET bal = bal + %d WHERE id = %d", i+1, i+1)
		}
		for i, err := range commitAll(level, stmts) {
			if err != nil {
				t.Fatalf("%s: session %d COMMIT: %v", level, i, err)
			}
		}
		if _, m1 := g.GroupStats(); m1-m0 < 2 {
			t.Fatalf("%s: %d COMMITs of disjoint rows carried by group commits, want them grouped", level, m1-m0)
		}
	}
	var got string
	if err := setup.QueryRow(ctx, "SELECT string_agg(id || '=' || bal, ',' ORDER BY id) FROM acct").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := "1=102,2=104,3=106,4=108,5=110,6=112,7=100,8=100"; got != want {
		t.Fatalf("balances %s, want %s", got, want)
	}

	// SERIALIZABLE: never grouped
	_, m0 := g.GroupStats()
	for i, err := range commitAll("SERIALIZABLE", []string{"UPDATE acct SET bal = 0 WHERE id = 7", "UPDATE acct SET bal = 0 WHERE id = 8"}) {
		var pe *pgconn.PgError
		if err != nil && !(errors.As(err, &pe) && pe.Code == "40001") {
			t.Fatalf("serializable session %d: %v", i, err)
		}
	}
	if _, m1 := g.GroupStats(); m1 != m0 {
		t.Fatalf("%d SERIALIZABLE COMMITs were grouped", m1-m0)
	}

	// a parent's delete and a child's insert referencing it: the insert
	// holds the parent row FOR KEY SHARE (as PostgreSQL's foreign-key
	// check), so the delete waits for the inserter's COMMIT and then
	// fails with 23503; no child is left without its parent
	for _, q := range []string{"BEGIN", "INSERT INTO child VALUES (10, 1)"} {
		if _, err := conns[0].Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	deleted := make(chan error, 1)
	go func() {
		_, err := conns[1].Exec(ctx, "DELETE FROM parent WHERE id = 1")
		deleted <- err
	}()
	select {
	case err := <-deleted:
		t.Fatalf("the parent's delete did not wait for the child's inserter: %v", err)
	case <-time.After(300 * time.Millisecond):
	}
	if _, err := conns[0].Exec(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	var pe *pgconn.PgError
	if err := <-deleted; !errors.As(err, &pe) || pe.Code != "23503" {
		t.Fatalf("delete of the parent after its child's insert committed: %v, want 23503", err)
	}
	var orphans int
	if err := setup.QueryRow(ctx, "SELECT count(*) FROM child c WHERE NOT EXISTS (SELECT 1 FROM parent p WHERE p.id = c.pid)").Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Fatalf("%d orphaned children", orphans)
	}
}
