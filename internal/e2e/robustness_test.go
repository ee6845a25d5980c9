package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rowsThenFail yields n text COPY rows of people, then fails (the client
// aborts the COPY with CopyFail).
type rowsThenFail struct {
	n, i int
	buf  []byte
}

func (r *rowsThenFail) Read(p []byte) (int, error) {
	if len(r.buf) == 0 {
		if r.i == r.n {
			return 0, errors.New("client gave up")
		}
		r.buf = fmt.Appendf(nil, "%d\tcopy-%d\t\\N\t\\N\n", 1000+r.i, r.i)
		r.i++
	}
	k := copy(p, r.buf)
	r.buf = r.buf[k:]
	return k, nil
}

// rowsThenHang yields n rows, then signals started and blocks until the
// test closes the connection under it.
type rowsThenHang struct {
	rowsThenFail
	started chan struct{}
	release chan struct{}
}

func (r *rowsThenHang) Read(p []byte) (int, error) {
	if len(r.buf) == 0 && r.i == r.n {
		close(r.started)
		<-r.release
		return 0, io.ErrUnexpectedEOF
	}
	return r.rowsThenFail.Read(p)
}

// TestClientsThatGoAway: clients that vanish or give up in the middle of
// a transaction or a COPY leave nothing behind, and the server keeps
// serving others; a connection that sends garbage is dropped alone.
func TestClientsThatGoAway(t *testing.T) {
	ctx := context.Background()
	p, conn := socialProxy(t, ctx)

	// 1. A transaction whose client disappears is rolled back.
	gone, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Exec(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := gone.Exec(ctx, "INSERT INTO people (id, name) VALUES (500, 'Ghost')"); err != nil {
		t.Fatal(err)
	}
	_ = gone.PgConn().Conn().Close()

	// 2. A COPY the client aborts (CopyFail) loads nothing; the session
	// goes on.
	_, err = conn.PgConn().CopyFrom(ctx, &rowsThenFail{n: 500}, "COPY people (id, name, email, age) FROM STDIN")
	if err == nil || !strings.Contains(err.Error(), "client gave up") {
		t.Fatalf("aborted COPY: %v, want the client's error reported back", err)
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people"); n != 6 {
		t.Fatalf("after an aborted COPY people has %d rows, want 6", n)
	}

	// 3. A COPY whose connection drops mid-stream loads nothing.
	mid, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	hang := &rowsThenHang{rowsThenFail: rowsThenFail{n: 2000}, started: make(chan struct{}), release: make(chan struct{})}
	copied := make(chan error, 1)
	go func() {
		_, err := mid.PgConn().CopyFrom(ctx, hang, "COPY people (id, name, email, age) FROM STDIN")
		copied <- err
	}()
	<-hang.started
	_ = mid.PgConn().Conn().Close()
	close(hang.release)
	<-copied

	// 4. Garbage instead of a startup message.
	raw, err := net.DialTimeout("tcp", net.JoinHostPort(p.Host, p.Port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = raw.Write([]byte("\x00\x00\x00\x08GARBAGE!\xff\xff\xff\xff this is not the PostgreSQL protocol"))
	_ = raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, _ = io.Copy(io.Discard, raw)
	raw.Close()

	// The server serves on, and none of the above left a row behind.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := queryInt(t, ctx, conn, "SELECT count(*) FROM people")
		if n == 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("people has %d rows after clients went away, want 6", n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	fresh, err := p.Connect(ctx, "main")
	if err != nil {
		t.Fatalf("a new client after the others went away: %v", err)
	}
	defer fresh.Close(ctx)
	mustExec(t, ctx, fresh, "INSERT INTO people (id, name) VALUES (500, 'Real')")
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people WHERE id = 500 AND name = 'Real'"); n != 1 {
		t.Fatal("the key the vanished transaction used is not free")
	}
	if n := queryInt(t, ctx, conn, "SELECT count(*) FROM people"); n != 7 {
		t.Fatalf("people has %d rows at the end, want 7", n)
	}
	p.alive(t)
}
