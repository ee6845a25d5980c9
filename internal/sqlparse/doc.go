// Package sqlparse is the only package that links the PostgreSQL parser
// (github.com/pganalyze/pg_query_go/v6, cgo over libpg_query). Everything
// else reaches the grammar through it, so the cgo dependency stays in one
// place and can be swapped.
//
// Model: Parse turns SQL text into the PostgreSQL 17 raw parse tree
// (protobuf-shaped Go structs, re-exported here as type aliases); Deparse
// prints a tree back as SQL text (libpg_query's deparser);
// ParsePLpgSQL compiles a DO statement's PL/pgSQL body with PostgreSQL's
// PL/pgSQL grammar and returns libpg_query's JSON of it. Parse
// trees are cached per exact statement text in a bounded LRU, because ORMs
// and drivers send the same text over and over. The LRU is bounded by
// entries and by the summed text length, and text over 64 KiB stays out of
// it (a tree weighs ~25 bytes per byte of text, so a few huge IN lists
// would otherwise pin gigabytes): only the most recent such text is kept,
// for a few seconds after its last use, so the parses one statement's
// handling makes share one tree.
//
// Invariants:
//   - A returned tree is shared by every caller that parses the same text:
//     callers must treat it as read-only.
//   - A grammar error is a *SyntaxError (SQLSTATE 42601) carrying the
//     1-based character position PostgreSQL would report; errors are never
//     cached.
//   - No text reaches the C parser if it could nest deeper than its stack
//     or protobuf decoding allows: text longer than maxNesting bytes whose
//     sqllex.NestingBound exceeds maxNesting is refused with a
//     *StackDepthError (SQLSTATE 54001, PostgreSQL's "stack depth limit
//     exceeded" message and hint) before the parser runs. The bound is a
//     cheap upper estimate of the tree's depth in which wide shapes (long
//     VALUES, IN and OR lists, CASE arms) count once, so only genuinely deep
//     text is refused; FuzzParseSurvives and depth_test.go check the bound
//     covers every tree the parser builds.
//   - pggraph's words the grammar lacks are spliced before parsing
//     (GRAPH_TABLE) or, for GRANT/REVOKE … ON BRANCH b, rewritten to ON
//     DATABASE b only after the text failed to parse (branch_alias.go), so
//     valid SQL is never changed.
package sqlparse
