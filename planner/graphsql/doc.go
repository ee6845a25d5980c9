// Package graphsql is the SQL face of the graph's versioning (docs/architecture.md,
// "SQL surface"): the views of schema graph, SET graph.as_of resolution, and the
// graph procedures. The planner session wires it in; this package owns
// no session state.
//
// Views (views.go, viewsource.go, catalog.go). Tables / TablesAsOf return
// exec relations graph.commits, graph.branches, graph.tables,
// graph.recovery and graph.audit with PostgreSQL-typed columns (text,
// int8, bool, timestamptz); WithViews adds them to a session catalog as
// schema graph (not on the search path). Building them does no I/O: every
// scan reads the current state. graph.commits streams the lineage of the
// branch head newest first in growing pages (4, 16, 64, 256, 1024
// rows), one manifest read per commit, so a LIMIT stops the walk after
// O(rows requested) reads, and the executor's hints on manifest_version
// start the walk at the upper bound (one lookup) and stop it at the
// lower one. The lineage crosses fork points (lineage.go):
// a branch forked from P at version F shows its own commits F+1…head,
// then P's history from F down, each labelled with the branch that
// published it.
//
// As-of (asof.go). ResolveAsOf reads a manifest version (digits), a
// commit id (a ULID) or a PostgreSQL timestamptz (through the executor's
// input parser, zone-less text in the session TimeZone) and returns the
// read-only snapshot of the branch's history it names. Unknown commit,
// version beyond the head or reclaimed, timestamp before the first
// commit: 22023 invalid_parameter_value (a bad value for a setting, as
// PostgreSQL reports for SET; chosen over 42704 because the value, not an
// object name, is wrong). Text that is none of the three: 22007.
//
// Procedures (call.go, eval.go, funcs.go, argscan.go).
// Parse recognizes, from the pg_query parse tree, CALL graph.f(…),
// SELECT graph.f(…) [AS c] and SELECT {* | t.* | c | t.c} FROM
// graph.f(…) [AS t[(c)]]; anything else around a graph call is 0A000.
// graph.at, graph.diff, graph.diff_summary, graph.schema_diff and
// graph.changes are not
// procedures but relations the executor reads (RelationFunctions;
// planner/relfuncs.go). graph.conflicts (conflicts.go) is empty here; the
// session's view of a transaction with a staged merge lists its
// conflicts (planner/merge_stage.go).
// Argument texts are cut from the statement at the call's parse
// location and evaluated by the executor as `SELECT CAST((arg) AS text)`,
// so literals, casts, $n parameters and expressions such as now() all
// work; positional and named (name => value) notation are accepted.
// Results: CALL → tag CALL, no rows; the SELECT forms → one row with one
// column named after the function (or its alias). A graph procedure
// nested in a SELECT's target list (SELECT length(graph.merge('b'))) is
// 0A000 too; elsewhere (WHERE, VALUES, …) it is left to the executor,
// which answers 42883 — walking every statement's whole tree would tax
// every query.
//
//	graph.create_branch(name [, from [, at]])  → name        (from: session branch)
//	graph.delete_branch(name)                  → name
//	graph.merge(from [, into])                 → commit id, NULL when nothing to merge (into: session branch)
//	graph.optimize([table])                    → commit id, NULL when nothing to compact
//	graph.cleanup()                            → summary text (adapters.Graph.Cleanup, 24h grace)
//	graph.recover()                            → int8 intents resolved
//
// Errors: 42883 unknown graph.f (PostgreSQL's "function … does not exist"
// with a hint naming the procedures), 42601 wrong number of arguments,
// 22004 a required argument is NULL, 3D000 unknown branch, 42710 branch
// exists, 42602 invalid or reserved branch name, 2BP01 deleting a branch
// others were forked from, 55006 deleting the session's own branch, 42P01
// optimize of a missing table, 22023 merging a branch into itself, 40001
// a merge conflict (the write path's, naming the tables). create_branch
// at an older commit forks the __manifest at that version
// (adapters.Graph.CreateBranchAt). graph.merge(…, strategy => 'stop')
// is the one call a transaction block admits (and the only place it is
// admitted: 25P01 elsewhere): it stages the merge in the transaction
// through Env.StageMerge. Every other procedure is refused
// inside an explicit transaction block with 25001 (as PostgreSQL refuses
// CREATE DATABASE): branch create/delete, cleanup and recover are
// control operations outside the graph-commit model, and merge and
// optimize publish their own graph commit, which could neither join nor
// roll back with the transaction's. In a read-only session (Env.ReadOnly:
// SET graph.as_of) every procedure answers 25006: each writes something.
//
// Invariants:
//   - Every error is a *wire.Error with a SQLSTATE; write-path errors
//     keep their protocol SQLSTATE (40001, 55P03, …) and are the Cause.
//   - A view scan returns the executor's emit error unchanged, so the
//     executor's early stop (LIMIT) ends the walk.
//   - Snapshots returned are copies labelled with the branch and
//     incarnation whose chain holds them.
//   - Views and as-of resolution only read. Procedures write only
//     through the write path (adapters.Graph, recovery.Manager).
package graphsql
