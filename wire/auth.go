package wire

import (
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/xdg-go/scram"
)

// HBARule is one pg_hba.conf-style rule: connections matching Type,
// Database, User and Address authenticate with Method.
type HBARule struct {
	Type      string     // "host" (any), "hostssl", "hostnossl"
	Databases []string   // names; empty or "all" = any
	Users     []string   // names; empty or "all" = any
	Address   *net.IPNet // nil = any
	Method    AuthMethod
}

// ParseHBA reads rules in pg_hba.conf syntax: "TYPE DATABASE USER ADDRESS
// METHOD" per line, comma-separated lists, "all", CIDR or "all" addresses.
func ParseHBA(text string) ([]HBARule, error) {
	var out []HBARule
	for i, line := range strings.Split(text, "\n") {
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 5 {
			return nil, fmt.Errorf("hba line %d: want TYPE DATABASE USER ADDRESS METHOD", i+1)
		}
		r := HBARule{Type: f[0], Databases: strings.Split(f[1], ","), Users: strings.Split(f[2], ",")}
		switch r.Type {
		case "host", "hostssl", "hostnossl":
		default:
			return nil, fmt.Errorf("hba line %d: unsupported type %q", i+1, f[0])
		}
		if f[3] != "all" {
			_, n, err := net.ParseCIDR(f[3])
			if err != nil {
				return nil, fmt.Errorf("hba line %d: %v", i+1, err)
			}
			r.Address = n
		}
		m, ok := ParseAuthMethod(f[4])
		if !ok {
			return nil, fmt.Errorf("hba line %d: unknown method %q", i+1, f[4])
		}
		r.Method = m
		out = append(out, r)
	}
	return out, nil
}

func listMatches(list []string, v string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x == "all" || x == v {
			return true
		}
	}
	return false
}

// methodFor picks the authentication method for a connection.
func (s *Server) methodFor(addr net.Addr, tlsOn bool, user, db string) AuthMethod {
	var ip net.IP
	if ta, ok := addr.(*net.TCPAddr); ok {
		ip = ta.IP
	}
	for _, r := range s.cfg.HBA {
		if r.Type == "hostssl" && !tlsOn || r.Type == "hostnossl" && tlsOn {
			continue
		}
		if !listMatches(r.Databases, db) || !listMatches(r.Users, user) {
			continue
		}
		if r.Address != nil && (ip == nil || !r.Address.Contains(ip)) {
			continue
		}
		return r.Method
	}
	return s.cfg.Auth
}

// failureLimiter slows down repeated failed logins per client address.
type failureLimiter struct {
	mu    sync.Mutex
	base  time.Duration
	state map[string]*failures
}

type failures struct {
	count int
	last  time.Time
}

const failureMemory = time.Minute

func (l *failureLimiter) key(addr net.Addr) string {
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	if addr == nil {
		return ""
	}
	return addr.String()
}

// fail records a failure and returns how long to wait before answering.
func (l *failureLimiter) fail(addr net.Addr) time.Duration {
	if l.base < 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.state == nil {
		l.state = map[string]*failures{}
	}
	for k, f := range l.state { // bounded: forget quiet addresses
		if now.Sub(f.last) > failureMemory {
			delete(l.state, k)
		}
	}
	f := l.state[l.key(addr)]
	if f == nil {
		f = &failures{}
		l.state[l.key(addr)] = f
	}
	f.count++
	f.last = now
	shift := min(f.count-1, 5)
	return l.base << shift
}

func (l *failureLimiter) succeed(addr net.Addr) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.state, l.key(addr))
}

// errAuthFailed is what every failed login looks like to the client,
// whether or not the user exists.
func errAuthFailed(user string, method AuthMethod) *Error {
	what := "password"
	if method == AuthReject {
		return &Error{Severity: SeverityFatal, Code: CodeInvalidAuthorization, Message: fmt.Sprintf("connection rejected for user \"%s\"", user)}
	}
	return &Error{Severity: SeverityFatal, Code: CodeInvalidPassword, Message: fmt.Sprintf("%s authentication failed for user \"%s\"", what, user)}
}

// authenticate runs the authentication exchange; nil means success.
func (c *conn) authenticate(method AuthMethod) error {
	user := c.user
	sec, known := c.srv.lookupSecret(user)
	switch method {
	case AuthTrust:
		return nil
	case AuthReject:
		// a reject rule: PostgreSQL names the rule's match, not the role
		e := c.admit(c.database)
		if e, ok := e.(*Error); ok {
			e.Severity = SeverityFatal
			return e
		}
		return errAuthFailed(user, method)
	case AuthPassword:
		c.be.Send(&pgproto3.AuthenticationCleartextPassword{})
		if err := c.be.SetAuthType(pgproto3.AuthTypeCleartextPassword); err != nil {
			return err
		}
		msg, err := c.receiveAuth()
		if err != nil {
			return err
		}
		pw, ok := msg.(*pgproto3.PasswordMessage)
		if !ok {
			return errAuthProtocol(msg)
		}
		if !known || !sec.verifyCleartext(user, pw.Password) {
			return errAuthFailed(user, method)
		}
		return nil
	case AuthMD5:
		if known && sec.kind == secretSCRAM {
			return c.authSCRAM(sec, known)
		}
		var salt [4]byte
		if _, err := rand.Read(salt[:]); err != nil {
			return err
		}
		c.be.Send(&pgproto3.AuthenticationMD5Password{Salt: salt})
		if err := c.be.SetAuthType(pgproto3.AuthTypeMD5Password); err != nil {
			return err
		}
		msg, err := c.receiveAuth()
		if err != nil {
			return err
		}
		pw, ok := msg.(*pgproto3.PasswordMessage)
		if !ok {
			return errAuthProtocol(msg)
		}
		if !known || !sec.verifyMD5(pw.Password, salt) {
			return errAuthFailed(user, method)
		}
		return nil
	case AuthSCRAM:
		return c.authSCRAM(sec, known && sec.kind == secretSCRAM)
	}
	return errAuthFailed(user, AuthReject)
}

