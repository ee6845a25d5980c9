package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// proxy is one running `pgproxy serve` process on its own data directory.
type proxy struct {
	t          *testing.T
	Host, Port string
	Data       string
	cmd        *exec.Cmd
	log        *lockedBuffer
	exited     chan struct{}
	waitErr    error
	stopOnce   sync.Once
}

// lockedBuffer collects the server's log while tests read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// e2eUser is the role every client connects as (the server runs with
// --auth trust, like `make run`).
const e2eUser = "e2e"

// startProxy runs `pgproxy serve` on a fresh root and a free port and
// waits for its "listening" line. The server is stopped (and its exit
// checked) when the test ends.
func startProxy(t *testing.T, extra ...string) *proxy {
	t.Helper()
	data := filepath.Join(t.TempDir(), "graph")
	return startProxyOn(t, data, extra...)
}

// startProxyOn serves an existing (or new) root directory.
func startProxyOn(t *testing.T, data string, extra ...string) *proxy {
	t.Helper()
	args := append([]string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--log-level", "warn"}, extra...)
	cmd := exec.Command(pgproxyBin, args...)
	p := &proxy{t: t, Data: data, cmd: cmd, log: &lockedBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting pgproxy: %v", err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = io.Copy(p.log, r)
	}()
	var line string
	select {
	case line = <-lines:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("pgproxy serve printed nothing within 60s; log:\n%s", p.log.String())
	}
	const marker = "listening on "
	i := strings.Index(line, marker)
	if i < 0 {
		<-p.exited
		t.Fatalf("pgproxy serve did not start: %q (%v); log:\n%s", line, p.waitErr, p.log.String())
	}
	addr := strings.TrimSuffix(strings.Fields(line[i+len(marker):])[0], ";")
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("listening line %q: %v", line, err)
	}
	p.Host, p.Port = host, port
	t.Cleanup(p.stop)
	return p
}

// DSN is a libpq URL for database (branch) db.
func (p *proxy) DSN(db string) string {
	return fmt.Sprintf("postgres://%s@%s:%s/%s?sslmode=disable", e2eUser, p.Host, p.Port, db)
}

// Env is the libpq environment a client process needs to reach branch db.
func (p *proxy) Env(db string) []string {
	return append(os.Environ(), "PGHOST="+p.Host, "PGPORT="+p.Port, "PGUSER="+e2eUser,
		"PGDATABASE="+db, "PGSSLMODE=disable", "PGCONNECT_TIMEOUT=10", "PGPASSWORD=", "PGOPTIONS=",
		"PGTZ=UTC", "LC_ALL=C.UTF-8", "PAGER=")
}

// Connect opens a pgx connection to branch db.
func (p *proxy) Connect(ctx context.Context, db string) (*pgx.Conn, error) {
	return pgx.Connect(ctx, p.DSN(db))
}

// alive fails the test when the server process has exited.
func (p *proxy) alive(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		t.Fatalf("pgproxy exited (%v); log:\n%s", p.waitErr, p.log.String())
	default:
	}
}

// stop sends SIGINT, as a user pressing ^C, and checks that the server
// shut down cleanly: exit 0, no panic, no data race in its log.
func (p *proxy) stop() {
	p.stopOnce.Do(func() {
		t := p.t
		select {
		case <-p.exited:
			t.Errorf("pgproxy had already exited (%v); log:\n%s", p.waitErr, p.log.String())
			return
		default:
		}
		_ = p.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-p.exited:
		case <-time.After(45 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
			t.Errorf("pgproxy did not stop within 45s of SIGINT; log:\n%s", p.log.String())
			return
		}
		log := p.log.String()
		var ee *exec.ExitError
		if p.waitErr != nil && !(errors.As(p.waitErr, &ee) && ee.ExitCode() == 0) {
			t.Errorf("pgproxy exit: %v; log:\n%s", p.waitErr, log)
		}
		for _, bad := range []string{"panic:", "WARNING: DATA RACE", "fatal error:"} {
			if strings.Contains(log, bad) {
				t.Errorf("pgproxy log contains %q:\n%s", bad, log)
			}
		}
	})
}
