package graphbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/planner"
	"github.com/pggraph/pggraph/wire"
)

// Proxy is a pgproxy server on a fresh data directory: in this process
// (as `pgproxy serve` builds it) or `BIN serve` as a child process.
type Proxy struct {
	Addr string
	dir  string
	stop func()
}

// ConnString is the server's connection string (database main).
func (p *Proxy) ConnString() string {
	return fmt.Sprintf("postgres://graphbench@%s/main?sslmode=disable", p.Addr)
}

// Stop ends the server and removes its data directory.
func (p *Proxy) Stop() {
	p.stop()
	os.RemoveAll(p.dir)
}

// StartProxy starts a server on a new directory under parent ("": the
// system temp directory); bin "" serves from this process.
func StartProxy(ctx context.Context, bin, parent string) (*Proxy, error) {
	dir, err := os.MkdirTemp(parent, "graphbench-pgproxy-")
	if err != nil {
		return nil, err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	var p *Proxy
	if bin != "" {
		p, err = startChild(bin, dir)
	} else {
		p, err = startInProcess(ctx, dir)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return p, nil
}

func startInProcess(ctx context.Context, dir string) (*Proxy, error) {
	local, err := objstore.NewLocal(dir)
	if err != nil {
		return nil, err
	}
	local.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultReadHandles) // as serve does (cmd/pgproxy/datadir.go)
	g, err := adapters.Open(ctx, local, adapters.Options{Create: true, Actor: "graphbench", Location: dir, AutoOptimizeFragments: 64})
	if err != nil {
		return nil, err
	}
	srv, err := wire.NewServer(wire.Config{Backend: planner.NewBackend(g)})
	if err != nil {
		g.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		g.Close()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), ln) }()
	return &Proxy{Addr: ln.Addr().String(), dir: dir, stop: func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		if err := <-done; err != nil && !errors.Is(err, wire.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "pgproxy serve:", err)
		}
		g.Close()
	}}, nil
}

func startChild(bin, dir string) (*Proxy, error) {
	cmd := osexec.Command(bin, "serve", "--data", filepath.Join(dir, "g"), "--listen", "127.0.0.1:0", "--log-level", "warn")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	stop := func() {
		_ = cmd.Process.Signal(os.Interrupt)
		ended := make(chan struct{})
		go func() { _ = cmd.Wait(); close(ended) }()
		select {
		case <-ended:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-ended
		}
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		stop()
		return nil, fmt.Errorf("%s serve did not start (%q): %v", bin, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	addr := strings.TrimSuffix(strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0], ";")
	return &Proxy{Addr: addr, dir: dir, stop: stop}, nil
}
