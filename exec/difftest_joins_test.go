package exec

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestDifferentialJoinMethods runs the join scripts again with one join
// method disabled on both servers (PostgreSQL's enable_hashjoin and
// enable_nestloop), so the lookup join (ops_indexjoin.go) and the hash
// join are each compared with PostgreSQL on every join shape whichever
// the engine would choose by itself.
func TestDifferentialJoinMethods(t *testing.T) {
	scripts := []string{"55_index_joins.sql", "35_decorrelate.sql", "18_lateral_joins.sql", "50_like_escape_joins.sql", "52_cte_edges.sql", "28_search_cycle.sql", "12_edge.sql", "32_edge_sql.sql", "59_join_keys.sql", "62_join_build_layout.sql", "63_join_order.sql", "65_ordered_limit.sql", "66_text_index_ranges.sql", "67_left_join_reorder.sql", "68_correlated_key_lookups.sql"}
	modes := []map[string]string{
		{"enable_hashjoin": "off"},
		{"enable_nestloop": "off"},
	}
	srv := pgtest.Shared(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	stats := &diffStats{}
	for _, mode := range modes {
		for _, f := range scripts {
			var label []string
			for k, v := range mode {
				label = append(label, k+"="+v)
			}
			name := strings.TrimSuffix(f, ".sql") + "/" + strings.Join(label, ",")
			t.Run(name, func(t *testing.T) {
				db := "dj_" + strings.NewReplacer("-", "_", ".", "_", "=", "_", "/", "_", ",", "_").Replace(name)
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
				runScript(t, filepath.Join("..", "testdata", "sql", f), conn, db, stats, mode)
			})
		}
	}
	t.Logf("join methods: %d queries compared with PostgreSQL", stats.cases)
}
