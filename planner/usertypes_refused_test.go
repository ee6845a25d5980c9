package planner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestUserTypesRefused: the user-defined types pgproxy does not have
// (composite and range types) answer 0A000 naming them, never a
// silent success, and a column of such a type is an unknown type (42704)
// as it is in PostgreSQL before the type exists.
func TestUserTypesRefused(t *testing.T) {
	ctx := context.Background()
	c := startServer(t, nil).connect(t, pgx.QueryExecModeSimpleProtocol)
	cases := []struct{ sql, code, text string }{
		{"alter domain posint set default 1", "42704", `type "posint" does not exist`},
		{"create type pair as (a int, b text)", "0A000", "composite types"},
		{"create type span as range (subtype = int4)", "0A000", "range types"},
		{"create table t (a posint)", "42704", `type "posint" does not exist`},
		{"drop domain posint", "42704", `type "posint" does not exist`},
	}
	for _, tc := range cases {
		_, err := c.Exec(ctx, tc.sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != tc.code || !strings.Contains(pe.Message, tc.text) {
			t.Errorf("%s: %v, want %s naming %q", tc.sql, err, tc.code, tc.text)
		}
	}
}
