// Package console is pgproxy's web console (`pgproxy serve
// --http-listen`): read-only pages showing the commit graph of all
// branches, each commit's changes, the branches with their heads and how
// far they are ahead of and behind main, the tables with their storage
// layout and a picture of the graph schema, running sessions with recent
// slow statements, and recovery intents with the last cleanup.
//
// Model: the console is a SQL client of its own server. Each page request
// logs in with the browser's HTTP Basic credentials over an in-process
// connection (PipeListener) that reports the browser's address, so the
// same pg_hba rules, passwords, failed-login limiter, branch restrictions
// and privileges decide what it may see as for any SQL client; it has no
// authentication or authorization of its own. Sessions are opened with
// default_transaction_read_only, and the console issues only reads: it
// cannot change the graph. Pages read the graph views (graph.commits,
// graph.branches, graph.tables, graph.table_storage, graph.recovery,
// graph.audit, graph.diff_summary) and the catalogs; only the slow
// statements and the last cleanup come from the process itself
// (observe), and they carry no statement text or values.
//
// Everything is rendered on the server: HTML templates and SVG drawings
// embedded in the binary, one stylesheet, no script and no outside
// origin (the Content-Security-Policy forbids both).
package console
