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

// Options shape a cluster. The zero value is the test cluster: durability
// off (fsync, synchronous_commit and full_page_writes), 64 MB of shared
// buffers, 20 connections, in the temporary directory.
type Options struct {
	// Durable keeps PostgreSQL's durable defaults on, so a commit is
	// acknowledged only once it is on disk: a benchmark that compares
	// commit latency needs it (fsync cannot be turned on at run time).
	Durable bool
	// Parent is the directory the cluster is created under, so that it
	// shares a filesystem with what it is compared against. When the
	// postgres OS user (root runs) cannot reach it, the temporary
	// directory is used instead.
	Parent string
	// SharedBuffers (e.g. "256MB") and MaxConnections override the
	// defaults when set.
	SharedBuffers  string
	MaxConnections int
}

// Start initializes and starts a new test cluster (Options' zero value)
// and waits until it accepts connections.
func Start(ctx context.Context) (*Server, error) {
	return StartWith(ctx, Options{})
}

// StartWith initializes and starts a new cluster shaped by o and waits
// until it accepts connections.
func StartWith(ctx context.Context, o Options) (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	cred, uid, gid, err := credential()
	if err != nil {
		return nil, err
	}
	parent := o.Parent
	if parent != "" && cred != nil && !traversable(parent) {
		parent = ""
	}
	root, err := os.MkdirTemp(parent, "pgtest-")
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
	initArgs := []string{"-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C"}
	if !o.Durable {
		initArgs = append(initArgs, "--no-sync")
	}
	if out, err := run("initdb", initArgs...).CombinedOutput(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("pgtest: initdb: %v\n%s", err, out)
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(root)
		return nil, err
	}
	sharedBuffers, maxConns := "64MB", 20
	if o.SharedBuffers != "" {
		sharedBuffers = o.SharedBuffers
	}
	if o.MaxConnections > 0 {
		maxConns = o.MaxConnections
	}
	args := []string{"-D", data, "-p", strconv.Itoa(port), "-k", sock, "-h", "127.0.0.1",
		"-c", "TimeZone=UTC", "-c", "max_connections=" + strconv.Itoa(maxConns), "-c", "shared_buffers=" + sharedBuffers}
	if !o.Durable {
		args = append(args, "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	pg := run("postgres", args...)
	var logBuf bytes.Buffer
	pg.Stdout = &logBuf
	pg.Stderr = &logBuf
	if err := pg.Start(); err != nil {
		os.RemoveAll(root)
		return nil, fmt.Errorf("pgtest: start postgres: %w", err)
	}
	s := &Server{Dir: root, Port: port, cmd: pg, done: make(chan error, 1)}
	go func() { s.done <- pg.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
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
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.done
		}
	}
	os.RemoveAll(s.Dir)
}
