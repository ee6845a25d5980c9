// Package exec is pggraph's vectorized SQL executor with PostgreSQL
// semantics. See the package documentation below for the supported SQL.
package exec
