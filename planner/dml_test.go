package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// step is one statement of a script: either its rows (values joined by
// "|", rows by ";"), its command tag, or its error (SQLSTATE + message
// fragment, and DETAIL when given).
type step struct {
	sql    string
	args   []any
	rows   string // expected rows when set (or when query is true)
	query  bool   // compare rows even when rows is ""
	tag    string
	code   string
	msg    string
	detail string
}

// runScript runs steps in order on one connection.
func runScript(t *testing.T, c *pgx.Conn, steps []step) {
	t.Helper()
	ctx := context.Background()
	for i, s := range steps {
		rows, err := c.Query(ctx, s.sql, s.args...)
		var got []string
		if err == nil {
			for rows.Next() {
				vals, verr := rows.Values()
				if verr != nil {
					err = verr
					break
				}
				parts := make([]string, len(vals))
				for k, v := range vals {
					parts[k] = fmt.Sprint(v)
				}
				got = append(got, strings.Join(parts, "|"))
			}
			rows.Close()
			if err == nil {
				err = rows.Err()
			}
		}
		if s.code != "" {
			var pe *pgconn.PgError
			if err == nil || sqlState(err) != s.code || !strings.Contains(err.Error(), s.msg) {
				t.Fatalf("step %d %q: err %v, want %s %q", i, s.sql, err, s.code, s.msg)
			}
			if s.detail != "" {
				if !asPg(err, &pe) || pe.Detail != s.detail {
					t.Fatalf("step %d %q: detail %q, want %q", i, s.sql, pe.Detail, s.detail)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d %q: %v", i, s.sql, err)
		}
		if s.tag != "" && rows.CommandTag().String() != s.tag {
			t.Fatalf("step %d %q: tag %q, want %q", i, s.sql, rows.CommandTag().String(), s.tag)
		}
		if s.rows != "" || s.query {
			if g := strings.Join(got, ";"); g != s.rows {
				t.Fatalf("step %d %q: rows\n got  %s\n want %s", i, s.sql, g, s.rows)
			}
		}
	}
}

func asPg(err error, pe **pgconn.PgError) bool {
	p, ok := err.(*pgconn.PgError)
	if ok {
		*pe = p
	}
	return ok
}

// TestDML: every DML form against the people table, in each protocol
// mode (each on a fresh server, autocommit).
func TestDML(t *testing.T) {
	steps := []step{
		{sql: "insert into people values (4, 'cy', 4.5)", tag: "INSERT 0 1"},
		{sql: "insert into people (id, name) values (5, 'di'), (6, 'ed')", tag: "INSERT 0 2"},
		{sql: "select id, name, score from people where id >= 4 order by id", rows: "4|cy|4.5;5|di|<nil>;6|ed|<nil>"},
		{sql: "insert into people (name, id) values ('fa', 7) returning id, upper(name) as up", rows: "7|FA"},
		{sql: "insert into people values (8, DEFAULT, DEFAULT)", tag: "INSERT 0 1"},
		{sql: "insert into people select id + 100, name, score from people where id <= 2", tag: "INSERT 0 2"},
		{sql: "select count(*) from people", rows: "10"},
		{sql: "insert into people (id) values ('9')", tag: "INSERT 0 1"},
		{sql: "insert into people values (1, 'dup', 0)", code: "23505", msg: `duplicate key value violates unique constraint "people_pkey"`, detail: "Key (id)=(1) already exists."},
		{sql: "insert into people values (20, 'a', 0), (20, 'b', 0)", code: "23505", msg: "people_pkey", detail: "Key (id)=(20) already exists."},
		{sql: "insert into people (name) values ('nobody')", code: "23502", msg: `null value in column "id" of relation "people" violates not-null constraint`, detail: "Failing row contains (null, nobody, null)."},
		{sql: "insert into people (nope) values (1)", code: "42703", msg: `column "nope" of relation "people" does not exist`},
		{sql: "insert into nope values (1)", code: "42P01", msg: `relation "nope" does not exist`},
		{sql: "insert into people (id, id) values (1, 2)", code: "42701", msg: `column "id" specified more than once`},
		{sql: "insert into people values (1, 'x', 0) on conflict do nothing", tag: "INSERT 0 0"},
		{sql: "insert into people values (1, 'x', 0), (30, 'new', 1) on conflict (id) do nothing returning id", rows: "30"},
		{sql: "insert into people values (1, 'upd', 9) on conflict (id) do update set name = excluded.name || '!', score = people.score + 1 returning id, name, score", rows: "1|upd!|2.5"},
		{sql: "insert into people as p values (2, 'no', 0) on conflict (id) do update set name = 'yes' where p.name is not null", tag: "INSERT 0 0"},
		{sql: "insert into people values (1, 'a', 0), (1, 'b', 0) on conflict (id) do update set name = excluded.name", code: "21000", msg: "cannot affect row a second time"},
		{sql: "insert into people values (1, 'a', 0) on conflict (name) do nothing", code: "42P10", msg: "no unique or exclusion constraint"},
		{sql: "update people set score = score * 2 where id = 3 returning id, score", rows: "3|0.2"},
		{sql: "update people set name = 'z' where id > 100", tag: "UPDATE 2"},
		{sql: "update people p set name = q.name from people q where q.id = p.id + 100 and p.id = 1 returning p.id, p.name", rows: "1|z"},
		{sql: "update people set id = 2 where id = 1", code: "23505", msg: "people_pkey", detail: "Key (id)=(2) already exists."},
		{sql: "update people set id = id + 1000 where id < 100", tag: "UPDATE 10"},
		{sql: "update people set id = id - 1000 where id > 1000", tag: "UPDATE 10"},
		{sql: "update people set (name, score) = ('pair', 7) where id = 4 returning name, score", rows: "pair|7"},
		{sql: "update people set nope = 1", code: "42703", msg: `column "nope" of relation "people" does not exist`},
		{sql: "delete from people where id > 100 returning id", rows: "101;102"},
		{sql: "delete from people p using people q where q.id = p.id and q.name = 'pair'", tag: "DELETE 1"},
		{sql: "delete from people where id = $1", args: []any{int64(30)}, tag: "DELETE 1"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "1,2,3,5,6,7,8,9"},
		{sql: "merge into people t using (values (1, 'm1'), (50, 'm50')) as s(id, name) on t.id = s.id " +
			"when matched then update set name = s.name when not matched then insert (id, name) values (s.id, s.name)", tag: "MERGE 2"},
		{sql: "select id, name from people where id in (1, 50) order by id", rows: "1|m1;50|m50"},
		{sql: "merge into people t using (select 2 as id) s on t.id = s.id when matched then delete", tag: "MERGE 1"},
		{sql: "merge into people t using (select 1 as id) s on t.id = s.id " +
			"when matched and t.id = 1 then update set score = 100 when not matched by source and t.id > 8 then delete returning merge_action(), t.id, t.score", rows: "UPDATE|1|100;DELETE|9|<nil>;DELETE|50|<nil>"},
		{sql: "select string_agg(id::text, ',' order by id) from people", rows: "1,3,5,6,7,8"},
		{sql: "merge into people t using (values (3, 'x'), (60, 'y')) s(id, name) on t.id = s.id when matched then update set name = s.name " +
			"when not matched then insert values (s.id, s.name, 0) returning merge_action() as act, t.*", rows: "UPDATE|3|x|0.2;INSERT|60|y|0"},
		{sql: "delete from people where id = 60"},
		{sql: "merge into people t using (values (1), (1)) s(id) on t.id = s.id when matched then update set score = 0", code: "21000", msg: "MERGE command cannot affect row a second time"},
		{sql: "truncate people", tag: "TRUNCATE TABLE"},
		{sql: "select count(*) from people", rows: "0"},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			ts := startServer(t, createPeople(t))
			runScript(t, ts.connect(t, m.mode), steps)
		})
	}
}
