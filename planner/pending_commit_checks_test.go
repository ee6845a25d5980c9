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

// TestCommitChecksReadKeysOfStagedRows: the COMMIT's checks of a staged
// transaction against concurrent commits (a unique key another
// transaction inserted meanwhile, foreign keys) read back the key
// columns of its staged rows, not the rows: a transaction of millions of
// rows must not be loaded whole into memory to be arbitrated. The other
// transaction runs in a second process on the same directory (in one
// process row and key locks order the two before the COMMIT).
func TestCommitChecksReadKeysOfStagedRows(t *testing.T) {
	forceStagedSpill = 1
	t.Cleanup(func() { forceStagedSpill = 0 })
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "g")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
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
		return startServerOn(t, g).connect(t, pgx.QueryExecModeSimpleProtocol)
	}
	a := serve(true)
	b := serve(false)
	const rows, width = 2000, 1000
	runScript(t, a, []step{
		{sql: "CREATE TABLE p (id int8 PRIMARY KEY)"},
		{sql: "INSERT INTO p SELECT g FROM generate_series(1, 11) g"},
		{sql: "CREATE TABLE k (id int8 PRIMARY KEY, p_id int8 REFERENCES p(id), v text)"},
	})
	for _, tc := range []struct {
		name  string
		other string // committed by b after a's INSERT, before its COMMIT
		ids   int64  // a inserts ids+1 … ids+rows
		p     string // their p_id
		code  string // a's COMMIT
	}{
		{name: "key inserted concurrently", other: "INSERT INTO k VALUES (7, 1, 'theirs')", p: "1 + g % 10", code: "40001"},
		{name: "no conflict", other: "INSERT INTO k VALUES (100007, 1, 'theirs')", ids: 1000000, p: "1 + g % 10"},
		{name: "parent deleted concurrently", other: "DELETE FROM p WHERE id = 11", ids: 2000000, p: "1 + g % 11", code: "40001"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runScript(t, a, []step{
				{sql: "BEGIN ISOLATION LEVEL REPEATABLE READ"},
				{sql: fmt.Sprintf("INSERT INTO k SELECT g + %d, %s, repeat('x', %d) FROM generate_series(1, %d) g", tc.ids, tc.p, width, rows)},
			})
			runScript(t, b, []step{{sql: tc.other}})
			before := stagedBytesRead.Load()
			if tc.code != "" {
				runScript(t, a, []step{{sql: "COMMIT", code: tc.code}})
				// the rows' text is rows*width bytes; their keys 16 bytes a row
				if read := stagedBytesRead.Load() - before; read > rows*width/10 {
					t.Errorf("the COMMIT's checks read back %d bytes of staged rows, want only their key columns (text: %d bytes)", read, rows*width)
				}
			} else {
				runScript(t, a, []step{{sql: "COMMIT"}})
			}
		})
	}
	runScript(t, a, []step{{sql: "SELECT count(*) FROM k", rows: "2002"}})
}
