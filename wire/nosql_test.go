package wire

import (
	"context"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/sirupsen/logrus"
)

// TestNoSQLBackend checks what pgproxy serve answers before the SQL layer:
// session and transaction commands work, everything else is 0A000.
func TestNoSQLBackend(t *testing.T) {
	log := logrus.New()
	log.Out = &syncBuffer{}
	srv, err := NewServer(Config{Backend: NoSQLBackend{}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(context.Background(), ln)
	defer srv.Shutdown(context.Background())
	ctx := ctxT(t)
	c, err := pgx.Connect(ctx, "postgres://u@"+ln.Addr().String()+"/dev?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, stmt := range []string{"begin", "set local graph.as_of = 'v3'", "savepoint a", "rollback to a", "commit", "set search_path = x", "reset all", "discard all"} {
		if _, err := c.Exec(ctx, stmt); err != nil {
			t.Errorf("%s: %v", stmt, err)
		}
	}
	var branch string
	if err := c.QueryRow(ctx, "show graph.branch").Scan(&branch); err != nil || branch != "dev" {
		t.Errorf("show graph.branch = %q %v (database name selects the branch)", branch, err)
	}
	for _, stmt := range []string{"select 1", "insert into t values (1)", "copy t from stdin"} {
		_, err := c.Exec(ctx, stmt)
		if pgCode(err) != CodeFeatureNotSupported {
			t.Errorf("%s: want 0A000, got %v", stmt, err)
		}
	}
	if _, err := c.Exec(ctx, "select 1", pgx.QueryExecModeSimpleProtocol); pgCode(err) != CodeFeatureNotSupported {
		t.Errorf("simple protocol: %v", err)
	}
}

func TestTLSFromFiles(t *testing.T) {
	cert, err := SelfSignedCertificate("localhost")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath := filepath.Join(dir, "server.crt"), filepath.Join(dir, "server.key")
	keyDER, err := x509.MarshalECPrivateKey(cert.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o600)
	os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
	ts := startServer(t, func(c *Config) { c.TLSCertFile, c.TLSKeyFile = certPath, keyPath })
	// verify-full against the written certificate as root
	dsn := "host=" + ts.host + " port=" + ts.port + " user=" + testUser + " dbname=main sslmode=verify-full sslrootcert=" + certPath
	c, err := pgx.Connect(ctxT(t), dsn)
	if err != nil {
		t.Fatalf("verify-full: %v", err)
	}
	c.Close(context.Background())
	// a client trusting another root must refuse the server
	other, _ := SelfSignedCertificate("localhost")
	otherPath := filepath.Join(dir, "other.crt")
	os.WriteFile(otherPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: other.Certificate[0]}), 0o600)
	if _, err := pgx.Connect(ctxT(t), strings.Replace(dsn, certPath, otherPath, 1)); err == nil {
		t.Fatal("connection verified against the wrong root")
	}
	if _, err := NewServer(Config{Backend: NoSQLBackend{}, TLSCertFile: filepath.Join(dir, "missing")}); err == nil {
		t.Error("missing certificate accepted")
	}
}
