package wire

import (
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// queryHeader is the header of a Query message announcing a body of n
// bytes.
func queryHeader(n int) []byte {
	return binary.BigEndian.AppendUint32([]byte{'Q'}, uint32(n+4))
}

// TestAnnouncedSizeIsNotReserved: clients that announce 60 MB messages and
// send 1 KB of each make the server hold what arrived, not what was
// announced (it held 90 × 60 MB before messages were assembled as their
// bytes arrive).
func TestAnnouncedSizeIsNotReserved(t *testing.T) {
	const conns, announced, sent = 90, 60 << 20, 1 << 10
	ts := startServer(t, nil)
	before := heapInUse()
	var rcs []*rawClient
	for i := 0; i < conns; i++ {
		rc, _ := connectRaw(t, ts, nil)
		rc.nc.Write(append(queryHeader(announced), make([]byte, sent)...))
		rcs = append(rcs, rc)
	}
	// wait until every connection has read its kilobyte
	deadline := time.Now().Add(10 * time.Second)
	for {
		now, _ := ts.srv.BufferedBytes()
		if now >= conns*readBufferSize || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	held := heapInUse() - min(before, heapInUse())
	now, peak := ts.srv.BufferedBytes()
	t.Logf("%d connections announcing %d MB and sending %d bytes: heap grew %.1f MB, message buffers %d bytes (peak %d)",
		conns, announced>>20, sent, float64(held)/(1<<20), now, peak)
	if limit := uint64(conns) * 512 << 10; held > limit {
		t.Fatalf("heap grew %d bytes for %d connections (limit %d)", held, conns, limit)
	}
	if peak > conns*readBufferSize {
		t.Fatalf("message buffers peaked at %d bytes, want at most %d", peak, conns*readBufferSize)
	}
	for _, rc := range rcs {
		rc.nc.Close()
	}
	deadline = time.Now().Add(10 * time.Second)
	for {
		now, _ := ts.srv.BufferedBytes()
		if now == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still held after the clients left", now)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLargeMessages: messages larger than the read buffer arrive whole,
// in one write or trickled, through the simple and extended protocols.
func TestLargeMessages(t *testing.T) {
	ts := startServer(t, nil)
	big := strings.Repeat("x", 3<<20)
	rc, _ := connectRaw(t, ts, nil)
	rc.send(parse("", "select echo($1)", 25), bind("", "", big), describePortal(""), execute("", 0), syncMsg)
	got := rc.until(1)
	if len(got) != 6 || got[3] != `DataRow "`+big+`"` {
		t.Fatalf("3 MB parameter: %d messages, %.80v", len(got), got)
	}
	// the same Bind, trickled in pieces
	msg, _ := bind("", "", big).Encode(nil)
	rc.send(parse("", "select echo($1)", 25))
	for len(msg) > 0 {
		n := min(len(msg), 700<<10)
		rc.nc.Write(msg[:n])
		msg = msg[n:]
		time.Sleep(5 * time.Millisecond)
	}
	rc.send(execute("", 0), syncMsg, q("select 1"))
	got = rc.until(2)
	if len(got) != 9 || got[2] != `DataRow "`+big+`"` || got[8] != "ReadyForQuery I" {
		t.Fatalf("trickled 3 MB parameter: %d messages, %.80v", len(got), got)
	}
	if now, _ := ts.srv.BufferedBytes(); now != 0 {
		t.Fatalf("%d bytes held after the messages were handled", now)
	}
}

func describePortal(name string) *pgproto3.Describe {
	return &pgproto3.Describe{ObjectType: 'P', Name: name}
}

// TestServerWideBufferCap: a message that would pass the server-wide cap
// is read through and dropped; its statement fails with 53200 and the
// session goes on.
func TestServerWideBufferCap(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxBufferedBytes = 1 << 20 })
	rc, _ := connectRaw(t, ts, nil)
	big := strings.Repeat("x", 2<<20)
	rc.send(q("select '"+big+"'"), q("select 1"))
	got := strings.Join(rc.until(2), "\n")
	want := "ErrorResponse ERROR 53200 out of memory\nReadyForQuery I\nRowDescription ?column?:23/0\nDataRow \"1\"\nCommandComplete SELECT 1\nReadyForQuery I"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// extended protocol: the error skips to Sync
	rc.send(parse("", "select echo($1)", 25), bind("", "", big), execute("", 0), syncMsg)
	if got := strings.Join(rc.until(1), "\n"); got != "ParseComplete\nErrorResponse ERROR 53200 out of memory\nReadyForQuery I" {
		t.Fatalf("extended: got\n%s", got)
	}
	if now, peak := ts.srv.BufferedBytes(); now != 0 || peak > 1<<20 {
		t.Fatalf("buffers now %d, peak %d (cap %d)", now, peak, 1<<20)
	}
}

// TestHalfSentMessageTimesOut: a client that stops in the middle of a
// message (or of its header) is disconnected after MessageTimeout; one
// that sends nothing at all is idle, which is not limited by default.
func TestHalfSentMessageTimesOut(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MessageTimeout = 200 * time.Millisecond })
	for _, tc := range []struct {
		name string
		raw  []byte
	}{
		{"large_body", append(queryHeader(1<<20), make([]byte, 100)...)},
		{"small_body", append(queryHeader(100), 's', 'e')},
		{"header", []byte{'Q', 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc, _ := connectRaw(t, ts, nil)
			rc.nc.Write(tc.raw)
			start := time.Now()
			got := rc.until(1)
			if len(got) != 2 || !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01 terminating connection: incomplete message") || got[1] != "<closed>" {
				t.Fatalf("got %v", got)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("disconnected after %s", d)
			}
		})
	}
	t.Run("idle_is_not_half_sent", func(t *testing.T) {
		rc, _ := connectRaw(t, ts, nil)
		time.Sleep(400 * time.Millisecond)
		rc.send(q("select 1"))
		if got := rc.until(1); got[len(got)-1] != "ReadyForQuery I" {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("slow_but_steady", func(t *testing.T) {
		// its own server with a timeout far above each gap (a loaded
		// machine stretches sleeps) but below the whole message's time,
		// so the test fails unless every arriving byte restarts the clock
		steady := startServer(t, func(c *Config) { c.MessageTimeout = time.Second })
		rc, _ := connectRaw(t, steady, nil)
		msg, _ := q("select 1").Encode(nil)
		for _, b := range msg {
			rc.nc.Write([]byte{b})
			time.Sleep(150 * time.Millisecond)
		}
		if got := rc.until(1); got[len(got)-1] != "ReadyForQuery I" {
			t.Fatalf("got %v", got)
		}
	})
	if now, _ := ts.srv.BufferedBytes(); now != 0 {
		t.Fatalf("%d bytes held after the connections ended", now)
	}
}

// TestOversizedMessage: a message over MaxMessageSize is read through and
// dropped; its statement fails with 54000 (in the simple protocol the
// cycle ends, in the extended one the error skips to Sync) and the
// session goes on. The client may write the whole message before reading
// and is not reset while sending.
func TestOversizedMessage(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxMessageSize = 1 << 20 })
	rc, _ := connectRaw(t, ts, nil)
	msg, _ := q("select '" + strings.Repeat("x", 8<<20) + "'").Encode(nil)
	if _, err := rc.nc.Write(msg); err != nil {
		t.Fatalf("write: %v", err)
	}
	rc.send(q("select 1"))
	got := strings.Join(rc.until(2), "\n")
	want := "ErrorResponse ERROR 54000 message of 8388618 bytes exceeds the limit of 1048576 bytes\nReadyForQuery I\n" +
		"RowDescription ?column?:23/0\nDataRow \"1\"\nCommandComplete SELECT 1\nReadyForQuery I"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	rc.send(parse("", "select echo($1)", 25), bind("", "", strings.Repeat("x", 2<<20)), execute("", 0), syncMsg)
	if got := strings.Join(rc.until(1), "\n"); !strings.HasPrefix(got, "ParseComplete\nErrorResponse ERROR 54000 message of 2097") || !strings.HasSuffix(got, "\nReadyForQuery I") {
		t.Fatalf("extended: got\n%s", got)
	}
}

// TestOversizedMessagePsycopg2: psycopg2 (libpq) reports the 54000 and
// the connection stays usable.
func TestOversizedMessagePsycopg2(t *testing.T) {
	pgtest.SkipShort(t, "python3 and psycopg2")
	ts := startServer(t, func(c *Config) { c.MaxMessageSize = 1 << 20 })
	script := `import psycopg2, psycopg2.errors
conn = psycopg2.connect("")
conn.autocommit = True
cur = conn.cursor()
try:
    cur.execute("select '" + "x" * (8 << 20) + "'")
    raise SystemExit("no error")
except psycopg2.errors.ProgramLimitExceeded as e:
    assert e.pgcode == "54000", e.pgcode
    print(e.pgerror.strip())
cur.execute("select 1")
assert cur.fetchall() == [(1,)]
print("OK")
`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Env = append(os.Environ(), "PGHOST="+ts.host, "PGPORT="+ts.port, "PGUSER="+testUser,
		"PGPASSWORD="+testPassword, "PGDATABASE=main", "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10")
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ERROR:  message of 8388618 bytes exceeds the limit of 1048576 bytes\nOK\n" {
		t.Fatalf("psycopg2 (install with apt-get install -y python3-psycopg2): %v\n%s", err, out)
	}
}
