package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"time"
)

// childProxy is `pgproxy serve` run as a separate process of the given
// binary on a fresh data directory (-pgproxy): the product exactly as
// deployed, with its own runtime and garbage collector, away from this
// process's in-memory tables and clients.
type childProxy struct {
	addr, dir string
	cmd       *osexec.Cmd
}

func startChildProxy(bin, parent string) (*childProxy, error) {
	abs, err := scratchDir(parent)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(abs, "g")
	args := []string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--log-level", "warn"}
	if p := os.Getenv("PGGRAPH_EXECBENCH_SERVE_PROFILE"); p != "" {
		args = append(args, "--cpu-profile", p) // the child's own profile, COPY load included
	}
	cmd := osexec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		os.RemoveAll(abs)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		os.RemoveAll(abs)
		return nil, err
	}
	p := &childProxy{dir: abs, cmd: cmd}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "listening on ") {
		p.stop()
		return nil, fmt.Errorf("%s serve did not start (%q): %v", bin, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, out) }()
	p.addr = strings.TrimSuffix(strings.Fields(strings.SplitN(line, "listening on ", 2)[1])[0], ";")
	return p, nil
}

func (p *childProxy) connString() string {
	return fmt.Sprintf("postgres://execbench@%s/main?sslmode=disable", p.addr)
}

// stop interrupts the server (graceful shutdown), kills it if it does
// not end, and removes its data directory.
func (p *childProxy) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(p.dir)
}

// servedTarget is the pgproxy the lookups go to: in this process (with
// data-directory operation counts) or a child process.
type servedTarget struct {
	in    *servedProxy
	child *childProxy
}

func startTarget(ctx context.Context, bin, parent string) (*servedTarget, error) {
	if bin != "" {
		c, err := startChildProxy(bin, parent)
		return &servedTarget{child: c}, err
	}
	p, err := startServedProxy(ctx, parent)
	return &servedTarget{in: p}, err
}

func (t *servedTarget) connString() string {
	if t.child != nil {
		return t.child.connString()
	}
	return t.in.connString()
}

func (t *servedTarget) dir() string {
	if t.child != nil {
		return t.child.dir
	}
	return t.in.dir
}

func (t *servedTarget) stop() {
	if t.child != nil {
		t.child.stop()
	} else if t.in != nil {
		t.in.stop()
	}
}

// ops reads the data-directory operation counts (in-process only).
func (t *servedTarget) ops() (storeOpsSnapshot, bool) {
	if t.in == nil {
		return storeOpsSnapshot{}, false
	}
	return t.in.store.read(), true
}
