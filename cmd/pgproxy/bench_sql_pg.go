package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// durablePostgres is the sql suite's PostgreSQL 15: a throwaway cluster
// like internal/pgtest's, but with PostgreSQL's durable defaults (fsync,
// synchronous_commit and full_page_writes on), which pgtest turns off for
// test speed and a running server cannot turn back on (fsync is fixed at
// start). A commit-latency comparison needs both servers to acknowledge
// only what is on disk, so the cluster lives under the bench --dir, on
// the same filesystem as pgproxy's root (or in the temporary directory
// when the postgres OS user cannot reach --dir).
type durablePostgres struct {
	dir  string
	port int
	cmd  *exec.Cmd
	done chan error
	log  bytes.Buffer
}

func (p *durablePostgres) connString() string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=postgres sslmode=disable", p.port)
}

func startDurablePostgres(ctx context.Context, dir string) (*durablePostgres, error) {
	var bin string
	for _, d := range pgtest.BinDirs {
		if fileExistsAt(filepath.Join(d, "postgres")) && fileExistsAt(filepath.Join(d, "initdb")) {
			bin = d
			break
		}
	}
	if bin == "" {
		return nil, pgtest.ErrNotInstalled
	}
	// initdb and postgres refuse to run as root: run them as the
	// postgres OS user, which then owns the cluster directory.
	var cred *syscall.Credential
	uid, gid := -1, -1
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("bench sql: running as root needs the postgres OS user (%v); install with: %s", err, pgtest.InstallHint)
		}
		uid, _ = strconv.Atoi(u.Uid)
		gid, _ = strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if cred != nil && !traversable(dir) {
		// The postgres user cannot reach the bench directory (a private
		// home, say): fall back to the temporary directory.
		dir = os.TempDir()
	}
	root, err := os.MkdirTemp(dir, ".pgproxy-bench-sql-pg-")
	if err != nil {
		return nil, err
	}
	p := &durablePostgres{dir: root, done: make(chan error, 1)}
	data, sock := filepath.Join(root, "data"), filepath.Join(root, "sock")
	for _, d := range []string{data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(root)
			return nil, err
		}
	}
	if cred != nil {
		// The cluster's owner must reach it through the bench directory.
		for _, d := range []string{root, data, sock} {
			if err := os.Chown(d, uid, gid); err != nil {
				os.RemoveAll(root)
				return nil, err
			}
		}
	}
	run := func(name string, args ...string) *exec.Cmd {
		c := exec.Command(filepath.Join(bin, name), args...)
		c.Dir = root
		c.Env = append(os.Environ(), "LC_ALL=C", "TZ=UTC")
		if cred != nil {
			c.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return c
	}
	if out, err := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C").CombinedOutput(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("bench sql: initdb: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	p.cmd = run("postgres", "-D", data, "-p", strconv.Itoa(p.port), "-k", sock, "-h", "127.0.0.1",
		"-c", "TimeZone=UTC", "-c", "max_connections=40", "-c", "shared_buffers=256MB")
	p.cmd.Stdout, p.cmd.Stderr = &p.log, &p.log
	if err := p.cmd.Start(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("bench sql: start postgres: %w", err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := pgx.Connect(cctx, p.connString())
		cancel()
		if err == nil {
			conn.Close(ctx)
			return p, nil
		}
		select {
		case werr := <-p.done:
			os.RemoveAll(root)
			return nil, fmt.Errorf("bench sql: postgres exited (%v):\n%s", werr, p.log.String())
		default:
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			p.stop()
			return nil, fmt.Errorf("bench sql: postgres did not accept connections: %v\n%s", err, p.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// stop shuts the cluster down (fast shutdown, then kill) and removes it.
func (p *durablePostgres) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	os.RemoveAll(p.dir)
}

// traversable reports whether every directory from / down to dir may be
// searched by other users (the postgres OS user).
func traversable(dir string) bool {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for d := abs; ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}

func fileExistsAt(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
