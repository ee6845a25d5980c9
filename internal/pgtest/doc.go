// Package pgtest holds what the tests share for talking to PostgreSQL 15
// and its psql: the throwaway server (server.go), one cluster per test
// binary (shared.go: Shared, Main), running psql (psql.go: PsqlPath,
// Psql.Run) and the -short switch (Short, SkipShort) that make
// test-short uses to leave out every test that needs PostgreSQL, psql or
// another external client.
//
// Start gives a throwaway PostgreSQL 15 server for differential
// tests: a fresh cluster in a temporary directory (initdb, trust auth,
// UTF8, C locale, TimeZone UTC), listening on a free loopback port and a
// private unix socket directory, stopped and removed by Stop. The test
// cluster runs with durability off; StartWith(Options{Durable: true, …})
// keeps PostgreSQL's durable defaults for benchmarks that compare commit
// latency, and places the cluster under a chosen parent directory.
//
// Invariants:
//   - A missing PostgreSQL installation is an error that names the apt
//     packages to install (ErrNotInstalled); tests must fail on it, never
//     skip.
//   - initdb and postgres refuse to run as root, so when the test process is
//     root they run with the credentials of the "postgres" OS user, which owns
//     the data directory.
//   - Shared and PsqlPath fail the test when PostgreSQL or psql is
//     missing, and skip it only in -short mode.
//   - pgtest does not import testing (helpers take the TB interface), so
//     the pgproxy binary, whose benchmarks start PostgreSQL through
//     Start, does not link the test framework.
//   - Nothing outside the temporary directory is touched; Stop kills only the
//     server process Start launched.
package pgtest
