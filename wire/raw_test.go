package wire

import (
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// rawClient is a hand-driven frontend for message-level tests.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	fe *pgproto3.Frontend
}

func dialRaw(t testing.TB, ts *testServer) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawClient{t: t, nc: nc, fe: pgproto3.NewFrontend(nc, nc)}
}

// connectRaw performs a trust startup and returns after ReadyForQuery.
func connectRaw(t testing.TB, ts *testServer, params map[string]string) (*rawClient, []string) {
	t.Helper()
	rc := dialRaw(t, ts)
	p := map[string]string{"user": testUser, "database": "main"}
	for k, v := range params {
		p[k] = v
	}
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: p})
	return rc, rc.until(1)
}

func (rc *rawClient) send(msgs ...pgproto3.FrontendMessage) {
	rc.t.Helper()
	for _, m := range msgs {
		rc.fe.Send(m)
	}
	if err := rc.fe.Flush(); err != nil {
		rc.t.Fatalf("send: %v", err)
	}
}

// until reads messages until n ReadyForQuery (or an error closes the
// connection) and returns their transcript.
func (rc *rawClient) until(n int) []string {
	rc.t.Helper()
	var out []string
	for n > 0 {
		msg, err := rc.fe.Receive()
		if err != nil {
			out = append(out, "<closed>")
			return out
		}
		out = append(out, transcribe(msg))
		switch msg.(type) {
		case *pgproto3.ReadyForQuery:
			n--
		case *pgproto3.CopyInResponse:
			// the scenario already queued its copy data
		}
	}
	return out
}

