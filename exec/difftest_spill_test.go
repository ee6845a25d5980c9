package exec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestDifferentialSpill runs the scripts heavy in sorts, aggregates and
// joins with every spilling operator forced to spill (forceSpill: a
// one-byte work_mem, pieces of a few rows, three-way merges), comparing
// with PostgreSQL as the plain differential run does.
func TestDifferentialSpill(t *testing.T) {
	scripts := []string{"01_basics.sql", "19_window_frames.sql", "26_srf_agg.sql", "35_decorrelate.sql", "45_windows_setops_casts.sql", "47_aggregates.sql", "50_like_escape_joins.sql", "55_index_joins.sql"}
	forceSpill(t)
	srv := pgtest.Shared(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	stats := &diffStats{}
	before := spillBytesTotal.Load()
	for _, f := range scripts {
		t.Run(strings.TrimSuffix(f, ".sql"), func(t *testing.T) {
			db := "dspill_" + strings.TrimSuffix(f, ".sql")
			if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+db); err != nil {
				t.Fatal(err)
			}
			if _, err := admin.Exec(ctx, "CREATE DATABASE "+db+" TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.UTF-8'"); err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, srv.ConnString(db))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			runScript(t, filepath.Join("..", "testdata", "sql", f), conn, db, stats, nil)
		})
	}
	if spillBytesTotal.Load() == before {
		t.Fatal("no operator spilled")
	}
	t.Logf("spill: %d queries compared with PostgreSQL, %d bytes spilled", stats.cases, spillBytesTotal.Load()-before)
}
