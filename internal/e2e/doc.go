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
//     clean (no panic, no data race, exit 0). Tests that need two
//     processes on one root (restart, cross-process conflicts) start them
//     on the same directory.
//   - psql scripts live in testdata/sql/graph/*.sql at the repository
//     root (fragments they include with \ir are *.psql); each runs with
//     ON_ERROR_STOP off and VERBOSITY verbose, so the transcript records
//     every SQLSTATE. `go test ./internal/e2e -run TestPsqlScripts -update`
//     rewrites the expected *.out files; a reviewer reads the diff.
//   - PostgreSQL is the reference: a script whose first line says
//     "differential: postgresql" also runs on a PostgreSQL 15 started for
//     the run (internal/pgtest) and the two transcripts must agree, graph
//     clauses and error field lines aside; the client scripts run against
//     PostgreSQL too (E2E_TARGET=postgres skips their graph-only steps).
//   - psql_describe_test.go runs every psql 15 describe command (\d, \dt+,
//     \df, \dC, \dconfig, ...) against pgproxy and PostgreSQL 15 over
//     testdata/describe/schema.sql and compares what psql prints, with
//     its allowed differences listed and explained in the test.
//   - Dump and restore (pg_dump_test.go, pg_restore_test.go): pgproxy
//     dumps (plain and -Fc) restore into a fresh pgproxy with the same
//     rows, graph roles and \d+, and into PostgreSQL 15; PostgreSQL 15
//     dumps restore into pgproxy with PostgreSQL's rows and \d+;
//     pg_dumpall's globals and schema.
//   - Driver value round trips (drivers_test.go): every value of
//     testdata/types/values.tsv through psycopg2, psycopg 3, node-postgres,
//     postgres.js, pgjdbc (testdata/clients/types_roundtrip*, JdbcTypes)
//     and lib/pq, answers compared with PostgreSQL 15's line by line;
//     bind parameters of every values.tsv type (types_test.go) and of an
//     enum and its array (enum_bind_test.go) through pgx's pgconn in text
//     and binary, compared byte for byte.
//   - Monitoring catalogs (monitoring_test.go): pg_stat_activity,
//     pg_locks and the statistics views for the same two sessions on
//     pgproxy and PostgreSQL 15.
//   - ORM and migration tools (orm_flow_test.go runs one script on a
//     fresh PostgreSQL 15 database and a fresh pgproxy and compares the
//     transcripts line by line): GORM and goose (gorm_test.go; their own
//     Go module in testdata/gorm, so pggraph's go.mod does not depend on
//     them), Sequelize and TypeORM (orm_node_test.go; testdata/orm,
//     pinned by its lockfile) and node-pg-migrate (same module), Alembic with the SQLAlchemy ORM
//     (alembic_test.go; testdata/alembic, Debian's python3-alembic),
//     Django's migrations, introspection, inspectdb and ORM
//     (django_test.go; testdata/django, Debian's python3-django).
//   - Tool catalog queries (tool_metadata_test.go): what DBeaver,
//     Metabase, DataGrip, pgAdmin 4, Grafana and Superset send, from
//     testdata/clients/tool_*_queries.sql, answered by pgproxy and
//     PostgreSQL 15 over the same schema and compared (columns always,
//     rows where marked).
//
// Invariants:
//   - A missing client (psql, node, python modules, java, npm packages)
//     fails the test with the install command; nothing is skipped. .ci/run
//     and `make deps` install them all.
//   - Output that varies between runs (commit ids, timestamps, ports) is
//     never printed by a script: scripts capture such values with \gset
//     and only print what is stable.
package e2e
