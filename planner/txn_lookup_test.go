package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestKeyLookupInsideWritingTransaction: once a transaction has written
// a table, `WHERE id = …` on that table still goes through the key index
// (SELECT, UPDATE and DELETE alike) instead of reading the whole table,
// and sees the transaction's own changes.
func TestKeyLookupInsideWritingTransaction(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewCounting(objstore.NewMem())
	g, err := adapters.Open(ctx, store, adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	c := ts.connect(t, pgx.QueryExecModeCacheStatement)
	const rows = 200000
	if _, err := c.Exec(ctx, "create table t (id int8 primary key, v text)"); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&sb, "%d\tvalue number %d\n", i, i)
	}
	if _, err := c.PgConn().CopyFrom(ctx, strings.NewReader(sb.String()), "COPY t FROM STDIN"); err != nil {
		t.Fatal(err)
	}
	// the table's data: what a full scan of v would read
	store.Reset()
	var n int64
	if err := c.QueryRow(ctx, "select count(v) from t").Scan(&n); err != nil || n != rows {
		t.Fatalf("count: %d %v", n, err)
	}
	full := store.Stats().BytesRead
	// warm the key index outside the measurement
	var v string
	if err := c.QueryRow(ctx, "select v from t where id = 1").Scan(&v); err != nil {
		t.Fatal(err)
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "insert into t values ($1, 'fresh')", int64(rows+5)); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		sql  string
		args []any
		want string // the first column of the first row, or the command tag
	}{
		{"select v from t where id = $1", []any{int64(77)}, "value number 77"},
		{"select v from t where id = $1", []any{int64(rows + 5)}, "fresh"},
		{"update t set v = 'changed' where id = $1", []any{int64(77)}, "UPDATE 1"},
		{"select v from t where id = $1", []any{int64(77)}, "changed"},
		{"delete from t where id = $1", []any{int64(rows + 5)}, "DELETE 1"},
		{"select count(*)::text from t where id in (77, 78, $1)", []any{int64(rows + 5)}, "2"},
	}
	for _, s := range steps {
		store.Reset()
		var got string
		if strings.HasPrefix(s.sql, "select") {
			if err := tx.QueryRow(ctx, s.sql, s.args...).Scan(&got); err != nil {
				t.Fatalf("%s: %v", s.sql, err)
			}
		} else {
			tag, err := tx.Exec(ctx, s.sql, s.args...)
			if err != nil {
				t.Fatalf("%s: %v", s.sql, err)
			}
			got = tag.String()
		}
		if got != s.want {
			t.Errorf("%s %v: got %q, want %q", s.sql, s.args, got, s.want)
		}
		if read := store.Stats().BytesRead; read*20 > full {
			t.Errorf("%s %v read %d bytes; a full scan of v reads %d", s.sql, s.args, read, full)
		}
	}
}
