package planner

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestTypedValues scans values of every cell kind into Go types, so the
// extended protocol (binary results) and the simple protocol (text) must
// both encode them correctly.
func TestTypedValues(t *testing.T) {
	ts := startServer(t, nil)
	const q = `select 2.50::numeric, date '2026-01-02', timestamp '2026-01-02 03:04:05.5',
		timestamptz '2026-01-02 03:04:05+00', time '03:04:05', interval '1 day 2 hours',
		'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, 0.25::float4, '{"a":1}'::jsonb, 'x'::bytea, 7::int2,
		array[1, null, 3], array['a', 'b'], array[1.5::numeric], 23::oid`
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			c := ts.connect(t, m.mode)
			var (
				num          float64
				d, tsv, tstz time.Time
				tm           pgtype.Time
				iv           pgtype.Interval
				u, js        string
				f4           float32
				by           []byte
				i2           int16
				ints         []*int32
				texts        []string
				nums         []float64
				oid          uint32
			)
			err := c.QueryRow(context.Background(), q).Scan(&num, &d, &tsv, &tstz, &tm, &iv, &u, &f4, &js, &by, &i2, &ints, &texts, &nums, &oid)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%v|%s|%s|%s|%d|%s|%s|%v|%s|%s|%d|%d,%v,%d|%v|%v|%d", num, d.Format("2006-01-02"), tsv.Format("2006-01-02 15:04:05.0"),
				tstz.UTC().Format(time.RFC3339), tm.Microseconds, fmt.Sprint(iv.Days, iv.Microseconds), u, f4, js, by, i2, *ints[0], ints[1], *ints[2], texts, nums, oid)
			want := `2.5|2026-01-02|2026-01-02 03:04:05.5|2026-01-02T03:04:05Z|11045000000|1 7200000000|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|0.25|{"a": 1}|x|7|1,<nil>,3|[a b]|[1.5]|23`
			if got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestPortalRowLimit drives Parse/Bind/Describe/Execute(max rows) by hand:
// the portal is suspended after each batch of rows and resumed.
func TestPortalRowLimit(t *testing.T) {
	ts := startServer(t, createPeople(t))
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	send := func(msgs ...pgproto3.FrontendMessage) {
		for _, m := range msgs {
			fe.Send(m)
		}
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	// read returns a compact trace of the messages up to ReadyForQuery.
	read := func() string {
		var out []string
		for {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.ReadyForQuery:
				return strings.Join(out, " ")
			case *pgproto3.ParameterDescription:
				out = append(out, fmt.Sprintf("params%v", m.ParameterOIDs))
			case *pgproto3.RowDescription:
				var f []string
				for _, fd := range m.Fields {
					f = append(f, fmt.Sprintf("%s:%d", fd.Name, fd.DataTypeOID))
				}
				out = append(out, "desc"+fmt.Sprint(f))
			case *pgproto3.DataRow:
				var v []string
				for _, b := range m.Values {
					v = append(v, string(b))
				}
				out = append(out, "row"+fmt.Sprint(v))
			case *pgproto3.PortalSuspended:
				out = append(out, "suspended")
			case *pgproto3.CommandComplete:
				out = append(out, "complete("+string(m.CommandTag)+")")
			case *pgproto3.ErrorResponse:
				out = append(out, "error("+m.Code+")")
			}
		}
	}
	send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "app", "database": "main"}})
	read()
	send(&pgproto3.Parse{Name: "s", Query: "select id, name from people where id >= $1 order by id"},
		&pgproto3.Describe{ObjectType: 'S', Name: "s"},
		&pgproto3.Bind{DestinationPortal: "p", PreparedStatement: "s", Parameters: [][]byte{[]byte("1")}},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Execute{Portal: "p", MaxRows: 2},
		&pgproto3.Sync{})
	got := read()
	want := "params[20] desc[id:20 name:25] row[1 ada] row[2 ] suspended row[3 bob] complete(SELECT 1)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	send(&pgproto3.Parse{Name: "w", Query: "insert into people values ($1, 'x', 1)"},
		&pgproto3.Describe{ObjectType: 'S', Name: "w"}, &pgproto3.Sync{})
	if got := read(); got != "params[20]" {
		t.Errorf("insert: %s", got)
	}
}

// TestPsql runs psql's meta-commands and a query through the real client.
func TestPsql(t *testing.T) {
	pgtest.PsqlPath(t)
	ts := startServer(t, createPeople(t))
	host, port, _ := net.SplitHostPort(ts.addr)
	cases := []struct{ cmd, want string }{
		{`select 1 as one`, "one\n1\n"},
		{`\dt`, "public|people|table|"},
		{`\l`, "main|"},
		{`select name from people order by id desc limit 1`, "name\nbob\n"},
		{`insert into people values (9, 'x', 1)`, "INSERT 0 1"},
		{`insert into people values (9, 'x', 1)`, `duplicate key value violates unique constraint "people_pkey"`},
	}
	for _, tc := range cases {
		out := pgtest.Psql{Args: []string{"-A", "-h", host, "-p", port, "-U", "app", "-d", "main", "-c", tc.cmd}, Env: []string{"PGCONNECT_TIMEOUT=10"}, Combined: true}.Run(t).Stdout
		if !strings.Contains(out, tc.want) {
			t.Errorf("psql -c %q:\n%s\nwant it to contain %q", tc.cmd, out, tc.want)
		}
	}
}
