// Package pgtest starts a throwaway PostgreSQL 15 server for differential
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
//   - Nothing outside the temporary directory is touched; Stop kills only the
//     server process Start launched.
package pgtest