// transcribe renders a backend message compactly and deterministically.
func transcribe(msg pgproto3.BackendMessage) string {
	switch m := msg.(type) {
	case *pgproto3.ReadyForQuery:
		return "ReadyForQuery " + string(m.TxStatus)
	case *pgproto3.CommandComplete:
		return "CommandComplete " + string(m.CommandTag)
	case *pgproto3.ErrorResponse:
		if m.Position != 0 {
			return fmt.Sprintf("ErrorResponse %s %s %s (position %d)", m.Severity, m.Code, m.Message, m.Position)
		}
		return fmt.Sprintf("ErrorResponse %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.NoticeResponse:
		return fmt.Sprintf("NoticeResponse %s %s %s", m.Severity, m.Code, m.Message)
	case *pgproto3.RowDescription:
		var f []string
		for _, fd := range m.Fields {
			f = append(f, fmt.Sprintf("%s:%d/%d", fd.Name, fd.DataTypeOID, fd.Format))
		}
		return "RowDescription " + strings.Join(f, ",")
	case *pgproto3.DataRow:
		var f []string
		for _, v := range m.Values {
			if v == nil {
				f = append(f, "NULL")
			} else {
				f = append(f, fmt.Sprintf("%q", v))
			}
		}
		return "DataRow " + strings.Join(f, ",")
	case *pgproto3.ParameterDescription:
		return fmt.Sprintf("ParameterDescription %v", m.ParameterOIDs)
	case *pgproto3.ParameterStatus:
		return "ParameterStatus " + m.Name + "=" + m.Value
	case *pgproto3.CopyData:
		return fmt.Sprintf("CopyData %q", m.Data)
	case *pgproto3.CopyInResponse:
		return fmt.Sprintf("CopyInResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.CopyOutResponse:
		return fmt.Sprintf("CopyOutResponse %d %v", m.OverallFormat, m.ColumnFormatCodes)
	case *pgproto3.BackendKeyData:
		return fmt.Sprintf("BackendKeyData key=%d bytes", len(m.SecretKey))
	case *pgproto3.NegotiateProtocolVersion:
		return fmt.Sprintf("NegotiateProtocolVersion %d.%d %v", m.NewestMinorProtocol>>16, m.NewestMinorProtocol&0xFFFF, m.UnrecognizedOptions)
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", msg), "*pgproto3.")
}

func q(sql string) *pgproto3.Query { return &pgproto3.Query{String: sql} }

var (
	syncMsg  = &pgproto3.Sync{}
	flushMsg = &pgproto3.Flush{}
)

func parse(name, sql string, oids ...uint32) *pgproto3.Parse {
	return &pgproto3.Parse{Name: name, Query: sql, ParameterOIDs: oids}
}

func bind(portal, stmt string, params ...string) *pgproto3.Bind {
	b := &pgproto3.Bind{DestinationPortal: portal, PreparedStatement: stmt}
	for _, p := range params {
		if p == "NULL" {
			b.Parameters = append(b.Parameters, nil)
		} else {
			b.Parameters = append(b.Parameters, []byte(p))
		}
	}
	return b
}

func execute(portal string, max uint32) *pgproto3.Execute {
	return &pgproto3.Execute{Portal: portal, MaxRows: max}
}

func copyData(s string) *pgproto3.CopyData { return &pgproto3.CopyData{Data: []byte(s)} }

// TestProtocolGolden replays message scenarios and compares the server's
// answers with testdata/<name>.golden (go test -update rewrites them).
func TestProtocolGolden(t *testing.T) {
	scenarios := []struct {
		name string
		msgs []pgproto3.FrontendMessage
	}{
		{"simple_multi", []pgproto3.FrontendMessage{
			q("select 1; select gen(2); set application_name = 'x'; show application_name"),
			q("insert into t values (1); select fail(); select 1"),
			q("select count()"),
		}},
		{"empty_queries", []pgproto3.FrontendMessage{
			q(""), q(" ; -- only a comment"),
			parse("", ""), bind("", ""), execute("", 0), syncMsg,
		}},
		{"extended_suspend", []pgproto3.FrontendMessage{
			q("begin"),
			parse("s", "select gen(5)"), bind("p", "s"), execute("p", 2), execute("p", 2), execute("p", 2), execute("p", 2), syncMsg,
			q("commit"),
		}},
		{"error_until_sync", []pgproto3.FrontendMessage{
			parse("", "select gen(1)"), bind("", ""), execute("", 0),
			parse("", "select fail()"), bind("", ""), execute("", 0),
			parse("", "select 1"), bind("", ""), execute("", 0), syncMsg,
			q("select 1"),
		}},
		{"failed_transaction", []pgproto3.FrontendMessage{
			q("begin; savepoint a; select fail()"),
			q("select 1"),
			q("rollback to a"),
			q("select 1"),
			q("select fail()"),
			q("commit"),
			q("commit"),
			q("begin; begin"),
			q("rollback; release a"),
		}},
		{"describe", []pgproto3.FrontendMessage{
			parse("e", "select echo($1, $2)", 20), &pgproto3.Describe{ObjectType: 'S', Name: "e"},
			bind("", "e", "5", "five"), &pgproto3.Describe{ObjectType: 'P'}, execute("", 0),
			&pgproto3.Describe{ObjectType: 'S', Name: "missing"}, syncMsg,
			parse("e", "select 1"), syncMsg,
			bind("", "e", "1"), syncMsg,
			parse("show", "show DateStyle"), &pgproto3.Describe{ObjectType: 'S', Name: "show"}, bind("", "show"), execute("", 0),
			&pgproto3.Close{ObjectType: 'S', Name: "show"}, bind("", "show"), syncMsg,
		}},
		{"bind_binary", []pgproto3.FrontendMessage{
			parse("", "select echo_int($1)"),
			&pgproto3.Bind{Parameters: [][]byte{{0, 0, 0, 0, 0, 0, 0, 9}}, ParameterFormatCodes: []int16{1}, ResultFormatCodes: []int16{1}},
			execute("", 0),
			&pgproto3.Bind{Parameters: [][]byte{{1, 2}}, ParameterFormatCodes: []int16{1}}, execute("", 0), syncMsg,
			parse("", "select echo_int($1)"), bind("", "", "abc"), syncMsg,
		}},
		{"copy_in", []pgproto3.FrontendMessage{
			q("copy t from stdin"), copyData("1\tone\n2\t\\N\n3\tte"), copyData("n\\tx\n"), &pgproto3.CopyDone{},
			q("copy t (a, b) from stdin with (format csv, header true)"), copyData("a,b\n4,\"multi\nline\"\n5,\n6,\"\"\n"), &pgproto3.CopyDone{},
			q("copy t from stdin"), copyData("7\tx\n"), &pgproto3.CopyFail{Message: "client gave up"},
			q("copy t from stdin"), copyData("bad\tx\n"), &pgproto3.CopyDone{},
			q("copy nope from stdin"), copyData("1\n"), &pgproto3.CopyDone{},
			q("select count()"),
		}},
		{"copy_out", []pgproto3.FrontendMessage{
			q("copy (select gen(2)) to stdout"),
			q("copy (select gen(2)) to stdout with (format csv, header)"),
			q("copy (select gen(1)) to stdout binary"),
		}},
		{"tx_in_pipeline", []pgproto3.FrontendMessage{
			parse("", "begin"), bind("", ""), execute("", 0),
			parse("", "insert into t values ($1)"), bind("", "", "x"), execute("", 0), syncMsg,
			parse("", "commit"), bind("", ""), execute("", 0), syncMsg,
			q("select count()"),
		}},
		{"settings", []pgproto3.FrontendMessage{
			q("set DateStyle to 'iso, dmy'; show datestyle"),
			q("set local statement_timeout = 10"),
			q("set transaction isolation level serializable"),
			q("begin isolation level repeatable read; show transaction isolation level; commit"),
			q("set session characteristics as transaction read only; show default_transaction_read_only"),
			q("set time zone 'Europe/Paris'; show timezone; reset timezone; show TimeZone"),
			q("set server_version = '16'"),
			q("show nope"),
			q("reset nope"),
			q("select current_setting('nope.x', true)"),
			q("set names 'utf8'; discard all"), q("discard all"),
		}},
		{"panic_recovered", []pgproto3.FrontendMessage{
			q("select boom()"),
			parse("", "select boom()"), bind("", ""), execute("", 0), syncMsg,
			q("select 1"),
		}},
		{"notices", []pgproto3.FrontendMessage{
			q("select notice()"),
			q("set client_min_messages = warning; select notice(); commit"),
			q("set client_min_messages = error; commit"),
		}},
		{"copy_extended", []pgproto3.FrontendMessage{
			parse("", "copy t from stdin with (format csv)"), bind("", ""), execute("", 0),
			copyData("1,a\n"), copyData("2,\"b,c\"\n"), &pgproto3.CopyDone{}, syncMsg,
			parse("", "copy (select gen(3)) to stdout"), bind("", ""), execute("", 0), syncMsg,
			q("select count()"),
		}},
		{"commit_failures", []pgproto3.FrontendMessage{
			q("insert into t values (1); select conflict()"),
			parse("", "insert into t values ($1)"), bind("", "", "2"), execute("", 0),
			parse("c", "select conflict()"), bind("", "c"), execute("", 0), syncMsg,
			q("begin; insert into t values (3); select conflict()"), q("commit"), q("select count()"),
		}},
		{"flush_without_sync", []pgproto3.FrontendMessage{
			parse("f", "select gen(1)"), &pgproto3.Describe{ObjectType: 'S', Name: "f"}, flushMsg,
			bind("", "f"), execute("", 0), syncMsg,
		}},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ts := startServer(t, nil)
			rc, _ := connectRaw(t, ts, nil)
			rc.send(sc.msgs...)
			want := 0
			for _, m := range sc.msgs {
				switch m.(type) {
				case *pgproto3.Query, *pgproto3.Sync:
					want++
				}
			}
			got := strings.Join(rc.until(want), "\n") + "\n"
			path := filepath.Join("testdata", sc.name+".golden")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantText, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestProtocolGolden -update)", err)
			}
			if got != string(wantText) {
				t.Errorf("transcript differs from %s:\n--- got\n%s--- want\n%s", path, got, wantText)
			}
		})
	}
}

