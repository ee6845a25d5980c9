package wire

import (
	"context"
	"crypto/tls"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/lib/pq"
)

func openPQ(t *testing.T, ts *testServer, sslmode string) *sql.DB {
	t.Helper()
	dsn := fmt.Sprintf("host=%s port=%s user=%s password='%s' dbname=main sslmode=%s connect_timeout=10", ts.host, ts.port, testUser, testPassword, sslmode)
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestLibPQ(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsOn), func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.Auth = AuthSCRAM; c.TLSSelfSigned = tlsOn; c.RequireTLS = tlsOn })
			mode := "disable"
			if tlsOn {
				mode = "require"
			}
			db := openPQ(t, ts, mode)
			ctx := ctxT(t)
			var one int
			if err := db.QueryRowContext(ctx, "select 1").Scan(&one); err != nil || one != 1 {
				t.Fatalf("select 1: %d %v", one, err)
			}
			var a int64
			var b string
			if err := db.QueryRowContext(ctx, "select echo_int($1, $2)", 11, "pq").Scan(&a, &b); err != nil || a != 11 || b != "pq" {
				t.Fatalf("params: %d %q %v", a, b, err)
			}
			rows, err := db.QueryContext(ctx, "select gen(4)")
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rows.Next() {
				n++
			}
			rows.Close()
			if n != 4 {
				t.Fatalf("rows %d", n)
			}
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "insert into t values ($1)", "pq"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if rows := ts.backend.rows(); len(rows) != 1 {
				t.Fatalf("rows after commit %v", rows)
			}
			_, err = db.ExecContext(ctx, "select fail()")
			var pe *pq.Error
			if !errors.As(err, &pe) || pe.Code != "42P01" {
				t.Fatalf("error: %v", err)
			}
			// COPY through lib/pq's CopyIn helper (text format).
			tx, _ = db.BeginTx(ctx, nil)
			stmt, err := tx.Prepare("COPY t (a, b) FROM STDIN")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 50; i++ {
				if _, err := stmt.Exec(i, "tab\there"); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := stmt.Exec(); err != nil {
				t.Fatal(err)
			}
			stmt.Close()
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			got := ts.backend.rows()
			if len(got) != 51 || got[50][1] != "tab\there" {
				t.Fatalf("copy rows %d last %q", len(got), got[len(got)-1])
			}
			// cancel through context
			qctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
			_, err = db.ExecContext(qctx, "select sleep(10000)")
			cancel()
			if !errors.As(err, &pe) || pe.Code != CodeQueryCanceled {
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("cancel: %v", err)
				}
			}
		})
	}
}

func TestTLS(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.TLSSelfSigned = true; c.RequireTLS = true; c.Auth = AuthSCRAM })
	c := ts.pgx(t, "sslmode=require")
	if !c.PgConn().Conn().(interface{ ConnectionState() tls.ConnectionState }).ConnectionState().HandshakeComplete {
		t.Fatal("pgx connection is not TLS")
	}
	if _, err := c.Exec(ctxT(t), "select 1"); err != nil {
		t.Fatal(err)
	}
	// plaintext refused when TLS is required
	_, err := openPQ(t, ts, "disable").Exec("select 1")
	var pe *pq.Error
	if !errors.As(err, &pe) || pe.Code != CodeInvalidAuthorization {
		t.Fatalf("plaintext: %v", err)
	}
}

func TestDirectTLS(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.TLSSelfSigned = true; c.Auth = AuthSCRAM })
	for _, neg := range []string{"direct", "postgres"} {
		c, err := pgx.Connect(ctxT(t), ts.url(testUser, testPassword, "main", "sslmode=require&sslnegotiation="+neg))
		if err != nil {
			t.Fatalf("%s: %v", neg, err)
		}
		if !c.PgConn().Conn().(interface{ ConnectionState() tls.ConnectionState }).ConnectionState().HandshakeComplete {
			t.Fatalf("%s: not TLS", neg)
		}
		c.Close(context.Background())
	}
	// direct TLS without the postgresql ALPN protocol is refused
	nc, err := tls.Dial("tcp", ts.addr, &tls.Config{InsecureSkipVerify: true})
	if err == nil {
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		var b [1]byte
		if _, err := nc.Read(b[:]); err == nil {
			t.Fatal("direct TLS without ALPN was served")
		}
		nc.Close()
	}
}
