package planner

import (
	"context"
	"testing"

	"github.com/pggraph/pggraph/wire"
)

// TestCommitAttribution: every graph commit names the SQL role that made
// it, the session's application_name and client address, whether it
// came from DDL, DML, COPY, an explicit transaction or a procedure.
func TestCommitAttribution(t *testing.T) {
	ctx := context.Background()
	ts := startServerWith(t, wire.Config{})
	alice, err := ts.connectAs(t, "alice", "", "main", "&application_name=loader")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := ts.connectAs(t, "bob", "", "main", "&application_name=merger")
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		conn       string
		sql        string
		actor, app string
	}{
		{"alice", "CREATE TABLE t (id int PRIMARY KEY)", "alice", "loader"},
		{"alice", "INSERT INTO t VALUES (1)", "alice", "loader"},
		{"alice", "BEGIN; INSERT INTO t VALUES (2); COMMIT", "alice", "loader"},
		{"bob", "CALL graph.create_branch('dev')", "", ""},
		{"bob", "SET graph.branch = 'dev'", "", ""},
		{"bob", "UPDATE t SET id = 3 WHERE id = 2", "bob", "merger"},
		{"bob", "RESET graph.branch", "", ""},
		{"bob", "CALL graph.merge('dev')", "bob", "merger"},
	}
	for _, st := range steps {
		c := alice
		if st.conn == "bob" {
			c = bob
		}
		if _, err := c.Exec(ctx, st.sql); err != nil {
			t.Fatalf("%s: %v", st.sql, err)
		}
		if st.actor == "" {
			continue
		}
		var actor, app, client, process string
		err := c.QueryRow(ctx, `SELECT actor, application_name, client_addr, process FROM graph.commits LIMIT 1`).
			Scan(&actor, &app, &client, &process)
		if err != nil {
			t.Fatalf("%s: graph.commits: %v", st.sql, err)
		}
		if actor != st.actor || app != st.app || client != "127.0.0.1" || process != "test" {
			t.Errorf("%s: commit by (%q, %q, %q, %q), want (%q, %q, 127.0.0.1, test)", st.sql, actor, app, client, process, st.actor, st.app)
		}
	}
}
