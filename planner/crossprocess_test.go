package planner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestLookupSeesOtherProcessCommits: an autocommit point lookup sees every
// commit acknowledged before it started, also one made by another pgproxy
// process on the same data directory (here: a second graph handle over a
// second objstore.Local of the same directory, with its own caches). The
// lookups are prepared statements (pgx's default), so neither the plan
// cache nor a cached head may hide the other side's commits; inserts,
// updates and deletes alternate between the two sides.
func TestLookupSeesOtherProcessCommits(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	serve := func(create bool) *pgx.Conn {
		st, err := objstore.NewLocal(dir)
		if err != nil {
			t.Fatal(err)
		}
		g, err := adapters.Open(ctx, st, adapters.Options{Create: create, Actor: "test", Location: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(g.Close)
		c, err := pgx.Connect(ctx, startServerOn(t, g).url("main"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	a := serve(true)
	b := serve(false)
	if _, err := a.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
		t.Fatal(err)
	}
	lookup := func(c *pgx.Conn, id int64) string {
		var v string
		err := c.QueryRow(ctx, "select v from t where id = $1", id).Scan(&v)
		if err == pgx.ErrNoRows {
			return "<none>"
		}
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	sides := []*pgx.Conn{a, b}
	for i := int64(0); i < 12; i++ {
		w, r := sides[i%2], sides[(i+1)%2]
		// warm the reader's caches on the current head first
		if got := lookup(r, i); got != "<none>" {
			t.Fatalf("round %d: id %d before insert: %s", i, i, got)
		}
		if _, err := w.Exec(ctx, "insert into t values ($1, $2)", i, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
		if got := lookup(r, i); got != fmt.Sprint("v", i) {
			t.Fatalf("round %d: the other process's acknowledged insert is not visible: %s", i, got)
		}
		if i > 0 {
			if _, err := w.Exec(ctx, "update t set v = 'u' where id = $1", i-1); err != nil {
				t.Fatal(err)
			}
			if got := lookup(r, i-1); got != "u" {
				t.Fatalf("round %d: the other process's update is not visible: %s", i, got)
			}
			if _, err := r.Exec(ctx, "delete from t where id = $1", i-1); err != nil {
				t.Fatal(err)
			}
			if got := lookup(w, i-1); got != "<none>" {
				t.Fatalf("round %d: the other process's delete is not visible: %s", i, got)
			}
		}
	}
}
