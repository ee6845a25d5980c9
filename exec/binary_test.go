package exec

import (
	"bytes"
	"context"
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestBinaryMatchesPostgres compares AppendBinary with the binary result
// format of a real PostgreSQL 15 for the same expressions.
func TestBinaryMatchesPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	conn, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	eng := &Engine{}
	cases := []string{
		"true", "1::int2", "-123456::int4", "9223372036854775807::int8", "1.5::float4", "-2.25e10::float8",
		"'hello'::text", "'x'::varchar(3)", "'\\x0102ff'::bytea", "'2024-02-29'::date", "'1999-12-31'::date",
		"'2024-02-29 12:34:56.789'::timestamp", "'2024-02-29 12:34:56+02'::timestamptz", "'10:30:01.5'::time",
		"'1 year 2 mons 3 days 04:05:06.5'::interval", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
		"'{\"b\": [1, 2], \"a\": 1}'::jsonb", "'{\"a\":1}'::json", "0::numeric", "123.4500::numeric", "-0.000123::numeric",
		"1e30::numeric", "12345678.9::numeric(12,3)", "'NaN'::numeric", "ARRAY[1, NULL, 3]", "ARRAY['a', 'b c']",
		"'{}'::int4[]", "'pg_class'::regclass", "23::oid", "'abc'::name", "'a'::char(3)",
		`'r'::"char"`, `''::"char"`, `'xyz'::"char"`, `'é'::"char"`, `ARRAY['a', 'b']::"char"[]`, "(SELECT relkind FROM pg_class WHERE relname = 'pg_class')",
	}
	for _, expr := range cases {
		sql := "SELECT " + expr
		r, err := eng.Query(ctx, nil, sql)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		ours, ok, err := r.Binary(0, 0)
		if err != nil || !ok {
			t.Fatalf("%s: %v %v", expr, ok, err)
		}
		res := conn.PgConn().ExecParams(ctx, sql, nil, nil, nil, []int16{1}).Read()
		if res.Err != nil {
			t.Fatalf("%s: postgres: %v", expr, res.Err)
		}
		if want := res.Rows[0][0]; !bytes.Equal(ours, want) {
			t.Errorf("%s: binary\n  engine   %x\n  postgres %x", expr, ours, want)
		}
	}
}
