package pgtest

import (
	"bytes"
	"context"
	"errors"
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
)

// InstallHint is the command that installs what Start needs (Debian bookworm).
const InstallHint = "apt-get update && apt-get install -y postgresql-15 postgresql-client-15"

// ErrNotInstalled is returned (wrapped) when the PostgreSQL 15 binaries are missing.
var ErrNotInstalled = errors.New("pgtest: PostgreSQL 15 is not installed; install it with: " + InstallHint)

// BinDirs are searched in order for initdb and postgres.
var BinDirs = []string{"/usr/lib/postgresql/15/bin"}

// Server is a running throwaway PostgreSQL cluster.
type Server struct {
	Dir     string // temporary root (data dir and socket dir live inside)
	Port    int
	cmd     *exec.Cmd
	done    chan error
	stopped bool
}

// ConnString returns a pgx connection string for database db as user postgres.
func (s *Server) ConnString(db string) string {
	return fmt.Sprintf("host=127.0.0.1 port=%d user=postgres dbname=%s sslmode=disable", s.Port, db)
}

// Connect opens a pgx connection to the "postgres" database.
func (s *Server) Connect(ctx context.Context) (*pgx.Conn, error) {
	return pgx.Connect(ctx, s.ConnString("postgres"))
}

func findBin() (string, error) {
	for _, d := range BinDirs {
		if _, err := os.Stat(filepath.Join(d, "postgres")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
				return d, nil
			}
		}
	}
	return "", ErrNotInstalled
}

// credential returns the postgres OS user's credential when running as root.
func credential() (*syscall.Credential, int, int, error) {
	if os.Geteuid() != 0 {
		return nil, -1, -1, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, 0, 0, fmt.Errorf("pgtest: running as root needs the postgres OS user (%v); install it with: %s", err, InstallHint)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, uid, gid, nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start initializes and starts a new cluster and waits until it accepts
// connections.
func Start(ctx context.Context) (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	cred, uid, gid, err := credential()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	data := filepath.Join(root, "data")
	sock := filepath.Join(root, "sock")
	for _, d := range []string{data, sock} {
		if err := os.Mkdir(d, 0o700); err != nil {
			os.RemoveAll(root)
			return nil, err
		}
	}
	if cred != nil {
		for _, p := range []string{root, data, sock} {
			if err := os.Chown(p, uid, gid); err != nil {
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
	initdb := run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	pg := run("postgres", "-D", data, "-p", strconv.Itoa(port), "-k", sock, "-h", "127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "TimeZone=UTC", "-c", "max_connections=20", "-c", "shared_buffers=64MB")
	var logBuf bytes.Buffer
	pg.Stdout = &logBuf
	pg.Stderr = &logBuf
	if err := pg.Start(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s := &Server{Dir: root, Port: port, cmd: pg, done: make(chan error, 1)}
	go func() { s.done <- pg.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		conn, err := s.Connect(cctx)
		cancel()
		if err == nil {
			conn.Close(ctx)
			return s, nil
		}
		select {
		case werr := <-s.done:
			s.stopped = true
			os.RemoveAll(root)
			return nil, fmt.Errorf("pgtest: postgres exited (%v):\n%s", werr, logBuf.String())
		default:
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			s.Stop()
			return nil, fmt.Errorf("pgtest: postgres did not accept connections: %v\n%s", err, logBuf.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop shuts the server down (fast shutdown, then kill) and removes its files.
func (s *Server) Stop() {
	if s == nil {
		return
	}
	if !s.stopped {
		s.stopped = true
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	os.RemoveAll(s.Dir)
}
