package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestPipelineOneTransaction: the statements of an extended-protocol
// pipeline (a pgx.Batch: one Sync at the end) are one implicit
// transaction, as in PostgreSQL — a later statement reads the earlier
// ones' writes, and an error anywhere rolls every write back. The same
// batches run against PostgreSQL 15 and pgproxy must give the same
// per-statement outcomes and the same table afterwards.
func TestPipelineOneTransaction(t *testing.T) {
	pg := pgtest.Shared(t)
	ctx := context.Background()
	type batch struct {
		stmts []string
	}
	batches := []batch{
		{[]string{"insert into p values (1, 'a')", "insert into p values (2, 'b')", "select count(*) from p"}},
		// a unique violation in the middle: 3 is not kept, 4 never runs
		{[]string{"insert into p values (3, 'c')", "insert into p values (1, 'dup')", "insert into p values (4, 'd')"}},
		{[]string{"update p set name = 'x' where id = 1", "select name from p where id = 1", "delete from p where id = 2", "select 1/0"}},
		{[]string{"insert into p values (5, 'e') returning id", "update p set name = name || '!' where id = 5 returning name", "select string_agg(id::text, ',' order by id) from p"}},
		{[]string{"insert into p values (nextval('ps'), 'seq')", "select currval('ps')", "insert into p values (currval('ps') + 1, 'again')"}},
	}
	setup := []string{"drop table if exists p", "drop sequence if exists ps", "create table p (id int primary key, name text)", "create sequence ps start 100"}
	run := func(name string, c *pgx.Conn) []string {
		for _, s := range setup {
			if _, err := c.Exec(ctx, s); err != nil && !strings.Contains(s, "drop") {
				t.Fatalf("%s: %s: %v", name, s, err)
			}
		}
		var out []string
		for _, b := range batches {
			pb := &pgx.Batch{}
			for _, s := range b.stmts {
				pb.Queue(s)
			}
			br := c.SendBatch(ctx, pb)
			for _, s := range b.stmts {
				rows, err := br.Query()
				var vals []string
				if err == nil {
					for rows.Next() {
						v, _ := rows.Values()
						vals = append(vals, fmt.Sprint(v...))
					}
					rows.Close()
					err = rows.Err()
				}
				if code := sqlState(err); code != "" {
					out = append(out, s+" -> ERROR "+code)
				} else if err != nil {
					out = append(out, s+" -> "+err.Error())
				} else {
					out = append(out, s+" -> "+strings.Join(vals, ","))
				}
			}
			_ = br.Close()
			var all string
			if err := c.QueryRow(ctx, "select coalesce(string_agg(id::text || ':' || name, ',' order by id), '') from p").Scan(&all); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, "table: "+all)
		}
		return out
	}
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeExec} {
		t.Run(mode.String(), func(t *testing.T) {
			cfg, err := pgx.ParseConfig(pg.ConnString("postgres"))
			if err != nil {
				t.Fatal(err)
			}
			cfg.DefaultQueryExecMode = mode
			want, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer want.Close(ctx)
			ts := startServer(t, nil)
			w, g := run("postgres", want), run("pgproxy", ts.connect(t, mode))
			if len(w) != len(g) {
				t.Fatalf("outcomes: postgres %d, pgproxy %d", len(w), len(g))
			}
			for i := range w {
				if w[i] != g[i] {
					t.Errorf("postgres: %s\n      pgproxy:  %s", w[i], g[i])
				}
			}
			// the failing batches left nothing (3 was never published)
			if g[7] != "table: 1:a,2:b" || g[len(g)-1] != "table: 1:a,2:b,5:e!,100:seq,101:again" {
				t.Errorf("unexpected states: %q, %q", g[7], g[len(g)-1])
			}
		})
	}
}
