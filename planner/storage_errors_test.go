package planner

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/objstore"
)

// TestStorageFailures: with the store failing every write with a full
// disk or an I/O error, writes answer 53100 / 58030 with a message that
// names the operation and no internal path, reads keep being served, and
// once the store works again writes resume.
func TestStorageFailures(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	faulty := objstore.NewFaulty(objstore.NewMem())
	g, err := adapters.Open(ctx, faulty, adapters.Options{Create: true, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	ts := startServerOn(t, g)
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	if _, err := c.Exec(ctx, "CREATE TABLE t (id int8 PRIMARY KEY, v text)"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "INSERT INTO t VALUES (1, 'a')"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		errno error
		code  string
		msg   string
	}{
		{"disk_full", syscall.ENOSPC, "53100", "could not write to the data directory: No space left on device"},
		{"quota", syscall.EDQUOT, "53100", "could not write to the data directory: Disk quota exceeded"},
		{"io_error", syscall.EIO, "58030", "could not write to the data directory: Input/output error"},
	}
	next := int64(2)
	// A table version is materialized on its first read (a write);
	// reading before the store fails keeps the reads below write-free.
	// (A version not yet materialized cannot be read while the disk is
	// full: that read answers 53100 too.)
	materialize := func() {
		var n int64
		if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
	}
	materialize()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			faulty.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1, Mode: objstore.FailPersistent, Err: tc.errno})
			for _, stmt := range []string{
				"INSERT INTO t VALUES (100, 'x')",
				"CREATE TABLE t2 (id int8 PRIMARY KEY)",
				"CALL graph.create_branch('b_" + tc.name + "')",
			} {
				_, err := c.Exec(ctx, stmt)
				var pe *pgconn.PgError
				if !errors.As(err, &pe) || pe.Code != tc.code || pe.Message != tc.msg || strings.Contains(pe.Detail, "/") {
					t.Fatalf("%s: got %v (detail %q)", stmt, err, detailOf(err))
				}
			}
			var n int64
			if err := c.QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != next-1 {
				t.Fatalf("read while writes fail: %d, %v", n, err)
			}
			faulty.SetRule(nil)
			if _, err := c.Exec(ctx, "INSERT INTO t VALUES ($1, 'b')", next); err != nil {
				t.Fatalf("write after the store recovered: %v", err)
			}
			next++
			materialize()
		})
	}
}

func detailOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Detail
	}
	return ""
}
