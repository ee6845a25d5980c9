package wire

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// ErrServerClosed is returned by Serve after Shutdown.
var ErrServerClosed = errors.New("wire: server closed")

// Server accepts PostgreSQL protocol connections and runs a Session per
// connection. It is safe for concurrent use; one Server may serve several
// listeners.
type Server struct {
	cfg        Config
	users      *Users
	tlsConf    *tls.Config
	mockSecret []byte
	// endpointBinding is the SCRAM-SHA-256-PLUS channel binding data.
	endpointBinding []byte
	limiter         failureLimiter
	// buffered counts the bytes held in large incoming messages
	// (msgreader.go) against Config.MaxBufferedBytes.
	buffered *byteBudget

	closing atomic.Bool
	mu      sync.Mutex
	lns     map[net.Listener]struct{}
	conns   map[uint32]*conn // by process id
	nextPID uint32
	active  int // sessions past the connection limit check
	wg      sync.WaitGroup
}

// NewServer validates cfg and prepares TLS and the users file.
func NewServer(cfg Config) (*Server, error) {
	c := cfg.withDefaults()
	if c.Backend == nil {
		return nil, errors.New("wire: Config.Backend is required")
	}
	s := &Server{cfg: c, mockSecret: newMockSecret(), lns: map[net.Listener]struct{}{}, conns: map[uint32]*conn{}}
	s.limiter.base = c.AuthFailureDelay
	s.buffered = &byteBudget{limit: c.MaxBufferedBytes}
	s.users = c.Users
	if s.users == nil && c.UsersFile != "" {
		u, err := LoadUsersFile(c.UsersFile)
		if err != nil {
			return nil, err
		}
		s.users = u
	}
	if c.HBAFile != "" {
		text, err := os.ReadFile(c.HBAFile)
		if err != nil {
			return nil, fmt.Errorf("wire: hba file: %w", err)
		}
		rules, err := ParseHBA(string(text))
		if err != nil {
			return nil, fmt.Errorf("wire: hba file %s: %w", c.HBAFile, err)
		}
		c.HBA = append(append([]HBARule(nil), c.HBA...), rules...)
		s.cfg.HBA = c.HBA
	}
	needUsers := c.Auth != AuthTrust && c.Auth != AuthReject
	for _, r := range c.HBA {
		if r.Method != AuthTrust && r.Method != AuthReject {
			needUsers = true
		}
	}
	if needUsers && s.users == nil && c.Credentials == nil {
		return nil, fmt.Errorf("wire: auth method %s needs a users file", c.Auth)
	}
	tc, err := buildTLSConfig(c)
	if err != nil {
		return nil, err
	}
	s.tlsConf = tc
	s.endpointBinding = serverEndpointBinding(tc)
	if c.RequireTLS && tc == nil {
		return nil, errors.New("wire: RequireTLS without a TLS certificate")
	}
	return s, nil
}

// Serve accepts connections on ln until ctx ends or Shutdown is called. It
// always closes ln. After Shutdown it returns ErrServerClosed. Ending ctx is
// a hard stop: the connections it accepted are closed at once (running
// statements cancelled). For a graceful stop keep ctx alive and call
// Shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return ErrServerClosed
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		// Add under the lock that Shutdown takes before Wait: no Add may
		// race with Wait once the server is closing.
		s.mu.Lock()
		if s.closing.Load() {
			s.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			newConn(s, nc).serve(ctx)
		}()
	}
}

// Shutdown stops accepting, ends idle sessions at their next statement
// boundary (FATAL 57P01), lets running statements finish, and waits for
// every connection to close. When ctx ends first, running statements are
// cancelled and connections closed; Shutdown then returns ctx.Err().
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.closing.Store(true)
	for ln := range s.lns {
		ln.Close()
	}
	conns := make([]*conn, 0, len(s.conns))
	for _, c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.interruptIdle()
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.mu.Lock()
		for _, c := range s.conns {
			c.forceClose()
		}
		s.mu.Unlock()
		<-done
		return ctx.Err()
	}
}

// register assigns a process id and secret key; ok=false when the
// connection limit is reached.
func (s *Server) register(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active >= s.cfg.MaxConnections {
		return false
	}
	s.active++
	for {
		s.nextPID++
		if s.nextPID == 0 {
			s.nextPID = 1
		}
		if _, used := s.conns[s.nextPID]; !used {
			break
		}
	}
	c.pid = s.nextPID
	s.conns[c.pid] = c
	return true
}

func (s *Server) unregister(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.pid != 0 && s.conns[c.pid] == c {
		delete(s.conns, c.pid)
		s.active--
	}
}

// cancel handles a CancelRequest: the key is compared in constant time and
// a mismatch is silently ignored, as PostgreSQL does.
func (s *Server) cancel(pid uint32, key []byte) {
	s.mu.Lock()
	c := s.conns[pid]
	s.mu.Unlock()
	if c == nil || len(c.secretKey) != len(key) || subtle.ConstantTimeCompare(c.secretKey, key) != 1 {
		return
	}
	c.cancelStatement(ErrCancelRequested)
}

// ActiveConnections reports the number of sessions currently counted
// against MaxConnections.
func (s *Server) ActiveConnections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active
}

// BufferedBytes reports the bytes connections hold now in partly or
// wholly received large messages, and the most held at once.
func (s *Server) BufferedBytes() (now, peak int64) {
	return s.buffered.inUse()
}
