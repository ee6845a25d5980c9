package console

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pggraph/pggraph/pgerr"
)

// Config is what the console needs from the server that embeds it.
type Config struct {
	// Dial opens a connection to the protocol server on behalf of a
	// browser at remote (PipeListener.Dial).
	Dial func(ctx context.Context, remote net.Addr) (net.Conn, error)
	// TLS makes the console's SQL sessions negotiate TLS, so that
	// hostssl rules and --require-tls treat them as encrypted; set it
	// when the console itself is served over TLS.
	TLS bool
	// QueryTimeout bounds each page's SQL (default 30 s).
	QueryTimeout time.Duration
}

// Server is the console's HTTP handler.
type Server struct {
	cfg Config
	mux *http.ServeMux
}

// New returns the console handler for cfg.
func New(cfg Config) *Server {
	if cfg.QueryTimeout <= 0 {
		cfg.QueryTimeout = 30 * time.Second
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux()}
	s.routes()
	return s
}

// ServeHTTP authenticates the request and serves the page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	// Everything is served by the binary itself: no script, no outside
	// origin, inline styles only from our own stylesheet.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'")
	s.mux.ServeHTTP(w, r)
}

// session is one authenticated SQL session of a page request.
type session struct {
	conn *pgx.Conn
	user string
}

// errUnauthorized asks the browser for (other) credentials.
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// open authenticates r's Basic credentials by logging in to the protocol
// server with them, on branch: the console has no authentication of its
// own, so pg_hba rules, passwords, role attributes and privileges apply
// exactly as they do to SQL clients. The session is read-only.
func (s *Server) open(ctx context.Context, r *http.Request, branch string) (*session, error) {
	user, password, ok := r.BasicAuth()
	if !ok || user == "" {
		return nil, &httpError{http.StatusUnauthorized, "log in with a pgproxy role and its password"}
	}
	remote, err := remoteAddr(r)
	if err != nil {
		return nil, &httpError{http.StatusBadRequest, err.Error()}
	}
	// Nothing of the environment (PGHOST, PGSSLMODE, …) may change how
	// the console reaches its own server.
	cfg, err := pgx.ParseConfigWithOptions("host=console port=5432 sslmode=disable", pgx.ParseConfigOptions{})
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Password, cfg.Database = user, password, branch
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	cfg.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) { return s.cfg.Dial(ctx, remote) }
	cfg.Fallbacks = nil
	if s.cfg.TLS {
		// The peer is this process over an in-memory pipe: there is no
		// name to verify, only the server's TLS requirement to satisfy.
		cfg.TLSConfig = &tls.Config{InsecureSkipVerify: true} //nolint:gosec // in-process peer
	}
	cfg.RuntimeParams = map[string]string{"application_name": "pgproxy console", "default_transaction_read_only": "on"}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			switch pe.Code {
			case pgerr.InvalidPassword:
				return nil, &httpError{http.StatusUnauthorized, pe.Message}
			case pgerr.InvalidAuthorizationSpecification, pgerr.InsufficientPrivilege:
				return nil, &httpError{http.StatusForbidden, pe.Message}
			case pgerr.InvalidCatalogName:
				return nil, &httpError{http.StatusNotFound, pe.Message}
			case pgerr.TooManyConnections, pgerr.CannotConnectNow:
				return nil, &httpError{http.StatusServiceUnavailable, pe.Message}
			}
			return nil, &httpError{http.StatusBadGateway, fmt.Sprintf("%s (SQLSTATE %s)", pe.Message, pe.Code)}
		}
		return nil, &httpError{http.StatusBadGateway, "could not open a session: " + err.Error()}
	}
	return &session{conn: conn, user: user}, nil
}

func (ss *session) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ss.conn.Close(ctx)
}

// remoteAddr is the browser's address as a TCP address (what pg_hba
// address rules match).
func remoteAddr(r *http.Request) (net.Addr, error) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return nil, fmt.Errorf("unusable client address %q", r.RemoteAddr)
	}
	return net.TCPAddrFromAddrPort(ap), nil
}
