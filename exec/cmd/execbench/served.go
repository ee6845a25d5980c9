package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/planner"
	"github.com/pggraph/pggraph/wire"
)

// servedProxy is a pgproxy server in this process, built as `pgproxy
// serve` builds it (adapters over an objstore.Local data directory of
// real files, the planner as the wire backend), listening on local TCP.
// The point lookup is timed through it with pgx, as PostgreSQL's is, so
// both sides pay one client round trip per lookup.
type servedProxy struct {
	addr  string
	dir   string
	g     *adapters.Graph
	srv   *wire.Server
	store *countingStore
	done  chan error
}

// scratchDir makes a fresh directory under parent (the system temp
// directory when empty) for a pgproxy data directory; absolute path.
func scratchDir(parent string) (string, error) {
	dir, err := os.MkdirTemp(parent, "execbench-pgproxy-")
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return abs, nil
}

// startServedProxy initializes a fresh graph root in a new directory
// under parent and serves it on 127.0.0.1 (a free port).
func startServedProxy(ctx context.Context, parent string) (*servedProxy, error) {
	abs, err := scratchDir(parent)
	if err != nil {
		return nil, err
	}
	local, err := objstore.NewLocal(abs)
	if err != nil {
		os.RemoveAll(abs)
		return nil, err
	}
	local.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultReadHandles) // as serve does (cmd/pgproxy/datadir.go)
	// The options serve uses (cmd/pgproxy/serve.go), incl. background
	// compaction after many small commits.
	store := &countingStore{Local: local}
	g, err := adapters.Open(ctx, store, adapters.Options{Create: true, Actor: "execbench", Location: abs, AutoOptimizeFragments: 64})
	if err != nil {
		os.RemoveAll(abs)
		return nil, err
	}
	srv, err := wire.NewServer(wire.Config{Backend: planner.NewBackend(g)})
	if err != nil {
		g.Close()
		os.RemoveAll(abs)
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		g.Close()
		os.RemoveAll(abs)
		return nil, err
	}
	p := &servedProxy{addr: ln.Addr().String(), dir: abs, g: g, srv: srv, store: store, done: make(chan error, 1)}
	go func() { p.done <- srv.Serve(context.Background(), ln) }()
	return p, nil
}

func (p *servedProxy) connString() string {
	return fmt.Sprintf("postgres://execbench@%s/main?sslmode=disable", p.addr)
}

// stop shuts the server down, closes the graph and removes the data
// directory.
func (p *servedProxy) stop() {
	if p == nil {
		return
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = p.srv.Shutdown(sctx)
	if err := <-p.done; err != nil && !errors.Is(err, wire.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "pgproxy serve:", err)
	}
	p.g.Close()
	os.RemoveAll(p.dir)
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// bigRowsReader streams the big table's rows in COPY text format, from
// the generator bigTable and PostgreSQL's INSERT … generate_series use:
// id 1..n, grp = id % 1000, v = (id*7 % 1000)/10, flag = id % 3 = 0.
type bigRowsReader struct {
	next, n int
	buf     []byte
}

func (r *bigRowsReader) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) && r.next <= r.n {
		i := r.next
		r.next++
		r.buf = strconv.AppendInt(r.buf, int64(i), 10)
		r.buf = append(r.buf, '\t')
		r.buf = strconv.AppendInt(r.buf, int64(i%1000), 10)
		r.buf = append(r.buf, '\t')
		r.buf = strconv.AppendFloat(r.buf, float64(i*7%1000)/10, 'g', -1, 64)
		if i%3 == 0 {
			r.buf = append(r.buf, "\tt\n"...)
		} else {
			r.buf = append(r.buf, "\tf\n"...)
		}
	}
	if len(r.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.buf)
	r.buf = r.buf[:copy(r.buf, r.buf[n:])]
	return n, nil
}

// loadServed creates the big table on pgproxy and COPYs n rows into it
// over the wire; it returns the COPY's wall time.
func loadServed(ctx context.Context, conn *pgx.Conn, n int) (time.Duration, error) {
	if _, err := conn.Exec(ctx, "CREATE TABLE big (id int8 PRIMARY KEY, grp int8, v float8, flag bool)"); err != nil {
		return 0, err
	}
	t0 := time.Now()
	tag, err := conn.PgConn().CopyFrom(ctx, &bigRowsReader{next: 1, n: n}, "COPY big FROM STDIN")
	if err != nil {
		return 0, err
	}
	if tag.RowsAffected() != int64(n) {
		return 0, fmt.Errorf("COPY into pgproxy loaded %d rows, want %d", tag.RowsAffected(), n)
	}
	return time.Since(t0), nil
}
