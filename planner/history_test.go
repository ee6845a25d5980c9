package planner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestHistoryOverTheWire is a small history checker over the wire:
// concurrent clients run autocommit INSERTs (grouped), autocommit
// increments of one counter row and explicit transactions doing both,
// retrying 40001 as applications do. Afterwards every acknowledged
// insert is visible exactly once, no insert that definitely failed is
// visible, and the counter equals the number of acknowledged increments
// (no lost update).
func TestHistoryOverTheWire(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, slowPuts{objstore.NewMem()}, adapters.Options{Create: true, Actor: "test", AutoOptimizeFragments: 16})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	setup := ts.connect(t, pgx.QueryExecModeExec)
	for _, q := range []string{
		"CREATE TABLE kv (id int8 PRIMARY KEY, client int8 NOT NULL)",
		"CREATE TABLE counter (id int8 PRIMARY KEY, n int8 NOT NULL)",
		"INSERT INTO counter VALUES (0, 0)",
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const clients, ops = 6, 24
	type history struct {
		acked, failed []int64
		incs          int64
	}
	hs := make([]history, clients)
	serialization := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && (pe.Code == "40001" || pe.Code == "40P01")
	}
	definite := func(err error) bool {
		var pe *pgconn.PgError
		return errors.As(err, &pe) && pe.Code != "08007" && pe.Code[:2] != "XX"
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		conn := ts.connect(t, pgx.QueryExecModeExec)
		h := &hs[c]
		wg.Go(func() {
			for i := range ops {
				id := int64(c*1000 + i)
				var err error
				for try := 0; try < 50; try++ {
					switch i % 3 {
					case 0:
						_, err = conn.Exec(ctx, "INSERT INTO kv VALUES ($1, $2)", id, c)
					case 1:
						_, err = conn.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 0")
					case 2:
						err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
							if _, err := tx.Exec(ctx, "INSERT INTO kv VALUES ($1, $2)", id, c); err != nil {
								return err
							}
							_, err := tx.Exec(ctx, "UPDATE counter SET n = n + 1 WHERE id = 0")
							return err
						})
					}
					if err == nil || !serialization(err) {
						break
					}
				}
				switch {
				case err == nil:
					if i%3 != 1 {
						h.acked = append(h.acked, id)
					}
					if i%3 != 0 {
						h.incs++
					}
				case definite(err) && i%3 != 1:
					h.failed = append(h.failed, id)
				case !definite(err):
					errs <- fmt.Errorf("client %d op %d: outcome unknown: %v", c, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[int64]int{}
	rows, err := setup.Query(ctx, "SELECT id FROM kv")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		seen[id]++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var acked, incs int64
	for c, h := range hs {
		for _, id := range h.acked {
			if seen[id] != 1 {
				t.Errorf("client %d: acknowledged insert %d visible %d times", c, id, seen[id])
			}
			delete(seen, id)
			acked++
		}
		for _, id := range h.failed {
			if seen[id] != 0 {
				t.Errorf("client %d: failed insert %d is visible", c, id)
			}
		}
		incs += h.incs
	}
	for id, n := range seen {
		t.Errorf("row %d visible %d times but never acknowledged", id, n)
	}
	var n int64
	if err := setup.QueryRow(ctx, "SELECT n FROM counter WHERE id = 0").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != incs {
		t.Fatalf("counter %d, acknowledged increments %d (lost or phantom updates)", n, incs)
	}
	t.Logf("%d clients: %d acknowledged inserts, %d increments", clients, acked, incs)
}
