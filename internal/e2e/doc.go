// Package e2e tests pgproxy the way a user meets it: a real `pgproxy
// serve` process on a fresh data directory, driven by real clients —
// psql scripts whose whole transcript is compared with a committed
// expected file, pgx, node-postgres, psycopg2 with SQLAlchemy Core,
// pgjdbc, knex migrations — and the README's five-minute tour, run
// verbatim.
//
// Model:
//   - TestMain builds cmd/pgproxy once per run with the flags of the test
//     binary itself (-race, -tags failpoints) so the server under test is
//     checked by the race detector too.
//   - Every test starts its own server on 127.0.0.1:0 and a temporary
//     root; nothing is shared between tests, and a server is stopped with
//     SIGINT as a user would, after which its exit status and log must be
//     clean (no panic, exit 0).
//   - psql scripts live in testdata/sql/graph/*.sql at the repository
//     root; each runs with ON_ERROR_STOP off and VERBOSITY verbose, so the
//     transcript records every SQLSTATE. `go test ./internal/e2e -update`
//     rewrites the expected *.out files; a reviewer reads the diff.
//
// Invariants:
//   - A missing client (psql, node, python modules, java, npm packages)
//     fails the test with the install command; nothing is skipped. .ci/run
//     and `make deps` install them all.
//   - Output that varies between runs (commit ids, timestamps, ports) is
//     never printed by a script: scripts capture such values with \gset
//     and only print what is stable.
package e2e
