package main

import (
	"context"
	"fmt"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// durablePostgres is the sql suite's PostgreSQL 15: a throwaway cluster
// with PostgreSQL's durable defaults (fsync, synchronous_commit and
// full_page_writes on), which the test clusters turn off and a running
// server cannot turn back on. A commit-latency comparison needs both
// servers to acknowledge only what is on disk, so the cluster lives
// under the bench --dir, on the same filesystem as pgproxy's root (or in
// the temporary directory when the postgres OS user cannot reach --dir).
type durablePostgres struct {
	srv *pgtest.Server
}

func (p *durablePostgres) connString() string { return p.srv.ConnString("postgres") }

func startDurablePostgres(ctx context.Context, dir string) (*durablePostgres, error) {
	srv, err := pgtest.StartWith(ctx, pgtest.Options{Durable: true, Parent: dir,
		SharedBuffers: "256MB", MaxConnections: 100})
	if err != nil {
		return nil, fmt.Errorf("bench sql: %w", err)
	}
	return &durablePostgres{srv: srv}, nil
}

// stop shuts the cluster down (fast shutdown, then kill) and removes it.
func (p *durablePostgres) stop() { p.srv.Stop() }
