package wire

import (
	"crypto/tls"
	"time"

	"github.com/sirupsen/logrus"
)

// AuthMethod selects how clients prove who they are.
type AuthMethod string

// Authentication methods (the names pg_hba.conf uses).
const (
	AuthTrust    AuthMethod = "trust"         // no password
	AuthPassword AuthMethod = "password"      // cleartext password, checked against the stored secret
	AuthMD5      AuthMethod = "md5"           // MD5 challenge; falls back to SCRAM for users stored as SCRAM
	AuthSCRAM    AuthMethod = "scram-sha-256" // SASL SCRAM-SHA-256
	AuthReject   AuthMethod = "reject"        // refuse (for HBA rules)
)

// ParseAuthMethod accepts the method names of the command line
// (trust|password|md5|scram|scram-sha-256).
func ParseAuthMethod(s string) (AuthMethod, bool) {
	switch s {
	case "trust":
		return AuthTrust, true
	case "password", "cleartext":
		return AuthPassword, true
	case "md5":
		return AuthMD5, true
	case "scram", "scram-sha-256":
		return AuthSCRAM, true
	case "reject":
		return AuthReject, true
	}
	return "", false
}

// Config configures a Server. The zero value of every limit means the
// default documented on the field.
type Config struct {
	// Backend creates a Session per connection (required).
	Backend Backend
	// Auth is the default authentication method (default trust). HBA rules,
	// when present, take precedence.
	Auth AuthMethod
	// UsersFile is the path of the users file (see doc.go for the format).
	// Required for every method but trust.
	UsersFile string
	// Users, if non-nil, is used instead of UsersFile (tests, embedding).
	Users *Users
	// Credentials, if set, is asked first for a login role's stored
	// secret (a SCRAM verifier or md5 hash, "" for none usable: no such
	// role, no password, or VALID UNTIL passed). authoritative=false
	// means it keeps no roles (yet) and Users decides; pgproxy answers
	// from the root's role catalog.
	Credentials func(user string) (secret string, authoritative bool)
	// HBA are pg_hba-style rules checked in order; the first match decides
	// the method. No rule matching means Auth.
	HBA []HBARule
	// HBAFile, if set, is read with ParseHBA and its rules appended to HBA.
	HBAFile string

	// TLSCertFile and TLSKeyFile enable TLS with that certificate.
	TLSCertFile, TLSKeyFile string
	// TLSSelfSigned enables TLS with a certificate generated at start.
	TLSSelfSigned bool
	// TLSConfig, if set, is used as is (overrides the files).
	TLSConfig *tls.Config
	// RequireTLS refuses plaintext connections (28000).
	RequireTLS bool

	// MaxConnections caps concurrent sessions (default 100); the next one
	// gets 53300.
	MaxConnections int
	// MaxMessageSize caps one client message in bytes (default 64 MiB). A
	// larger message gets 54000 and the connection is closed. It is also
	// the per-connection cap on buffered input: a connection holds its
	// 64 KiB read buffer plus at most the one message being received,
	// and only the bytes of it that have arrived.
	MaxMessageSize int
	// MaxBufferedBytes caps the bytes all connections together hold in
	// messages larger than their read buffer (default 512 MiB). A message
	// that would pass it is read through and dropped; its statement fails
	// with 53200.
	MaxBufferedBytes int64
	// MessageTimeout bounds each wait for more bytes of a message that
	// has begun (default 60s); a client that stops in the middle of a
	// message is disconnected with FATAL 08P01.
	MessageTimeout time.Duration
	// ClientCheckInterval is how often the connection of a running
	// statement is checked for a client that went away (default 250ms;
	// negative disables): its statement is then cancelled and its
	// transaction rolled back.
	ClientCheckInterval time.Duration
	// StatementTimeout, IdleInTransactionTimeout and IdleSessionTimeout
	// are the defaults of the statement_timeout,
	// idle_in_transaction_session_timeout and idle_session_timeout
	// settings.
	StatementTimeout         time.Duration
	IdleInTransactionTimeout time.Duration
	IdleSessionTimeout       time.Duration
	// WorkMem is the default of the work_mem setting (PostgreSQL's
	// syntax, e.g. "256MB"; "" = the built-in 64MB, a larger default than
	// PostgreSQL's 4MB because a vectorized operator's batches are larger
	// than a tuple at a time). Set, it shows in pg_settings with source
	// "command line", as a postgresql.conf value would.
	WorkMem string
	// StartupTimeout bounds the time from accept to ReadyForQuery
	// (authentication included; default 60s, as authentication_timeout).
	StartupTimeout time.Duration
	// AuthFailureDelay is the base delay added before answering a failed
	// login; it doubles with each recent failure from the same address, up
	// to 32× (default 200ms). Negative disables it.
	AuthFailureDelay time.Duration
	// FlushThreshold is the output buffer size that forces a write between
	// Sync points (default 32 KiB).
	FlushThreshold int

	// LogConnections and LogDisconnections log each session's start and
	// end (PostgreSQL's log_connections / log_disconnections) to the
	// event log (observe.Logger); LogMinDurationStatement is the default
	// of log_min_duration_statement in PostgreSQL's syntax ("" = -1, off;
	// "0" logs every statement; "250ms").
	LogConnections, LogDisconnections bool
	LogMinDurationStatement           string

	// Logger receives connection-level logs (default logrus standard logger).
	Logger logrus.FieldLogger
}

func (c *Config) withDefaults() Config {
	out := *c
	if out.Auth == "" {
		out.Auth = AuthTrust
	}
	if out.MaxConnections <= 0 {
		out.MaxConnections = 100
	}
	if out.MaxMessageSize <= 0 {
		out.MaxMessageSize = 64 << 20
	}
	if out.MaxBufferedBytes <= 0 {
		out.MaxBufferedBytes = 512 << 20
	}
	if out.MessageTimeout <= 0 {
		out.MessageTimeout = 60 * time.Second
	}
	if out.ClientCheckInterval == 0 {
		out.ClientCheckInterval = 250 * time.Millisecond
	}
	if out.StartupTimeout <= 0 {
		out.StartupTimeout = 60 * time.Second
	}
	if out.AuthFailureDelay == 0 {
		out.AuthFailureDelay = 200 * time.Millisecond
	}
	if out.FlushThreshold <= 0 {
		out.FlushThreshold = 32 << 10
	}
	if out.Logger == nil {
		out.Logger = logrus.StandardLogger()
	}
	return out
}