func TestStartupNegotiation(t *testing.T) {
	ts := startServer(t, nil)
	t.Run("ssl_and_gss_refused_without_tls", func(t *testing.T) {
		rc := dialRaw(t, ts)
		for _, code := range []uint32{codeSSLRequest, codeGSSEncRequest} {
			var b [8]byte
			binary.BigEndian.PutUint32(b[:], 8)
			binary.BigEndian.PutUint32(b[4:], code)
			rc.nc.Write(b[:])
			var resp [1]byte
			if _, err := rc.nc.Read(resp[:]); err != nil || resp[0] != 'N' {
				t.Fatalf("code %d: %q %v", code, resp, err)
			}
		}
		rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": "u"}})
		if got := rc.until(1); got[len(got)-1] != "ReadyForQuery I" {
			t.Fatalf("startup after N: %v", got)
		}
	})
	t.Run("second_encryption_request", func(t *testing.T) {
		// PostgreSQL reads a repeated request's code as a protocol version
		for _, code := range []uint32{codeSSLRequest, codeGSSEncRequest} {
			rc := dialRaw(t, ts)
			var b [8]byte
			binary.BigEndian.PutUint32(b[:], 8)
			binary.BigEndian.PutUint32(b[4:], code)
			rc.nc.Write(b[:])
			var resp [1]byte
			if _, err := rc.nc.Read(resp[:]); err != nil || resp[0] != 'N' {
				t.Fatalf("code %d: %q %v", code, resp, err)
			}
			rc.nc.Write(b[:])
			got := rc.until(1)
			want := fmt.Sprintf("ErrorResponse FATAL 0A000 unsupported frontend protocol 1234.%d: server supports 3.0 to 3.2", code&0xffff)
			if len(got) != 2 || got[0] != want || got[1] != "<closed>" {
				t.Fatalf("code %d: got %q, want %q", code, got, want)
			}
		}
	})
	versions := []struct {
		name    string
		version uint32
		params  map[string]string
		want    []string // substrings expected in order in the transcript
	}{
		{"v3.0", 196608, nil, []string{"AuthenticationOk", "BackendKeyData key=4 bytes", "ReadyForQuery I"}},
		{"v3.2", 196610, nil, []string{"AuthenticationOk", "BackendKeyData key=32 bytes"}},
		{"v3.9", 196617, nil, []string{"NegotiateProtocolVersion 3.2 []", "AuthenticationOk", "key=32 bytes"}},
		{"pq_option", 196608, map[string]string{"_pq_.compression": "on"}, []string{"NegotiateProtocolVersion 3.0 [_pq_.compression]", "AuthenticationOk"}},
		{"v2.0", 131072, nil, []string{"ErrorResponse FATAL 0A000 unsupported frontend protocol 2.0"}},
		{"no_user", 196608, map[string]string{"user": ""}, []string{"ErrorResponse FATAL 28000"}},
		{"bad_option", 196608, map[string]string{"options": "-c nonsense"}, []string{"ErrorResponse FATAL 08P01"}},
		{"bad_setting", 196608, map[string]string{"DateStyle": "Klingon"}, []string{"ErrorResponse FATAL 22023"}},
	}
	for _, v := range versions {
		t.Run(v.name, func(t *testing.T) {
			rc := dialRaw(t, ts)
			params := map[string]string{"user": testUser, "database": "main", "custom.dotted": "x", "whatever": "y"}
			for k, val := range v.params {
				params[k] = val
			}
			buf := encodeStartup(v.version, params)
			rc.nc.Write(buf)
			got := strings.Join(rc.until(1), "\n")
			pos := 0
			for _, w := range v.want {
				i := strings.Index(got[pos:], w)
				if i < 0 {
					t.Fatalf("want %q after offset %d in:\n%s", w, pos, got)
				}
				pos += i
			}
		})
	}
}

