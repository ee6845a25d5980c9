package planner

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// Through the extended protocol, as drivers use it, every DateStyle and
// IntervalStyle gives PostgreSQL 15's ParameterStatus, reads text
// parameters in the style's field order, and renders text results in the
// style, while binary results stay the same bytes.
func TestDateStyleExtendedProtocol(t *testing.T) {
	pg := pgtest.Shared(t)
	ctx := context.Background()
	want := freshPGDatabase(ctx, t, pg, "datestyle_ext")
	ts := startServer(t, nil)
	got := ts.connect(t, pgx.QueryExecModeExec)
	params := [][]byte{[]byte("01/02/2024"), []byte("Jan 2 2024 10:00:00.5"), []byte("01/02/2024 10:00 UTC"), []byte("-1 year 2 mons 3 days -04:05:06.5")}
	const sql = "select $1::date, $2::timestamp, $3::timestamptz, $4::interval, array[$1::date], $4::interval::text"
	run := func(c *pgconn.PgConn) string {
		var b strings.Builder
		for _, ds := range []string{"ISO, MDY", "SQL, DMY", "Postgres, MDY", "Postgres, DMY", "German", "SQL, YMD"} {
			for _, is := range []string{"postgres", "postgres_verbose", "sql_standard", "iso_8601"} {
				if _, err := c.Exec(ctx, fmt.Sprintf("set datestyle = '%s'; set intervalstyle = %s", ds, is)).ReadAll(); err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&b, "%s | %s\n", c.ParameterStatus("DateStyle"), c.ParameterStatus("IntervalStyle"))
				for _, format := range []int16{0, 1} {
					res := c.ExecParams(ctx, sql, params, nil, []int16{0}, []int16{format}).Read()
					if res.Err != nil {
						fmt.Fprintf(&b, "  %d: %v\n", format, res.Err)
						continue
					}
					for _, row := range res.Rows {
						for _, v := range row {
							if format == 1 {
								fmt.Fprintf(&b, "  %s", hex.EncodeToString(v))
							} else {
								fmt.Fprintf(&b, "  %s", v)
							}
						}
					}
					b.WriteString("\n")
				}
			}
		}
		return b.String()
	}
	w, g := run(want.PgConn()), run(got.PgConn())
	if w != g {
		t.Errorf("postgres:\n%s\npgproxy:\n%s", w, g)
	}
}

// COPY reads and writes dates in the session's DateStyle as PostgreSQL's
// does: rows copied in under SQL, DMY come out the same in Postgres style
// and in COPY TO; zone-less timestamptz fields are in the session's
// TimeZone.
func TestDateStyleCopy(t *testing.T) {
	pg := pgtest.Shared(t)
	ctx := context.Background()
	want := freshPGDatabase(ctx, t, pg, "datestyle_copy")
	ts := startServer(t, nil)
	got := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	data := []byte("1\t01/02/2024\t02/01/2024 10:00:00.5\t31/12/2024 23:00:00 UTC\n2\t31.12.1999\tDec 31 1999 10:00\t01/02/2024 10:00:00+02\n3\t\\N\t1-2-3\t01/02/2024 10:00\n")
	run := func(c *pgconn.PgConn) string {
		var b strings.Builder
		step := func(sql string) {
			res, err := c.Exec(ctx, sql).ReadAll()
			if err != nil {
				fmt.Fprintf(&b, "%s: %v\n", sql, err)
				return
			}
			for _, r := range res {
				for _, row := range r.Rows {
					for _, v := range row {
						fmt.Fprintf(&b, "%s|", v)
					}
					b.WriteString("\n")
				}
			}
		}
		step("drop table if exists cd; create table cd (id int4 primary key, d date, ts timestamp, tz timestamptz); set datestyle = 'SQL, DMY'; set timezone = 'America/New_York'")
		if _, err := c.CopyFrom(ctx, strings.NewReader(string(data)), "COPY cd FROM STDIN"); err != nil {
			fmt.Fprintf(&b, "copy from: %v\n", err)
		}
		step("set datestyle = 'Postgres, MDY'")
		step("select * from cd order by id")
		var out strings.Builder
		if _, err := c.CopyTo(ctx, &out, "COPY cd TO STDOUT"); err != nil {
			fmt.Fprintf(&b, "copy to: %v\n", err)
		}
		b.WriteString(out.String())
		step("reset datestyle; reset timezone")
		return b.String()
	}
	w, g := run(want.PgConn()), run(got.PgConn())
	if w != g {
		t.Errorf("postgres:\n%s\npgproxy:\n%s", w, g)
	}
}
