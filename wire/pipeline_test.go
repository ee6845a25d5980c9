package wire

import (
	"bytes"
	"encoding/binary"
	"io"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestInPipeline: every statement of a pgx.Batch (one Sync at the end)
// runs with InPipeline — the first because the next Execute is already
// buffered, the later ones because the cycle's implicit transaction is
// open — and a lone statement (Bind/Execute/Sync) does not.
func TestInPipeline(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.pgx(t, "")
	ctx := ctxT(t)
	if _, err := c.Exec(ctx, "insert into t values ($1)", "alone"); err != nil {
		t.Fatal(err)
	}
	b := &pgx.Batch{}
	b.Queue("insert into t values ($1)", "x")
	b.Queue("select gen(2)")
	b.Queue("insert into t values ($1)", "y")
	if err := c.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "insert into t values ($1)", "alone again"); err != nil {
		t.Fatal(err)
	}
	ts.backend.mu.Lock()
	got := slices.Clone(ts.backend.pipelined)
	ts.backend.mu.Unlock()
	want := []string{"insert into t values ($1)", "select gen(2)", "insert into t values ($1)"}
	if !slices.Equal(got, want) {
		t.Fatalf("pipelined statements %q, want %q", got, want)
	}
}

// TestFirstRowEmptyString: an empty text value in a connection's first
// row is ” (a zero-length value), not NULL.
func TestFirstRowEmptyString(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.pgx(t, "")
	var v *string
	if err := c.QueryRow(ctxT(t), "select current_setting('application_name')", pgx.QueryExecModeSimpleProtocol).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v == nil || *v != "" {
		t.Fatalf("got %v, want the empty string", v)
	}
}

// TestMessageReaderAhead: the reader never hands out bytes past the
// current message, and sees an Execute before the next Sync.
func TestMessageReaderAhead(t *testing.T) {
	msg := func(typ byte, body string) []byte {
		b := []byte{typ, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(b[1:], uint32(4+len(body)))
		return append(b, body...)
	}
	cases := []struct {
		name  string
		after [][]byte
		want  bool
	}{
		{"sync next", [][]byte{msg('S', "")}, false},
		{"execute next", [][]byte{msg('B', "xx"), msg('E', "\x00\x00\x00\x00\x00"), msg('S', "")}, true},
		{"flush then execute", [][]byte{msg('H', ""), msg('E', "\x00\x00\x00\x00\x00")}, true},
		{"nothing buffered", nil, false},
		{"partial message", [][]byte{msg('B', "abcdef")[:4]}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stream := msg('E', "\x00\x00\x00\x00\x00")
			for _, m := range tc.after {
				stream = append(stream, m...)
			}
			r := newMessageReader(bytes.NewReader(stream))
			first := make([]byte, 64)
			n, err := io.ReadAtLeast(r, first, 10)
			if err != nil || n != 10 {
				t.Fatalf("read %d %v", n, err)
			}
			if _, err := r.Read(first[:1]); tc.after == nil && err != io.EOF {
				t.Fatalf("past the end: %v", err)
			} else if tc.after != nil {
				// put the byte back: rebuild the reader after the first message
				r = newMessageReader(bytes.NewReader(stream))
				if _, err := io.ReadFull(r, first[:10]); err != nil {
					t.Fatal(err)
				}
				_, _ = r.br.Peek(len(stream) - 10)
			}
			if got := r.aheadExecute(); got != tc.want {
				t.Fatalf("aheadExecute %v, want %v", got, tc.want)
			}
		})
	}
}

// FuzzMessageReader: any byte stream read through the message reader
// (as pgproto3 reads the connection) and scanned ahead never panics, and
// the reader hands out exactly the bytes it was given (up to a large
// message the stream cuts off).
func FuzzMessageReader(f *testing.F) {
	f.Add([]byte("E\x00\x00\x00\x09\x00\x00\x00\x00\x00S\x00\x00\x00\x04"))
	f.Add([]byte("B\x00\x00\x00\x02E"))
	f.Add([]byte{'H', 0, 0, 0, 4, 'E', 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := newMessageReader(bytes.NewReader(data))
		var got []byte
		buf := make([]byte, 7)
		var last error
		for i := 0; i < len(data)+2; i++ {
			_ = r.aheadExecute()
			n, err := r.Read(buf)
			got = append(got, buf[:n]...)
			if last = err; err != nil {
				break
			}
		}
		// A large message cut off by the end of the stream is dropped
		// whole (the client is gone): what came before it is handed out.
		if last == io.ErrUnexpectedEOF && bytes.HasPrefix(data, got) {
			return
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("read %q of %q", got, data)
		}
	})
}