// encodeStartup builds a StartupMessage for any protocol version (pgproto3
// refuses versions other than 3.0 and 3.2).
func encodeStartup(version uint32, params map[string]string) []byte {
	body := binary.BigEndian.AppendUint32(nil, version)
	for k, v := range params {
		body = append(body, k...)
		body = append(body, 0)
		body = append(body, v...)
		body = append(body, 0)
	}
	body = append(body, 0)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body)+4)), body...)
}

func TestMalformedAndOversized(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxMessageSize = 1024 })
	cases := []struct {
		name string
		raw  []byte
		want string
	}{
		{"unknown_type", []byte{'!', 0, 0, 0, 4}, "ErrorResponse FATAL 08P01"},
		{"short_length", []byte{'Q', 0, 0, 0, 2}, "ErrorResponse FATAL 08P01"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc, _ := connectRaw(t, ts, nil)
			rc.nc.Write(tc.raw)
			got := rc.until(1)
			if len(got) < 2 || !strings.HasPrefix(got[0], tc.want) || got[1] != "<closed>" {
				t.Fatalf("got %v, want %s then close", got, tc.want)
			}
		})
	}
	t.Run("malformed_body_is_recoverable", func(t *testing.T) {
		rc, _ := connectRaw(t, ts, nil)
		rc.nc.Write([]byte{'B', 0, 0, 0, 6, 0, 0}) // Bind cut short: an ERROR, then skip to Sync
		rc.send(execute("", 0), syncMsg, q("select 1"))
		got := strings.Join(rc.until(2), "\n")
		want := "ErrorResponse ERROR 08P01 invalid message format\nReadyForQuery I\nRowDescription ?column?:23/0\nDataRow \"1\"\nCommandComplete SELECT 1\nReadyForQuery I"
		if got != want {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	})
	t.Run("garbage_startup", func(t *testing.T) {
		rc := dialRaw(t, ts)
		rc.nc.Write([]byte{0, 0, 0, 9, 0, 3, 0, 0, 'x'})
		got := rc.until(1)
		if !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01") {
			t.Fatalf("got %v", got)
		}
	})
}

