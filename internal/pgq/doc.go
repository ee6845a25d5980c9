// Package pgq reads SQL/PGQ graph pattern queries (GRAPH_TABLE … MATCH …
// COLUMNS …), which the PostgreSQL 17 grammar of internal/sqlparse lacks,
// and rewrites them into plain SQL over a property graph's tables.
//
// Model: Splice runs before the SQL parser. It lexes the statement with
// PostgreSQL's token boundaries (string literals, quoted identifiers,
// dollar quoting and nested comments are single tokens or skipped), finds
// each GRAPH_TABLE ( name MATCH … ) clause, checks its syntax (Parse) and
// replaces it by pg_catalog.pggraph_graph_table('<clause text>'), a table
// function call the binder expands (exec/graph_table.go). Rewrite turns a
// parsed clause and a Graph (element tables with labels, properties, keys
// and edge endpoints) into a SELECT: one UNION ALL arm per assignment of
// element tables to the pattern's variables that the label expressions
// allow and the edges connect, each arm the pattern's joins in path order;
// quantified edges become recursive CTEs (carrying the walk's vertices or
// edges as an array under ACYCLIC, SIMPLE and TRAIL; filtered per
// endpoint pair for ANY SHORTEST, ALL SHORTEST, ANY k, SHORTEST k; with
// the vertex table's number beside the key when walks cross vertex
// tables, quantified_walks.go), and
// vertices a path only passes through are not joined where the edges
// guarantee them (Endpoint.Total).
//
// Property graph DDL (ddl.go): Splice also checks CREATE [OR REPLACE] /
// ALTER / DROP PROPERTY GRAPH with ParseGraphDDL and replaces each by
// DO LANGUAGE pggraph_property_graph '<text>', which planner/ddl plans.
//
// Invariants:
//   - Text that is not a GRAPH_TABLE clause is never changed, and a clause
//     is recognised only as GRAPH_TABLE ( name [. name] MATCH.
//   - Expressions are copied from the source by span; only property
//     references var.prop are replaced (by the alias's column, or a typed
//     NULL where the element table lacks the property), and the functions
//     of elements and paths: LABELS(v) and PROPERTY_NAMES(v) by the text[]
//     constant of the arm's element table (element_functions.go),
//     path_length(p) by the sum of the path's edge counts.
//   - Every error is an *Error with PostgreSQL 19's SQLSTATE where it has
//     one (42601 syntax and unknown property, 42704 unknown label), 0A000
//     for what is not supported, 54000 beyond maxCombinations.
//
// docs/sql.md documents the dialect.
package pgq
