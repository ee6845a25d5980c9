// Package regress measures how much of PostgreSQL's own regression SQL
// pgproxy answers exactly as PostgreSQL 15 does, in the terms
// pg_regress uses: the text psql prints.
//
// Split (split.go) cuts a psql script into units with psql's lexical
// rules (quotes, comments, parentheses, BEGIN ATOMIC bodies,
// meta-commands, COPY FROM STDIN data). Script (compare.go) runs the
// units through one psql session with a marker line echoed after each, so
// the combined output of a PostgreSQL run and of a pgproxy run can be cut
// into the same pieces; Compare counts the statements whose pieces are
// identical. The command in share/ runs every script of a directory on
// both servers (`make regress-share`, docs/sql.md) and prints the share
// per script and in total.
//
// Invariants:
//   - A unit is counted when it is an SQL statement or a meta-command that
//     prints something on PostgreSQL; the setup script's units run first
//     and are never counted.
//   - A pgproxy run that stops early (timeout, lost connection) counts
//     every unit after its last marker as different: nothing is dropped
//     from the denominator.
//   - The regression scripts are not vendored: they are read from the
//     directory given (libpg_query's test/sql/postgres_regress).
package regress
