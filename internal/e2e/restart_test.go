package e2e

import (
	"context"
	"path/filepath"
	"testing"
)

// TestRestartKeepsEverything stops pgproxy with SIGINT and serves the same
// root with a new process: tables, rows, branches, history and time travel
// survive, and sequences never hand out a value twice.
func TestRestartKeepsEverything(t *testing.T) {
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "graph")
	p1 := startProxyOn(t, data)
	c1, err := p1.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	loadSocial(t, ctx, c1)
	mustExec(t, ctx, c1, "CREATE TABLE posts (id serial PRIMARY KEY, author int8 NOT NULL REFERENCES people (id), body text NOT NULL)")
	mustExec(t, ctx, c1, "INSERT INTO posts (author, body) VALUES (1, 'one'), (2, 'two')")
	var loaded string
	if err := c1.QueryRow(ctx, "SHOW graph.last_commit").Scan(&loaded); err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, c1, "DELETE FROM people WHERE id = 6")
	mustExec(t, ctx, c1, "CALL graph.create_branch('kept')")
	b1, err := p1.Connect(ctx, "kept")
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, b1, "INSERT INTO people (id, name) VALUES (70, 'Branch Row')")
	commits := queryInt(t, ctx, c1, "SELECT count(*) FROM graph.commits")
	b1.Close(ctx)
	c1.Close(ctx)
	p1.stop()

	p2 := startProxyOn(t, data)
	c2, err := p2.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	if n := queryInt(t, ctx, c2, "SELECT count(*) FROM people"); n != 5 {
		t.Fatalf("people after restart: %d, want 5", n)
	}
	if n := queryInt(t, ctx, c2, "SELECT count(*) FROM knows"); n != 5 {
		t.Fatalf("knows after restart: %d, want 5 (Edsger's three edges cascaded)", n)
	}
	if n := queryInt(t, ctx, c2, "SELECT count(*) FROM graph.commits"); n != commits {
		t.Fatalf("graph.commits after restart: %d, want %d", n, commits)
	}
	var id int64
	if err := c2.QueryRow(ctx, "INSERT INTO posts (author, body) VALUES (1, 'three') RETURNING id").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if id <= 2 {
		t.Fatalf("the serial handed out %d after a restart; 1 and 2 were used before", id)
	}
	mustExec(t, ctx, c2, "SET graph.as_of = '"+loaded+"'")
	if n := queryInt(t, ctx, c2, "SELECT count(*) FROM people"); n != 6 {
		t.Fatalf("as of a commit before the restart: %d people, want 6", n)
	}
	mustExec(t, ctx, c2, "RESET graph.as_of")
	b2, err := p2.Connect(ctx, "kept")
	if err != nil {
		t.Fatalf("branch kept after restart: %v", err)
	}
	defer b2.Close(ctx)
	if n := queryInt(t, ctx, b2, "SELECT count(*) FROM people WHERE id = 70"); n != 1 {
		t.Fatal("the branch's row is gone after a restart")
	}
	p2.alive(t)
}
