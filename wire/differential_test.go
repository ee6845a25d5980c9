package wire

import (
	"context"
	"encoding/binary"
	"net"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestDifferentialPostgres replays message scenarios against the wire
// server (fake engine) and a real PostgreSQL 15, and requires identical
// transcripts: transaction states, command tags, warnings, error codes and
// messages, ParameterStatus reporting, portal suspension, empty queries.
// Only statements both sides understand are used.
func TestDifferentialPostgres(t *testing.T) {
	pgtest.SkipShort(t, "PostgreSQL 15")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	pg, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	ts := startServer(t, nil)
	// the fake's table t (a int8, b text), on the PostgreSQL side
	if c, err := pg.Connect(ctx); err != nil {
		t.Fatal(err)
	} else {
		if _, err := c.Exec(ctx, "create table t (a int8, b text)"); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}

	scenarios := []struct {
		name string
		msgs []pgproto3.FrontendMessage
	}{
		{"transactions", []pgproto3.FrontendMessage{
			q("begin; savepoint a; select * from nope"), q("select 1"), q("rollback to a"), q("select 1"),
			q("select * from nope"), q("commit"), q("commit"), q("begin; begin"), q("rollback; release a"), q("rollback"),
			q("savepoint x"), q("rollback to x"), q("commit and chain"),
			q("begin isolation level serializable; commit and chain; show transaction isolation level"), q("rollback"),
			q("start transaction read only; show transaction_read_only; rollback and chain; show transaction_read_only; end"),
		}},
		{"failed_block_extended", []pgproto3.FrontendMessage{
			q("begin"), q("select * from nope"),
			parse("", "select 1"), syncMsg,
			parse("r", "rollback"), &pgproto3.Describe{ObjectType: 'S', Name: "r"}, syncMsg,
			q("show search_path"), q("set search_path = x"),
			bind("", "r"), execute("", 0), syncMsg,
		}},
		{"settings_and_savepoints", []pgproto3.FrontendMessage{
			q("begin; set search_path = a; savepoint s; set search_path = b; rollback to s; show search_path"),
			q("set search_path = c; savepoint s2; set application_name = 'sp'; release s2; show search_path"),
			q("rollback to s; show search_path; show application_name"),
			q("commit; show search_path"),
			q("begin; set local search_path = l1; savepoint q; set local search_path = l2; rollback to q; show search_path; commit; show search_path"),
			q("begin; savepoint a; savepoint b; release a; rollback to b"), q("rollback to a"), q("rollback"),
			q("begin; release nope"), q("rollback to nope"), q("rollback"),
			q("begin; savepoint a; savepoint a; release a; rollback to a; commit"),
		}},
		{"implicit_blocks", []pgproto3.FrontendMessage{
			q("select 1; commit"), q("select 1; begin; select 1"), q("commit"),
			q("begin; select * from nope; select 1"), q("rollback"), q("set application_name = 'a'; discard all"),
		}},
		{"settings", []pgproto3.FrontendMessage{
			q("set DateStyle to 'iso, dmy'; show datestyle"), q("set local statement_timeout = 10"),
			q("set transaction isolation level serializable"),
			q("begin isolation level repeatable read; show transaction isolation level; commit"),
			q("set session characteristics as transaction read only; show default_transaction_read_only"),
			q("set default_transaction_read_only = off"),
			q("set time zone 'Europe/Paris'; show timezone; reset timezone; show TimeZone"),
			q("set server_version = '16'"), q("show nope"), q("reset nope"),
			q("select current_setting('nope.x', true)"), q("select current_setting('nope.y')"),
			q("set nope.z = 'v'; show nope.z; select current_setting('nope.z')"),
			q("set statement_timeout = 1500; show statement_timeout"), q("set statement_timeout = '2min'; show statement_timeout"),
			q("set extra_float_digits = 5"), q("set application_name = 'x'"),
			q("select set_config('application_name', 'y', false)"),
			q("begin; set application_name = 'z'; rollback"), q("show application_name"),
			q("set search_path = a, \"B\"; show search_path"),
			q("begin; set local search_path = c; show search_path; commit; show search_path"),
			q("reset all; show search_path"),
			q("set client_min_messages = warning; commit"), q("set client_min_messages = error; commit"),
			q("reset client_min_messages; set names 'UTF8'; show client_encoding"),
		}},
		{"syntax", []pgproto3.FrontendMessage{
			q("select 'open"), q("select \"open"), q("select $$open"), q("select 1 /* open"),
			q("begin foo"), q("set x"), q("set x to"), q("savepoint"), q("rollback to"), q("show"), q("reset time"),
			q("commit and"), q("start"), q("release"), q("select 1; begin garbage; select 2"),
			q("copy t from stdin with (bogus)"), q("copy t from stdin delimiter 'ab'"),
		}},
		{"protocol_errors_recoverable", []pgproto3.FrontendMessage{
			parse("s", "select 1"), syncMsg,
			rawMsg('D', 'X', 's', 0), syncMsg,
			rawMsg('C', 'X', 's', 0), syncMsg,
			&pgproto3.Bind{PreparedStatement: "s", ParameterFormatCodes: []int16{0, 1}}, syncMsg,
			&pgproto3.Bind{PreparedStatement: "s", ResultFormatCodes: []int16{0, 1}}, syncMsg,
			&pgproto3.Bind{PreparedStatement: "s", ResultFormatCodes: []int16{7}}, execute("", 0), syncMsg,
			parse("m", "select 1; select 1"), syncMsg,
			execute("nope", 0), syncMsg,
		}},
		{"invalid_utf8", []pgproto3.FrontendMessage{
			q("select '\xff'"), parse("", "select '\xc3\x28'"), syncMsg,
			parse("", "select $1::text"), bind("", "", "ok\xe2\x82"), syncMsg,
			bind("", "", "ok \u00e9"), execute("", 0), syncMsg, q("select 1"),
		}},
		{"protocol_error_unknown_type", []pgproto3.FrontendMessage{q("select 1"), rawMsg('!'), syncMsg}},
		{"protocol_error_bad_string", []pgproto3.FrontendMessage{rawMsg('Q', 's', 'e', 'l'), syncMsg}},
		{"settings_more", []pgproto3.FrontendMessage{
			q("begin read only; show transaction_read_only; commit"),
			q("begin; set transaction read only; show transaction_read_only; commit"),
			q("show time zone"), q("set time zone default; show timezone"),
			q("set session authorization default"), q("reset session authorization"),
			q("show server_version_num"), q("set search_path to default; show search_path"),
			q("set lock_timeout = '5s'; show lock_timeout; set statement_timeout = 0; show statement_timeout"),
			q("set datestyle = 'ISO'; show datestyle"), q("set intervalstyle = postgres; show intervalstyle"),
			q("set extra_float_digits to 3; show extra_float_digits"), q("begin; reset all; rollback; show intervalstyle"),
			q("set idle_in_transaction_session_timeout = 60000; show idle_in_transaction_session_timeout"),
			q("show is_superuser; show integer_datetimes; show server_encoding; show standard_conforming_strings"),
			q("set xmloption = content; set row_security = off; set check_function_bodies = false; set default_tablespace = ''"),
			q("set client_encoding = 'UTF8'; show client_encoding"),
		}},
		{"empty", []pgproto3.FrontendMessage{
			q(""), q(" ; "), q("-- nothing"), parse("", ""), bind("", ""), &pgproto3.Describe{ObjectType: 'P'}, execute("", 0), syncMsg,
		}},
		{"extended", []pgproto3.FrontendMessage{
			parse("s", "select 1"), &pgproto3.Describe{ObjectType: 'S', Name: "s"}, bind("p", "s"), execute("p", 0), execute("p", 0), syncMsg,
			parse("s", "select 1"), syncMsg, bind("", "s", "1"), syncMsg, bind("", "missing"), syncMsg,
			parse("", "begin"), bind("", ""), execute("", 0), parse("", "select * from nope"), bind("", ""), execute("", 0),
			parse("", "select 1"), syncMsg,
			q("rollback"),
			parse("", "show DateStyle"), &pgproto3.Describe{ObjectType: 'S'}, bind("", ""), &pgproto3.Describe{ObjectType: 'P'}, execute("", 0), syncMsg,
			parse("", "set application_name = 'e'"), &pgproto3.Describe{ObjectType: 'S'}, bind("", ""), execute("", 0), syncMsg,
			&pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Close{ObjectType: 'S', Name: "s"}, &pgproto3.Close{ObjectType: 'P', Name: "zz"}, syncMsg,
			q("deallocate all"), q("deallocate nope"),
		}},
		{"formats_and_flush", []pgproto3.FrontendMessage{
			parse("sh", "show DateStyle"), &pgproto3.Bind{PreparedStatement: "sh", ResultFormatCodes: []int16{1}},
			&pgproto3.Describe{ObjectType: 'P'}, execute("", 0), flushMsg,
			parse("g", "select generate_series(1, 3)"), &pgproto3.Bind{PreparedStatement: "g", ResultFormatCodes: []int16{1}},
			execute("", 1), flushMsg, execute("", 0), syncMsg,
			parse("", "select * from nope"), flushMsg, bind("", ""), execute("", 0), syncMsg,
			parse("t", "select $1::text"), &pgproto3.Describe{ObjectType: 'S', Name: "t"},
			&pgproto3.Bind{PreparedStatement: "t", ParameterFormatCodes: []int16{1}, Parameters: [][]byte{[]byte("bin")}, ResultFormatCodes: []int16{1}},
			execute("", 0), &pgproto3.Bind{PreparedStatement: "t", Parameters: [][]byte{nil}}, execute("", 0), syncMsg,
		}},
		{"skip_until_sync_ignores_query", []pgproto3.FrontendMessage{
			parse("", "select * from nope"), bind("", ""), q("select 1"), syncMsg, q("select 1"),
		}},
		{"portals", []pgproto3.FrontendMessage{
			parse("g", "select generate_series(1, 5)"), bind("", "g"), execute("", 2), execute("", 2), execute("", 2), execute("", 2), syncMsg,
			q("begin"), bind("cur", "g"), execute("cur", 3), syncMsg, execute("cur", 3), execute("cur", 3), syncMsg,
			q("commit"), execute("cur", 1), syncMsg,
			bind("", "g"), execute("", 5), execute("", 0), syncMsg,
			bind("", "g", "extra"), syncMsg,
			bind("", "g"), bind("", "g"), execute("", 0), syncMsg,
			bind("x", "g"), bind("x", "g"), syncMsg,
		}},
		{"copy_in", []pgproto3.FrontendMessage{
			q("copy t from stdin"), copyData("1\tone\n2\t\\N\n3\tte"), copyData("n\\tx\n"), &pgproto3.CopyDone{},
			q("copy t (a, b) from stdin with (format csv, header true)"), copyData("a,b\n4,\"multi\nline\"\n5,\n6,\"\"\n"), &pgproto3.CopyDone{},
			q("copy t from stdin"), copyData("7\tx\n"), &pgproto3.CopyFail{Message: "client gave up"},
			q("copy t from stdin"), copyData("bad\tx\n"), &pgproto3.CopyDone{},
			q("begin"), q("copy t from stdin"), copyData("8\ty\n"), &pgproto3.CopyFail{Message: "stop"}, q("select 1"), q("rollback"),
			parse("", "copy t from stdin with (format csv)"), bind("", ""), execute("", 0),
			copyData("9,a\n"), &pgproto3.CopyDone{}, syncMsg,
			q("copy t from stdin; select 1"), copyData("10\tz\n"), &pgproto3.CopyDone{},
			q("copy t from stdin"), copyData("11\t\xff\n"), &pgproto3.CopyDone{},
			syncMsg, syncMsg, q("select 1;;select 1"),
			q("copy t from stdin with (format binary)"),
			copyData("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x0a\xff\xff\xff\xff\xff\xff"),
			&pgproto3.CopyDone{},
		}},
		{"copy_out", []pgproto3.FrontendMessage{
			q("copy (select generate_series(1, 3)) to stdout"),
			q("copy (select generate_series(1, 2)) to stdout with (format csv, header)"),
			q("copy (select generate_series(1, 1)) to stdout binary"),
			q("copy nope from stdin"), copyData("1\n"), &pgproto3.CopyDone{}, q("select 1"),
		}},
	}
	startups := []struct {
		name   string
		params map[string]string
	}{
		{"startup_plain", map[string]string{"user": "postgres", "database": "postgres"}},
		{"startup_params", map[string]string{"user": "postgres", "database": "postgres", "application_name": "diff",
			"DateStyle": "ISO, DMY", "options": "-c search_path=x -c extra_float_digits=2 -c my.opt=1"}},
		{"startup_pq_option", map[string]string{"user": "postgres", "database": "postgres", "_pq_.unknown": "1"}},
		{"startup_bad_option", map[string]string{"user": "postgres", "database": "postgres", "options": "-c nosuch=1"}},
	}
	for _, st := range startups {
		t.Run(st.name, func(t *testing.T) {
			start := func(addr string) []string {
				nc, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer nc.Close()
				nc.SetDeadline(time.Now().Add(20 * time.Second))
				rc := &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
				rc.nc.Write(encodeStartup(196608, st.params))
				got := rc.until(1)
				if got[len(got)-1] == "ReadyForQuery I" {
					rc.send(q("show search_path; show extra_float_digits; show my.opt"))
					got = append(got, rc.until(1)...)
				}
				return normalizeTranscript(got)
			}
			ours, theirs := start(ts.addr), start("127.0.0.1:"+strconv.Itoa(pg.Port))
			if strings.Join(ours, "\n") != strings.Join(theirs, "\n") {
				t.Errorf("startup differs:\n%s\n--- postgres\n%s", strings.Join(ours, "\n"), strings.Join(theirs, "\n"))
			}
		})
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ours := normalizeTranscript(replay(t, ts.addr, sc.msgs))
			theirs := normalizeTranscript(replay(t, "127.0.0.1:"+strconv.Itoa(pg.Port), sc.msgs))
			if strings.Join(ours, "\n") == strings.Join(theirs, "\n") {
				return
			}
			var b strings.Builder
			for i := 0; i < max(len(ours), len(theirs)); i++ {
				var a, p string
				if i < len(ours) {
					a = ours[i]
				}
				if i < len(theirs) {
					p = theirs[i]
				}
				mark := "  "
				if a != p {
					mark = "!!"
				}
				b.WriteString(mark + " " + a + "  |  " + p + "\n")
			}
			t.Errorf("transcripts differ (wire | postgres):\n%s", b.String())
		})
	}
}

