package wire

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/sirupsen/logrus"
)

func FuzzStartupPacket(f *testing.F) {
	f.Add(encodeStartup(196608, map[string]string{"user": "u", "database": "d", "options": "-c a.b=c"})[4:])
	f.Add(encodeStartup(196610, map[string]string{"user": "u", "_pq_.x": "1"})[4:])
	f.Add([]byte{0x04, 0xd2, 0x16, 0x2f})                         // SSLRequest
	f.Add([]byte{0x04, 0xd2, 0x16, 0x2e, 0, 0, 0, 1, 1, 2, 3, 4}) // CancelRequest
	f.Add([]byte{0, 3, 0, 0, 'u', 's', 'e', 'r', 0})              // unterminated
	f.Add([]byte{0, 2, 0, 0})                                     // old protocol
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := decodeStartupPacket(body)
		if err != nil {
			return
		}
		if p.params != nil {
			if len(p.order) != len(p.params) {
				t.Fatalf("order %v vs params %v", p.order, p.params)
			}
			parseOptions(p.params["options"])
		}
	})
}

func FuzzParseUtility(f *testing.F) {
	for _, s := range []string{
		"select 1; select 2", "begin isolation level serializable", "set search_path = a, \"b\"",
		"copy t (a) from stdin with (format csv, header)", "select $$x;$$", "rollback to savepoint a",
		"select pg_catalog.set_config('a', 'b', false)", "/* x */ show all", "e'\\", "set time zone interval '1' hour", "set time zone interval ''",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		stmts, err := ParseUtility(sql)
		if err != nil {
			switch Code(err) {
			case CodeSyntaxError, CodeInvalidParameterValue, CodeFeatureNotSupported, CodeInvalidDatetimeFormat:
			default:
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		for _, st := range stmts {
			if strings.TrimSpace(st.SQL) == "" {
				t.Fatalf("empty statement from %q", sql)
			}
		}
	})
}

// FuzzConnection feeds arbitrary bytes to a connection after a valid
// startup: the server must neither panic nor hang nor leak the session.
func FuzzConnection(f *testing.F) {
	enc := func(msgs ...pgproto3.FrontendMessage) []byte {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		return b
	}
	f.Add(enc(q("select 1; select gen(3)")))
	f.Add(enc(parse("s", "select echo($1)", 20), bind("p", "s", "7"), execute("p", 1), execute("p", 0), syncMsg))
	f.Add(enc(q("copy t from stdin"), copyData("1\t2\n"), &pgproto3.CopyDone{}, q("begin"), q("select fail()"), q("commit")))
	f.Add(enc(q("copy t from stdin with (format binary)"), copyData("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\xff\xff")))
	f.Add(enc(&pgproto3.Describe{ObjectType: 'S', Name: "nope"}, &pgproto3.Close{ObjectType: 'P'}, syncMsg, flushMsg))
	f.Add([]byte{'B', 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0xff, 0xff})
	f.Add([]byte{'Q', 0x7f, 0xff, 0xff, 0xff})

	log := logrus.New()
	logs := &syncBuffer{}
	log.Out = logs
	be := &fakeBackend{}
	srv, err := NewServer(Config{Backend: be, Logger: log, MaxMessageSize: 1 << 20, StatementTimeout: time.Second})
	if err != nil {
		f.Fatal(err)
	}
	startup := encodeStartup(196608, map[string]string{"user": "fuzz", "database": "main"})
	f.Fuzz(func(t *testing.T, data []byte) {
		logs.Reset()
		cli, srvSide := net.Pipe()
		done := make(chan struct{})
		go func() {
			newConn(srv, srvSide).serve(context.Background())
			close(done)
		}()
		go io.Copy(io.Discard, cli)
		go func() {
			cli.Write(startup)
			cli.Write(data)
			cli.Write([]byte{'X', 0, 0, 0, 4})
			cli.Close() // a truncated message must end at EOF, not wait forever
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("connection did not end for input %q", data)
		}
		cli.Close()
		if n := srv.ActiveConnections(); n != 0 {
			t.Fatalf("%d sessions leaked", n)
		}
		if l := logs.String(); strings.Contains(l, "panic") && !strings.Contains(l, "fake: boom") {
			t.Fatalf("server panicked: %s", l)
		}
	})
}

// FuzzAuthExchange feeds arbitrary bytes to the pre-authentication state
// machine (SCRAM, md5 and cleartext): no panic, no hang, no session.
func FuzzAuthExchange(f *testing.F) {
	enc := func(msgs ...pgproto3.FrontendMessage) []byte {
		var b []byte
		for _, m := range msgs {
			b, _ = m.Encode(b)
		}
		return b
	}
	f.Add(byte(0), enc(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=abc")}))
	f.Add(byte(0), enc(&pgproto3.SASLInitialResponse{AuthMechanism: "SCRAM-SHA-256", Data: []byte("n,,n=,r=abc")}, &pgproto3.SASLResponse{Data: []byte("c=biws,r=abc,p=AAAA")}))
	f.Add(byte(1), enc(&pgproto3.PasswordMessage{Password: "md5deadbeef"}))
	f.Add(byte(2), enc(&pgproto3.PasswordMessage{Password: "hunter2"}))
	f.Add(byte(0), []byte{'p', 0, 0, 0, 5, 0})
	logs := &syncBuffer{}
	log := logrus.New()
	log.Out = logs
	servers := make([]*Server, 3)
	for i, m := range []AuthMethod{AuthSCRAM, AuthMD5, AuthPassword} {
		srv, err := NewServer(Config{Backend: &fakeBackend{}, Logger: log, Auth: m, Users: testUsers(f), AuthFailureDelay: -1, MaxMessageSize: 1 << 16})
		if err != nil {
			f.Fatal(err)
		}
		servers[i] = srv
	}
	startup := encodeStartup(196608, map[string]string{"user": testUser, "database": "main"})
	f.Fuzz(func(t *testing.T, method byte, data []byte) {
		logs.Reset()
		srv := servers[int(method)%len(servers)]
		cli, srvSide := net.Pipe()
		done := make(chan struct{})
		go func() {
			newConn(srv, srvSide).serve(context.Background())
			close(done)
		}()
		go io.Copy(io.Discard, cli)
		go func() {
			cli.Write(startup)
			cli.Write(data)
			cli.Close()
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("connection did not end for input %q", data)
		}
		if n := srv.ActiveConnections(); n != 0 {
			t.Fatalf("%d sessions leaked", n)
		}
		if l := logs.String(); strings.Contains(l, "panic") {
			t.Fatalf("server panicked: %s", l)
		}
	})
}
