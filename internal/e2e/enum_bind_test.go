package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestBindEnumTypes is TestBindTypes for a user-defined enum and an array
// of it, whose OIDs each server assigns: every label (and one that is
// not) is sent as untyped text, as text declared with the server's own
// OID of the type and in binary (enum_send is the label's bytes), read
// back in text and binary, compared with PostgreSQL 15; then sent with no
// declared type into enum and enum[] columns (INSERT … RETURNING) and
// compared in a WHERE clause. Binary arrays carry the element OID, which
// differs between the servers, so it is masked.
func TestBindEnumTypes(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.Shared(t)
	pgc, err := pgx.Connect(ctx, pg.ConnString(freshPostgresDB(t, pg)))
	if err != nil {
		t.Fatal(err)
	}
	defer pgc.Close(ctx)
	p := startProxy(t)
	pc, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close(ctx)
	conns := []*pgx.Conn{pgc, pc}
	oids := make([][2]uint32, len(conns)) // mood, mood[]
	for k, c := range conns {
		mustExec(t, ctx, c, "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
		mustExec(t, ctx, c, "CREATE TABLE moods (id serial PRIMARY KEY, m mood, ms mood[])")
		if err := c.QueryRow(ctx, "SELECT 'mood'::regtype::oid, 'mood[]'::regtype::oid").Scan(&oids[k][0], &oids[k][1]); err != nil {
			t.Fatal(err)
		}
	}
	str := func(s string) *string { return &s }
	values := []struct {
		array bool
		value *string
	}{
		{false, str("happy")}, {false, str("sad")}, {false, str("nope")}, {false, nil},
		{true, str("{sad,happy}")}, {true, str("{ok,NULL}")}, {true, str("{}")}, {true, str("{meh}")},
	}
	for _, v := range values {
		typ, slot := "mood", 0
		if v.array {
			typ, slot = "mood[]", 1
		}
		name := typ + " " + show(v.value)
		var bin []byte
		binOK := false
		if v.value != nil {
			r := pgc.PgConn().ExecParams(ctx, "SELECT $1::"+typ, [][]byte{[]byte(*v.value)}, nil, nil, []int16{1}).Read()
			if r.Err == nil {
				bin, binOK = r.Rows[0][0], true
			}
		}
		sql := fmt.Sprintf("SELECT $1::%s AS t, $1::%s AS b", typ, typ)
		type mode struct {
			name   string
			typed  bool
			format int16
			param  []byte
		}
		modes := []mode{{"text untyped", false, 0, raw(v.value)}, {"text typed", true, 0, raw(v.value)}}
		if binOK || v.value == nil {
			modes = append(modes, mode{"binary", true, 1, bin})
		}
		for _, m := range modes {
			run := func(k int) string {
				var oid uint32
				if m.typed {
					oid = oids[k][slot]
				}
				param := m.param
				if m.format == 1 && v.array && param != nil {
					param = withElemOID(param, oids[k][0]) // the element OID the server knows
				}
				return answer(maskArrayOID(conns[k].PgConn().ExecParams(ctx, sql, [][]byte{param}, []uint32{oid}, []int16{m.format}, []int16{0, 1}).Read(), v.array))
			}
			if w, g := run(0), run(1); w != g {
				t.Errorf("%s (%s):\n  postgres: %s\n  pgproxy:  %s", name, m.name, w, g)
			}
		}
		col := "m"
		if v.array {
			col = "ms"
		}
		for _, sql := range []string{
			"INSERT INTO moods (" + col + ") VALUES ($1) RETURNING " + col + ", " + col,
			"SELECT count(*), count(*) FROM moods WHERE " + col + " = $1",
		} {
			run := func(k int) string {
				return answer(maskArrayOID(conns[k].PgConn().ExecParams(ctx, sql, [][]byte{raw(v.value)}, nil, nil, []int16{0, 1}).Read(), v.array))
			}
			if w, g := run(0), run(1); w != g {
				t.Errorf("%s (%s):\n  postgres: %s\n  pgproxy:  %s", name, sql, w, g)
			}
		}
	}
	sql := "SELECT m, ms, m < 'happy', m FROM moods ORDER BY m NULLS FIRST, id"
	run := func(c *pgx.Conn) string {
		return answer(maskArrayOID(c.PgConn().ExecParams(ctx, sql, nil, nil, nil, []int16{0, 0, 0, 1}).Read(), false))
	}
	if w, g := run(pgc), run(pc); w != g {
		t.Errorf("stored:\n  postgres: %s\n  pgproxy:  %s", w, g)
	}
}

// withElemOID is a binary array with its element type OID (bytes 8-11 of
// array_send's header) replaced.
func withElemOID(b []byte, oid uint32) []byte {
	if len(b) < 12 {
		return b
	}
	c := append([]byte(nil), b...)
	c[8], c[9], c[10], c[11] = byte(oid>>24), byte(oid>>16), byte(oid>>8), byte(oid)
	return c
}

// maskArrayOID zeroes the element OID of the binary array cells of r
// (every second column) when array is set.
func maskArrayOID(r *pgconn.Result, array bool) *pgconn.Result {
	if !array || r.Err != nil {
		return r
	}
	for _, row := range r.Rows {
		for i := 1; i < len(row); i += 2 {
			if row[i] != nil {
				row[i] = withElemOID(row[i], 0)
			}
		}
	}
	return r
}