// replay runs msgs on a fresh connection (user postgres, trust) and
// returns the transcript up to the last ReadyForQuery.
func replay(t *testing.T, addr string, msgs []pgproto3.FrontendMessage) []string {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	rc := &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30,
		Parameters: map[string]string{"user": "postgres", "database": "postgres"}})
	rc.until(1)
	rc.send(msgs...)
	n := 0
	for _, m := range msgs {
		switch m.(type) {
		case *pgproto3.Query, *pgproto3.Sync:
			n++
		}
	}
	return rc.until(n)
}

// normalizeTranscript sorts each run of ParameterStatus messages (their
// order within one report is not meaningful) and drops the packaging
// suffix of server_version.
func normalizeTranscript(lines []string) []string {
	out := append([]string(nil), lines...)
	for i, l := range out {
		// a distribution suffix such as " (Debian 15.18-0+deb12u1)" is not ours to copy
		if v, ok := strings.CutPrefix(l, "ParameterStatus server_version="); ok {
			out[i] = "ParameterStatus server_version=" + strings.Fields(v)[0]
		}
	}
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && strings.HasPrefix(out[j], "ParameterStatus ") {
			j++
		}
		sort.Strings(out[i:j])
		if j == i {
			j++
		}
		i = j
	}
	return out
}

// rawBytes is a hand-made (possibly malformed) frontend message.
type rawBytes []byte

func (rawBytes) Frontend()                           {}
func (rawBytes) Decode([]byte) error                 { return nil }
func (r rawBytes) Encode(dst []byte) ([]byte, error) { return append(dst, r...), nil }

// rawMsg frames body as a message of type typ.
func rawMsg(typ byte, body ...byte) rawBytes {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(len(body)+4))
	return append(b, body...)
}
