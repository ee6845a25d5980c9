package wire

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

func TestAuthMethods(t *testing.T) {
	type attempt struct {
		user, password string
		wantCode       string // "" = success
	}
	cases := []struct {
		method   AuthMethod
		attempts []attempt
	}{
		{AuthTrust, []attempt{{testUser, "", ""}, {"anyone", "", ""}}},
		{AuthSCRAM, []attempt{
			{testUser, testPassword, ""},
			{testUser, "wrong", CodeInvalidPassword},
			{"ghost", "whatever", CodeInvalidPassword},
			{md5User, md5Password, CodeInvalidPassword}, // md5 secret cannot do SCRAM
		}},
		{AuthMD5, []attempt{
			{md5User, md5Password, ""},
			{md5User, "wrong", CodeInvalidPassword},
			{testUser, testPassword, ""}, // SCRAM secret: md5 upgrades to SCRAM as PostgreSQL does
			{"ghost", "x", CodeInvalidPassword},
		}},
		{AuthPassword, []attempt{
			{md5User, md5Password, ""},
			{testUser, testPassword, ""},
			{testUser, "nope", CodeInvalidPassword},
			{"ghost", "x", CodeInvalidPassword},
		}},
		{AuthReject, []attempt{{testUser, testPassword, CodeInvalidAuthorization}}},
	}
	for _, tc := range cases {
		t.Run(string(tc.method), func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.Auth = tc.method })
			var messages []string
			for _, a := range tc.attempts {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				c, err := pgx.Connect(ctx, ts.url(a.user, a.password, "main", ""))
				cancel()
				if a.wantCode == "" {
					if err != nil {
						t.Errorf("%s/%s: %v", a.user, a.password, err)
						continue
					}
					var one int32
					if err := c.QueryRow(context.Background(), "select 1").Scan(&one); err != nil {
						t.Errorf("query after login: %v", err)
					}
					c.Close(context.Background())
					continue
				}
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != a.wantCode || pe.Severity != "FATAL" {
					t.Errorf("%s/%s: want %s, got %v", a.user, a.password, a.wantCode, err)
					continue
				}
				messages = append(messages, strings.ReplaceAll(pe.Message, a.user, "USER"))
			}
			// Failures must not reveal whether the user exists.
			for _, m := range messages {
				if m != messages[0] {
					t.Errorf("failure messages differ: %q vs %q", m, messages[0])
				}
			}
		})
	}
}

func TestAuthFailureDelay(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM; c.AuthFailureDelay = 40 * time.Millisecond })
	var last time.Duration
	for i := 0; i < 3; i++ {
		start := time.Now()
		_, err := pgx.Connect(ctxT(t), ts.url(testUser, "wrong", "main", ""))
		if pgCode(err) != CodeInvalidPassword {
			t.Fatalf("attempt %d: %v", i, err)
		}
		last = time.Since(start)
	}
	// third failure waits base<<2 = 160ms
	if last < 150*time.Millisecond {
		t.Errorf("third failure answered after %v, want >= 160ms", last)
	}
	if _, err := pgx.Connect(ctxT(t), ts.url(testUser, testPassword, "main", "")); err != nil {
		t.Fatalf("good login after failures: %v", err)
	}
}

func TestHBARules(t *testing.T) {
	rules, err := ParseHBA(`
# type   db    user   address        method
hostssl  all   all    0.0.0.0/0      scram-sha-256
host     all   bob    127.0.0.1/32   md5
host     all   all    127.0.0.0/8    reject
`)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, func(c *Config) { c.HBA = rules; c.Auth = AuthTrust })
	if _, err := pgx.Connect(ctxT(t), ts.url(md5User, md5Password, "main", "")); err != nil {
		t.Errorf("bob via md5 rule: %v", err)
	}
	_, err = pgx.Connect(ctxT(t), ts.url(testUser, testPassword, "main", ""))
	if pgCode(err) != CodeInvalidAuthorization {
		t.Errorf("alice without TLS should hit reject: %v", err)
	}
	// PostgreSQL's message names the rule's match
	want := `pg_hba.conf rejects connection for host "127.0.0.1", user "` + testUser + `", database "main", no encryption`
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Message != want || pe.Severity != "FATAL" {
		t.Errorf("reject rule answered %v, want FATAL %s", err, want)
	}
	if !strings.Contains(ts.logs.String(), "authentication failed") {
		t.Error("failed login not logged")
	}
	hbaPath := filepath.Join(t.TempDir(), "hba.conf")
	os.WriteFile(hbaPath, []byte("host all all all reject\n"), 0o600)
	ts2 := startServer(t, func(c *Config) { c.HBAFile = hbaPath })
	if _, err := pgx.Connect(ctxT(t), ts2.url(testUser, testPassword, "main", "")); pgCode(err) != CodeInvalidAuthorization {
		t.Errorf("HBAFile reject rule: %v", err)
	}
	if _, err := NewServer(Config{Backend: NoSQLBackend{}, HBAFile: filepath.Join(t.TempDir(), "none")}); err == nil {
		t.Error("missing HBA file accepted")
	}
	if _, err := ParseHBA("host all all nonsense md5"); err == nil {
		t.Error("bad address accepted")
	}
}

func TestUsersFile(t *testing.T) {
	scram, err := HashSCRAM("pw")
	if err != nil {
		t.Fatal(err)
	}
	good := "# comment\n\nalice " + scram + "\nbob " + HashMD5("bob", "pw") + "\n"
	u, err := ParseUsers(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alice", "bob"} {
		s, ok := u.lookup(name)
		if !ok || !s.verifyCleartext(name, "pw") || s.verifyCleartext(name, "px") {
			t.Errorf("%s: secret does not verify", name)
		}
	}
	bad := []string{
		"alice",
		"alice plaintext",
		"alice md5xyz",
		"alice SCRAM-SHA-256$4096:c2FsdA==$AAAA:BBBB",
		"alice " + scram + "\nalice " + scram,
	}
	for _, b := range bad {
		_, err := ParseUsers(strings.NewReader(b))
		var fe *UsersFileError
		if !errors.As(err, &fe) {
			t.Errorf("%q: want UsersFileError, got %v", b, err)
		}
	}
}