func TestRawCancelRequest(t *testing.T) {
	ts := startServer(t, nil)
	rc := dialRaw(t, ts)
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion32, Parameters: map[string]string{"user": testUser}})
	var key *pgproto3.BackendKeyData
	for key == nil {
		msg, err := rc.fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		if k, ok := msg.(*pgproto3.BackendKeyData); ok {
			key = &pgproto3.BackendKeyData{ProcessID: k.ProcessID, SecretKey: append([]byte(nil), k.SecretKey...)}
		}
	}
	rc.until(1)
	sendCancel := func(pid uint32, secret []byte) {
		c := dialRaw(t, ts)
		c.send(&pgproto3.CancelRequest{ProcessID: pid, SecretKey: secret})
		var b [1]byte
		if _, err := c.nc.Read(b[:]); err == nil {
			t.Errorf("cancel connection answered %q", b)
		}
	}
	// a wrong key must not cancel
	rc.send(q("select sleep(300)"))
	wrong := append([]byte(nil), key.SecretKey...)
	wrong[0] ^= 1
	time.Sleep(50 * time.Millisecond)
	sendCancel(key.ProcessID, wrong)
	if got := strings.Join(rc.until(1), "\n"); strings.Contains(got, "57014") {
		t.Fatalf("wrong key cancelled: %s", got)
	}
	rc.send(q("select sleep(10000)"))
	ts.backend.waitSleeping(t)
	start := time.Now()
	sendCancel(key.ProcessID, key.SecretKey)
	got := strings.Join(rc.until(1), "\n")
	if !strings.Contains(got, "ErrorResponse ERROR 57014 canceling statement due to user request") || time.Since(start) > 5*time.Second {
		t.Fatalf("cancel: %s", got)
	}
}

func TestStartupParameterStatus(t *testing.T) {
	ts := startServer(t, nil)
	_, transcript := connectRaw(t, ts, map[string]string{"application_name": "app", "client_encoding": "SQL_ASCII"})
	var got []string
	for _, line := range transcript {
		if name, ok := strings.CutPrefix(line, "ParameterStatus "); ok {
			got = append(got, name)
		}
	}
	want := []string{"DateStyle=ISO, MDY", "IntervalStyle=postgres", "TimeZone=UTC", "application_name=app",
		"client_encoding=UTF8", "default_transaction_read_only=off", "in_hot_standby=off", "integer_datetimes=on",
		"is_superuser=on", "server_encoding=UTF8", "server_version=" + ServerVersion,
		"session_authorization=" + testUser, "standard_conforming_strings=on"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("ParameterStatus at startup:\n got %q\nwant %q", got, want)
	}
}

func TestIdleSessionTimeout(t *testing.T) {
	ts := startServer(t, nil)
	rc, _ := connectRaw(t, ts, map[string]string{"idle_session_timeout": "100ms"})
	time.Sleep(300 * time.Millisecond)
	if got := rc.until(1); !strings.HasPrefix(got[0], "ErrorResponse FATAL 57P05") {
		t.Fatalf("got %v", got)
	}
}

