package s3test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Module and Version of the server built.
const (
	Module  = "github.com/versity/versitygw/cmd/versitygw"
	Version = "v1.8.0"
)

// Static root credentials every server started here accepts.
const (
	AccessKey = "pggraphtest"
	SecretKey = "pggraphtestsecret"
	Region    = "us-east-1"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// Binary returns the path of the server binary, building it on first
// use (cached under os.TempDir()/pggraph-s3test/versitygw-<Version>).
func Binary() (string, error) {
	buildOnce.Do(func() { binPath, buildErr = build() })
	return binPath, buildErr
}

func build() (string, error) {
	dir := filepath.Join(os.TempDir(), "pggraph-s3test", "versitygw-"+Version)
	bin := filepath.Join(dir, "versitygw")
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Test binaries of several packages may start together: one builds,
	// the others wait on the lock and find the binary.
	lock, err := os.OpenFile(filepath.Join(dir, "build.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin, nil
	}
	gobin, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(gobin)
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("s3test: building %s needs the go command on PATH: %w", Module, err)
	}
	cmd := exec.Command(goTool, "install", Module+"@"+Version)
	cmd.Dir = dir // outside any module: `go install pkg@version` uses the server's own go.mod
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-buildvcs=false", "CGO_ENABLED=0", "GOWORK=off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("s3test: building %s@%s (go install): %v\n%s", Module, Version, err, out.Bytes())
	}
	// publish atomically: a half-copied binary is never found
	if err := os.Rename(filepath.Join(gobin, "versitygw"), bin); err != nil {
		return "", err
	}
	return bin, nil
}

// Server is a running versitygw process.
type Server struct {
	// Endpoint is the server's URL ("http://127.0.0.1:port"); it needs
	// path-style addressing.
	Endpoint string
	// Dir is the posix backend's directory: each bucket is a
	// subdirectory.
	Dir string

	cmd  *exec.Cmd
	done chan struct{}
	log  *bytes.Buffer
	mu   sync.Mutex
}

// Start runs a server on dir (created if missing) and waits until it
// answers. Two servers may share one dir.
func Start(dir string) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := &Server{Endpoint: "http://" + addr, Dir: dir, done: make(chan struct{}), log: &bytes.Buffer{}}
	s.cmd = exec.Command(bin, "--port", addr, "--access", AccessKey, "--secret", SecretKey, "--region", Region, "posix", dir)
	s.cmd.Stdout, s.cmd.Stderr = (*lockedWriter)(s), (*lockedWriter)(s)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("s3test: starting %s: %w", bin, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-s.done:
			return nil, fmt.Errorf("s3test: versitygw exited at start:\n%s", s.Log())
		default:
		}
		if ready(s.Endpoint) {
			return s, nil
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("s3test: versitygw did not answer on %s within 30s:\n%s", addr, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Env is the standard AWS environment a child process (pgproxy) needs to
// reach this server with its credentials.
func (s *Server) Env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + AccessKey, "AWS_SECRET_ACCESS_KEY=" + SecretKey, "AWS_REGION=" + Region,
		"AWS_EC2_METADATA_DISABLED=true"}
}

// Stop kills the server and waits for it to exit.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	<-s.done
}

// Log returns what the server printed so far.
func (s *Server) Log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

type lockedWriter Server

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.log.Len() < 1<<20 {
		w.log.Write(p)
	}
	return len(p), nil
}

// ready reports whether anything answers HTTP at endpoint (an anonymous
// request is refused, which is an answer).
func ready(endpoint string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, endpoint+"/", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return true
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
