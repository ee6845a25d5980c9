#!/bin/bash
# Regenerates aliases.go from the pg_query_go version in go.mod.
cd "$(dirname "$0")"
set -e
P=$(go env GOMODCACHE)/github.com/pganalyze/pg_query_go/v6@$(go list -m -f '{{.Version}}' github.com/pganalyze/pg_query_go/v6)/pg_query.pb.go
{
echo '// Code generated from the exported names of github.com/pganalyze/pg_query_go/v6 (pg_query.pb.go); DO NOT EDIT.'
echo '// Regenerate with the command in gen_aliases.sh.'
echo
echo 'package sqlparse'
echo
echo 'import pg_query "github.com/pganalyze/pg_query_go/v6"'
echo
echo '// Parse tree types.'
echo 'type ('
grep -oE '^type [A-Z][A-Za-z0-9_]* ' $P | awk '{print "\t"$2" = pg_query."$2}' | sort -u
echo ')'
echo
echo '// Enum values of the parse tree.'
echo 'const ('
grep -oE $'^\t[A-Z][A-Za-z0-9_]* +[A-Z][A-Za-z0-9_]* = ' $P | awk '{print "\t"$1" = pg_query."$1}' | sort -u
echo ')'
} > aliases.go
gofmt -w aliases.go
