package planner

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestIntegrityErrorFieldsDifferential compares the error fields naming
// what an integrity violation is about — schema, table, column and
// constraint (ErrorResponse s, t, c, n) — with PostgreSQL 15's for every
// kind of violation, inside a statement, a cascade and ALTER TABLE. ORMs
// map them back to model fields (Django's IntegrityError handling, Rails'
// and Sequelize's unique-field errors read constraint_name).
func TestIntegrityErrorFieldsDifferential(t *testing.T) {
	pg := pgtest.Shared(t)
	ctx := context.Background()
	want := freshPGDatabase(ctx, t, pg, "errfields")
	ts := startServer(t, nil)
	got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)

	schema := []string{
		"create table parent (id int4 primary key, code text constraint parent_code_uq unique)",
		"create table child (id int4 primary key, parent_id int4 constraint child_parent_fk references parent, n int4 not null, price numeric constraint price_nonneg check (price >= 0))",
		"create table loose (id int4, v int4)",
		"insert into parent values (1, 'a'), (2, 'b')",
		"insert into child values (10, 1, 1, 5)",
		"insert into loose values (1, null), (1, -1)",
	}
	cases := []string{
		"insert into parent values (1, 'z')",
		"insert into parent values (3, 'a')",
		"update parent set code = 'b' where id = 1",
		"insert into child values (11, 99, 1, 1)",
		"insert into child values (11, 1, null, 1)",
		"insert into child values (11, 1, 1, -1)",
		"update child set price = -2",
		"delete from parent where id = 1",
		"update parent set id = 5 where id = 1",
		"insert into child (id, parent_id, n) select 12, 1, 1 union all select 12, 1, 1",
		"insert into parent values (2, 'd') on conflict (id) do update set code = 'a'",
		"alter table loose alter column v set not null",
		"alter table loose add constraint v_pos check (v > 0)",
		"alter table loose add constraint loose_id_uq unique (id)",
		"create unique index loose_id_idx on loose (id)",
	}
	for _, c := range []*pgx.Conn{want, got} {
		for _, s := range schema {
			if _, err := c.Exec(ctx, s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
	}
	fields := func(c *pgx.Conn, sql string) string {
		_, err := c.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) {
			return fmt.Sprintf("no error (%v)", err)
		}
		return fmt.Sprintf("%s schema=%q table=%q column=%q constraint=%q datatype=%q",
			pe.Code, pe.SchemaName, pe.TableName, pe.ColumnName, pe.ConstraintName, pe.DataTypeName)
	}
	for _, sql := range cases {
		t.Run(sql, func(t *testing.T) {
			w, g := fields(want, sql), fields(got, sql)
			if w[0] != '2' {
				t.Fatalf("PostgreSQL answered %s", w)
			}
			if w != g {
				t.Errorf("\n  postgres: %s\n  pgproxy:  %s", w, g)
			}
		})
	}
}
