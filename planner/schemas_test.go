package planner

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestSchemaCascadeDebug is a temporary reproduction.
func TestSchemaCascadeDebug(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	ctx := context.Background()
	for _, q := range []string{
		"create schema inventory",
		"create table inventory.items (sku text primary key, qty int)",
		"insert into inventory.items values ('a', 1)",
		"create table inventory.moves (id int primary key, sku text references inventory.items (sku), n int)",
		"insert into inventory.moves values (1, 'a', 5)",
		"delete from inventory.items where sku = 'a'",
		"create view public.stock as select i.sku from inventory.items i",
		"drop schema inventory cascade",
		"select * from stock",
	} {
		_, err := c.Exec(ctx, q)
		t.Logf("%s: %v", q, err)
	}
}
