package wire

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

func TestErrorPredicates(t *testing.T) {
	base := Errorf(CodeQueryCanceled, "stop %d", 1).WithDetail("d").WithHint("h").WithPosition(3)
	wrapped := fmt.Errorf("layer: %w", base)
	if !IsCanceled(wrapped) || IsAuthFailure(wrapped) || Code(wrapped) != CodeQueryCanceled {
		t.Fatalf("predicates on %v", wrapped)
	}
	if base.Detail != "d" || base.Hint != "h" || base.Position != 3 || base.Message != "stop 1" {
		t.Fatalf("builders: %+v", base)
	}
	if !IsProtocolViolation(protocolError("x")) || !IsTooManyConnections(&Error{Code: CodeTooManyConnections}) {
		t.Fatal("predicates")
	}
	if Code(errors.New("plain")) != "" {
		t.Fatal("plain error has a code")
	}
	if s := base.Error(); !strings.Contains(s, "57014") || !strings.Contains(s, "ERROR") {
		t.Fatalf("Error() = %q", s)
	}
	cause := errors.New("disk on fire")
	e := &Error{Code: CodeInternalError, Message: "internal error", Cause: cause}
	if !errors.Is(e, cause) {
		t.Fatal("Cause not unwrapped")
	}
	// toPGError: raw Go errors never reach the client verbatim
	got := toPGError(context.Background(), errors.New("secret path /etc/x"))
	if got.Code != CodeInternalError || strings.Contains(got.Message, "secret") {
		t.Fatalf("raw error leaked: %+v", got)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(ErrStatementTimeout)
	if got := toPGError(ctx, errors.New("whatever")); got.Code != CodeQueryCanceled || !strings.Contains(got.Message, "statement timeout") {
		t.Fatalf("timeout mapping: %+v", got)
	}
	if shifted := shiftPosition(base, 10); shifted.Position != 13 || base.Position != 3 {
		t.Fatalf("shiftPosition: %d (original %d)", shifted.Position, base.Position)
	}
}

func TestLoadUsersFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "users")
	os.WriteFile(path, []byte("carol "+HashMD5("carol", "pw")+"\n"), 0o600)
	u, err := LoadUsersFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := u.lookup("carol"); !ok || !s.verifyCleartext("carol", "pw") {
		t.Fatal("carol does not verify")
	}
	if _, err := LoadUsersFile(path + ".missing"); err == nil {
		t.Fatal("missing file accepted")
	}
	srv, err := NewServer(Config{Backend: NoSQLBackend{}, Auth: AuthMD5, UsersFile: path})
	if err != nil || srv == nil {
		t.Fatalf("server from users file: %v", err)
	}
	if _, err := NewServer(Config{Backend: NoSQLBackend{}, Auth: AuthSCRAM}); err == nil {
		t.Fatal("SCRAM without users accepted")
	}
	if _, err := NewServer(Config{}); err == nil {
		t.Fatal("missing Backend accepted")
	}
	for _, name := range []string{"trust", "password", "md5", "scram", "scram-sha-256", "reject"} {
		if _, ok := ParseAuthMethod(name); !ok {
			t.Errorf("%s not parsed", name)
		}
	}
	if _, ok := ParseAuthMethod("kerberos"); ok {
		t.Error("kerberos parsed")
	}
}

func TestAuthProtocolViolation(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM })
	rc := dialRaw(t, ts)
	rc.send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersion30, Parameters: map[string]string{"user": testUser}})
	msg, err := rc.fe.Receive()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := msg.(*pgproto3.AuthenticationSASL); !ok {
		t.Fatalf("got %T", msg)
	}
	rc.send(q("select 1")) // not a SASL response
	got := rc.until(1)
	if !strings.HasPrefix(got[0], "ErrorResponse FATAL 08P01") || got[len(got)-1] != "<closed>" {
		t.Fatalf("got %v", got)
	}
}

func TestShowAll(t *testing.T) {
	ts := startServer(t, nil)
	rc, _ := connectRaw(t, ts, map[string]string{"my.custom": "x"})
	rc.send(q("set other.thing = 'y'; show all"))
	got := strings.Join(rc.until(1), "\n")
	for _, want := range []string{"RowDescription name:25/0,setting:25/0,description:25/0", `DataRow "graph.branch","main"`,
		`DataRow "other.thing","y",""`, `DataRow "DateStyle","ISO, MDY"`, "CommandComplete SHOW"} {
		if !strings.Contains(got, want) {
			t.Errorf("SHOW ALL lacks %s", want)
		}
	}
}
