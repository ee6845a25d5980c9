package planner

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/wire"
)

// startServerWith serves a fresh in-memory graph with wire settings
// (authentication, hba rules) applied.
func startServerWith(t *testing.T, cfg wire.Config) *testServer {
	t.Helper()
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	return serveGraph(t, g, cfg)
}

// serveGraph serves g with wire settings; logins are checked against the
// root's role catalog (Backend.Credentials) as pgproxy serve does.
func serveGraph(t *testing.T, g *adapters.Graph, cfg wire.Config) *testServer {
	t.Helper()
	backend := NewBackend(g)
	cfg.Backend = backend
	cfg.Credentials = backend.Credentials
	cfg.AuthFailureDelay = -1
	return serveBackend(t, g, backend, cfg)
}

// connectAs opens a connection as user to database with extra URL
// parameters (options=...).
func (ts *testServer) connectAs(t *testing.T, user, password, db, extra string) (*pgx.Conn, error) {
	t.Helper()
	url := fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable%s", user, password, ts.addr, db, extra)
	c, err := pgx.Connect(context.Background(), url)
	if err == nil {
		t.Cleanup(func() { c.Close(context.Background()) })
	}
	return c, err
}

// TestBranchAdmission: an hba rule that refuses a user on a branch holds
// for every way of reaching that branch, not only the startup database.
// The bypass this guards against: bob, refused on main, connected to dev,
// ran SET graph.branch = 'main' and his INSERT landed on main.
func TestBranchAdmission(t *testing.T) {
	ctx := context.Background()
	secret, err := wire.HashSCRAM("pw")
	if err != nil {
		t.Fatal(err)
	}
	users := &wire.Users{}
	for _, u := range []string{"app", "bob", "carol"} {
		if err := users.Add(u, secret); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := wire.ParseHBA(`
host main bob all reject
host main carol all scram-sha-256
host all all all trust
`)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServerWith(t, wire.Config{Auth: wire.AuthTrust, Users: users, HBA: rules})
	admin, err := ts.connectAs(t, "app", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE item (id int PRIMARY KEY)",
		"CALL graph.create_branch('dev')",
		"CALL graph.create_branch('dev2')",
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if _, err := ts.connectAs(t, "bob", "", "main", ""); sqlState(err) != "28000" {
		t.Fatalf("bob on main at startup: %v, want 28000", err)
	}

	// each way of reaching main from a session on dev
	cases := []struct {
		user, extra string
		stmts       []string
	}{
		{"bob", "", []string{"SET graph.branch = 'main'"}},
		{"bob", "", []string{"SELECT set_config('graph.branch', 'main', false)"}},
		{"bob", "&options=-c%20graph.branch%3Dmain", []string{"RESET graph.branch"}},
		{"bob", "", []string{"CALL graph.merge('dev', 'main')"}},
		{"bob", "", []string{"SELECT graph.merge('dev', 'main')"}},
		{"bob", "", []string{"CALL graph.merge('main', 'dev2')"}},
		{"bob", "", []string{"CALL graph.create_branch('copy', 'main')"}},
		{"bob", "", []string{"CALL graph.delete_branch('main')"}},
		// carol must give a password for main; a session that logged in
		// on dev without one cannot switch there
		{"carol", "", []string{"SET graph.branch = 'main'"}},
	}
	for _, c := range cases {
		t.Run(c.user+" "+c.stmts[0]+c.extra, func(t *testing.T) {
			conn, err := ts.connectAs(t, c.user, "", "dev", c.extra)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range c.stmts {
				if _, err := conn.Exec(ctx, q); sqlState(err) != "28000" {
					t.Fatalf("%s: %v, want 28000", q, err)
				}
			}
			// whatever was tried, the session is still on dev and its
			// writes land there
			if _, err := conn.Exec(ctx, "INSERT INTO item VALUES (1) ON CONFLICT DO NOTHING"); err != nil {
				t.Fatal(err)
			}
			var n int64
			if err := admin.QueryRow(ctx, "SELECT count(*) FROM item").Scan(&n); err != nil || n != 0 {
				t.Fatalf("rows on main: %d, %v; want 0", n, err)
			}
		})
	}
	// bob may still reach the branches his rules allow
	bob, err := ts.connectAs(t, "bob", "", "dev", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Exec(ctx, "SET graph.branch = 'dev2'"); err != nil {
		t.Fatal(err)
	}
	// carol with her password may reach main from dev
	carol, err := ts.connectAs(t, "carol", "pw", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := carol.Exec(ctx, "SET graph.branch = 'dev'"); err != nil {
		t.Fatal(err)
	}
	if _, err := carol.Exec(ctx, "SET graph.branch = 'main'"); err != nil {
		t.Fatal(err)
	}
}