func TestMaxConnections(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxConnections = 2 })
	connectRaw(t, ts, nil)
	connectRaw(t, ts, nil)
	rc := dialRaw(t, ts)
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": testUser}})
	got := rc.until(1)
	if !strings.HasPrefix(got[0], "ErrorResponse FATAL 53300") {
		t.Fatalf("got %v", got)
	}
	if n := ts.srv.ActiveConnections(); n != 2 {
		t.Fatalf("active = %d", n)
	}
}

func TestIdleInTransactionTimeout(t *testing.T) {
	ts := startServer(t, nil)
	rc, _ := connectRaw(t, ts, map[string]string{"idle_in_transaction_session_timeout": "100ms"})
	rc.send(q("begin"))
	rc.until(1)
	time.Sleep(300 * time.Millisecond)
	got := rc.until(1)
	if !strings.HasPrefix(got[0], "ErrorResponse FATAL 25P03") {
		t.Fatalf("got %v", got)
	}
	// outside a transaction the session may idle
	rc2, _ := connectRaw(t, ts, map[string]string{"idle_in_transaction_session_timeout": "100ms"})
	time.Sleep(200 * time.Millisecond)
	rc2.send(q("select 1"))
	if got := rc2.until(1); got[len(got)-1] != "ReadyForQuery I" {
		t.Fatalf("idle outside tx: %v", got)
	}
}

func TestOutputIsBuffered(t *testing.T) {
	// 1000 rows of one gen query must reach the client in far fewer writes
	// than messages: count reads of the raw socket.
	ts := startServer(t, nil)
	rc, _ := connectRaw(t, ts, nil)
	rc.send(q("select gen(1000)"))
	rc.nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	var all []byte
	reads := 0
	buf := make([]byte, 1<<20)
	for !strings.HasSuffix(string(all), "Z\x00\x00\x00\x05I") {
		n, err := rc.nc.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		reads++
		all = append(all, buf[:n]...)
	}
	if reads > 20 {
		t.Fatalf("%d reads for %d bytes: output is not buffered", reads, len(all))
	}
	_ = hex.EncodeToString
}

func TestCopyStalledClientTimesOut(t *testing.T) {
	ts := startServer(t, nil)
	rc, _ := connectRaw(t, ts, map[string]string{"statement_timeout": "200ms"})
	rc.send(q("copy t from stdin"), copyData("1\tx\n"))
	start := time.Now()
	got := strings.Join(rc.until(1), "\n")
	if !strings.Contains(got, "ErrorResponse ERROR 57014 canceling statement due to statement timeout") || time.Since(start) > 5*time.Second {
		t.Fatalf("stalled COPY: %s", got)
	}
	// the late rest of the COPY is dropped and the session goes on
	rc.send(copyData("2\ty\n"), &pgproto3.CopyDone{}, q("select count()"))
	if got := strings.Join(rc.until(1), "\n"); !strings.Contains(got, `DataRow "0"`) {
		t.Fatalf("after stalled COPY: %s", got)
	}
}

// TestExtendedErrorFlushedAtOnce: an error of an extended-protocol
// message reaches the client without waiting for Sync or Flush, as
// PostgreSQL sends it (a pipelining client sees it while it still
// writes).
func TestExtendedErrorFlushedAtOnce(t *testing.T) {
	ts := startServer(t, nil)
	rc, _ := connectRaw(t, ts, nil)
	rc.send(parse("", "selec 1"))
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	msg, err := rc.fe.Receive()
	if err != nil {
		t.Fatalf("no ErrorResponse before Sync: %v", err)
	}
	if got := transcribe(msg); !strings.HasPrefix(got, "ErrorResponse ERROR 42601") {
		t.Fatalf("got %s, want the syntax error", got)
	}
	rc.nc.SetReadDeadline(time.Now().Add(20 * time.Second))
	rc.send(&pgproto3.Sync{})
	if got := strings.Join(rc.until(1), "\n"); got != "ReadyForQuery I" {
		t.Fatalf("after Sync: %s", got)
	}
}