// lookupSecret finds user's stored secret: Credentials first, then the
// users file.
func (s *Server) lookupSecret(user string) (secret, bool) {
	if s.cfg.Credentials != nil {
		if text, authoritative := s.cfg.Credentials(user); authoritative {
			if text == "" {
				return secret{}, false
			}
			sec, err := parseSecret(text)
			return sec, err == nil
		}
	}
	return s.users.lookup(user)
}

func errAuthProtocol(msg pgproto3.FrontendMessage) *Error {
	return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: fmt.Sprintf("expected password response, got message type %T", msg)}
}

// receiveAuth flushes the pending challenge and reads the reply.
func (c *conn) receiveAuth() (pgproto3.FrontendMessage, error) {
	if err := c.flush(); err != nil {
		return nil, err
	}
	msg, err := c.be.Receive()
	if err != nil {
		return nil, c.readError(err)
	}
	if _, ok := msg.(*pgproto3.Terminate); ok {
		return nil, errClientGone
	}
	return msg, nil
}

// errClientGone ends a connection without an answer.
var errClientGone = errors.New("wire: client closed the connection")

// authSCRAM runs SASL SCRAM-SHA-256. With usable=false (unknown user or a
// non-SCRAM secret) it runs the exchange against a mock secret derived from
// the user name, so the failure looks the same as a wrong password.
func (c *conn) authSCRAM(sec secret, usable bool) error {
	user := c.user
	creds := scram.StoredCredentials{}
	if usable {
		creds = scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(sec.salt), Iters: sec.iters}, StoredKey: sec.storedKey, ServerKey: sec.serverKey}
	} else {
		mock := hmacSHA256(c.srv.mockSecret, "salt:"+user)[:16]
		creds = scram.StoredCredentials{KeyFactors: scram.KeyFactors{Salt: string(mock), Iters: DefaultSCRAMIterations},
			StoredKey: hmacSHA256(c.srv.mockSecret, "stored:"+user), ServerKey: hmacSHA256(c.srv.mockSecret, "server:"+user)}
	}
	// PostgreSQL ignores the SCRAM user name; the startup user counts.
	srv, err := scram.SHA256.NewServer(func(string) (scram.StoredCredentials, error) { return creds, nil })
	if err != nil {
		return err
	}
	// Over TLS with a known certificate, offer SCRAM-SHA-256-PLUS bound to
	// it (tls-server-end-point), as PostgreSQL does; the conversation then
	// also rejects a "y" downgrade from a client that could bind.
	conv := srv.NewConversation()
	mechs := []string{"SCRAM-SHA-256"}
	if c.tls && c.srv.endpointBinding != nil {
		conv = srv.NewConversationWithChannelBinding(scram.ChannelBinding{Type: scram.ChannelBindingTLSServerEndpoint, Data: c.srv.endpointBinding})
		mechs = []string{"SCRAM-SHA-256-PLUS", "SCRAM-SHA-256"}
	}
	c.be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: mechs})
	if err := c.be.SetAuthType(pgproto3.AuthTypeSASL); err != nil {
		return err
	}
	msg, err := c.receiveAuth()
	if err != nil {
		return err
	}
	first, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok {
		return errAuthProtocol(msg)
	}
	if first.AuthMechanism != "SCRAM-SHA-256" && !(first.AuthMechanism == "SCRAM-SHA-256-PLUS" && len(mechs) == 2) {
		return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "client selected an invalid SASL authentication mechanism"}
	}
	serverFirst, err := conv.Step(string(first.Data))
	if err != nil {
		return errAuthFailed(user, AuthSCRAM)
	}
	c.be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	if err := c.be.SetAuthType(pgproto3.AuthTypeSASLContinue); err != nil {
		return err
	}
	msg, err = c.receiveAuth()
	if err != nil {
		return err
	}
	final, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return errAuthProtocol(msg)
	}
	serverFinal, err := conv.Step(string(final.Data))
	if err != nil || !conv.Valid() || !usable {
		return errAuthFailed(user, AuthSCRAM)
	}
	c.be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte(serverFinal)})
	return nil
}

// newMockSecret returns the per-server key for mock SCRAM salts.
func newMockSecret() []byte {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		sum := sha256.Sum256([]byte(time.Now().String()))
		return sum[:]
	}
	return b
}

// admit is SessionInfo.Admit: the hba rules for (this client, database).
// A rule that rejects refuses; a rule that asks for a password refuses a
// session that logged in without one (trust), since it cannot be asked
// for one now. Every password method proves the same secret, so a
// session that gave one may reach any database its rules let it.
func (c *conn) admit(database string) error {
	m := c.srv.methodFor(c.nc.RemoteAddr(), c.tls, c.user, database)
	if m == AuthReject || (m != AuthTrust && c.authMethod == AuthTrust) {
		return &Error{Severity: SeverityError, Code: CodeInvalidAuthorization,
			Message: fmt.Sprintf("pg_hba.conf rejects connection for host \"%s\", user \"%s\", database \"%s\", %s",
				hostOf(c.nc.RemoteAddr()), c.user, database, map[bool]string{true: "SSL encryption", false: "no encryption"}[c.tls])}
	}
	return nil
}

// hostOf is the client address as PostgreSQL prints it in hba messages.
func hostOf(addr net.Addr) string {
	if ta, ok := addr.(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	if addr == nil {
		return "[local]"
	}
	return addr.String()
}
