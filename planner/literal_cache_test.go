package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestLiteralCache: simple-protocol queries differing only in literals
// are served by one plan after the second of them, with the answers of
// the queries as written — across DDL, settings and transactions — and
// errors stay the written statement's.
func TestLiteralCache(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	exec := func(sql string) {
		t.Helper()
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	one := func(sql string) string {
		t.Helper()
		var v *string
		if err := c.QueryRow(ctx, sql).Scan(&v); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if v == nil {
			return "NULL"
		}
		return *v
	}
	exec("create table t (id int8 primary key, v text, n int4)")
	exec("insert into t select g, 'v' || g, g % 7 from generate_series(1, 100) g")
	hits := literalHits.Load()
	for i := 1; i <= 40; i++ {
		if got, want := one(fmt.Sprintf("select v from t where id = %d", i)), fmt.Sprintf("v%d", i); got != want {
			t.Fatalf("id %d: %q, want %q", i, got, want)
		}
	}
	if n := literalHits.Load() - hits; n < 38 {
		t.Fatalf("%d of 40 lookups served by the shape's plan, want 38", n)
	}
	// other literal types are other shapes, answered as written
	if got := one("select v from t where id = 7.0"); got != "v7" {
		t.Errorf("id = 7.0: %q", got)
	}
	if got := one("select count(*)::text from t where n in (1, 2) and id between 10 and 30"); got != "6" {
		t.Errorf("in/between: %q", got)
	}
	if got := one("select count(*)::text from t where n in (1, 2) and id between 10 and 20"); got != "2" {
		t.Errorf("in/between again: %q", got)
	}
	// a literal the plan cannot take fails as the written statement does
	_, err := c.Exec(ctx, "select v from t where id = 99999999999999999999")
	_, err2 := c.Exec(ctx, "select v from t where id = 99999999999999999999")
	if err != nil || err2 != nil {
		t.Errorf("numeric key literal: %v / %v", err, err2)
	}
	for i := 0; i < 2; i++ {
		_, err := c.Exec(ctx, "select v from t where v = 5")
		if err == nil || !strings.Contains(err.Error(), "operator does not exist: text = integer") {
			t.Errorf("text = integer: %v", err)
		}
	}
	// DDL (by another session) changes what the shape means: the plan
	// follows
	other := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, sql := range []string{"alter table t drop column v", "alter table t add column v int4", "update t set v = id * 10"} {
		if _, err := other.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	if got := one("select v from t where id = 3"); got != "30" {
		t.Errorf("after the column changed type: %q", got)
	}
	if got := one("select v from t where id = 4"); got != "40" {
		t.Errorf("after the column changed type (shape plan): %q", got)
	}
	if _, err := other.Exec(ctx, "update t set v = 0 where id = 4"); err != nil {
		t.Fatal(err)
	}
	if got := one("select v from t where id = 4"); got != "0" {
		t.Errorf("after another session's update: %q", got)
	}
	// a transaction's own writes
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "update t set v = -1 where id = 5"); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{5, 6, 5} {
		var v *int32
		if err := tx.QueryRow(ctx, fmt.Sprintf("select v from t where id = %d", id)).Scan(&v); err != nil {
			t.Fatal(err)
		}
		want := int32(id * 10)
		if id == 5 {
			want = -1
		}
		if v == nil || *v != want {
			t.Errorf("in the transaction, id %d: %v, want %d", id, v, want)
		}
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if got := one("select v from t where id = 5"); got != "50" {
		t.Errorf("after rollback: %q", got)
	}
	// settings the plan was bound under
	q := "select ('2020-06-01 12:00+00'::timestamptz)::text from t where id = %d"
	for _, id := range []int{1, 2} {
		if got := one(fmt.Sprintf(q, id)); got != "2020-06-01 12:00:00+00" {
			t.Errorf("UTC: %q", got)
		}
	}
	exec("set timezone = 'Asia/Tokyo'")
	for _, id := range []int{1, 2} {
		if got := one(fmt.Sprintf(q, id)); got != "2020-06-01 21:00:00+09" {
			t.Errorf("Asia/Tokyo: %q", got)
		}
	}
}

// TestLiteralCachePreparedOnce: a statement prepared once (extended
// protocol) whose text holds literals binds its normalized text once,
// not at every execution, and keeps answering as written; a new head
// binds it once more.
func TestLiteralCachePreparedOnce(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	ctx := context.Background()
	for _, sql := range []string{"create table t (id int8 primary key, v text)", "insert into t select g, 'v' || g from generate_series(1, 10) g"} {
		if _, err := c.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	run := func(want string) {
		t.Helper()
		var v string
		if err := c.QueryRow(ctx, "select v from t where id > 3 order by id desc limit 1").Scan(&v); err != nil || v != want {
			t.Fatalf("got %q, %v; want %q", v, err, want)
		}
	}
	binds := literalBinds.Load()
	for range 20 {
		run("v10")
	}
	if n := literalBinds.Load() - binds; n > 1 {
		t.Fatalf("%d bindings of the normalized statement for 20 executions of one prepared statement, want at most 1", n)
	}
	if _, err := c.Exec(ctx, "insert into t values (11, 'v11')"); err != nil {
		t.Fatal(err)
	}
	binds = literalBinds.Load()
	for range 5 {
		run("v11")
	}
	if n := literalBinds.Load() - binds; n > 1 {
		t.Fatalf("%d bindings after a commit, want at most 1", n)
	}
}
