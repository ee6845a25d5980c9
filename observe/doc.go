// Package observe is the process's observability surface: Prometheus
// metrics (served by `pgproxy serve --metrics-listen`) and the structured
// event log (log/slog) the serving packages write to.
//
// Instruments are package-level so that the packages that own an event
// (wire for connections and statements, adapters for commits, objstore
// for storage requests) record it with one call and no plumbing; the
// registry a server exposes is built per serve (NewRegistry) and adds the
// sampled sources of that server (coordinator counters, recovery
// decisions, memory, open transactions) as collectors read at scrape
// time, so nothing is sampled between scrapes.
//
// Naming follows the Prometheus conventions: every metric starts with
// pggraph_, counters end in _total, durations are _seconds and sizes
// _bytes (base units), and labels have small fixed value sets (statement
// kinds, SQLSTATE classes, storage operations) so that no client input
// becomes a label value. docs/operations.md lists every metric and what
// to alert on.
//
// The web console's "recent slow statements" and "last cleanup" are kept
// here too (recent.go): bounded, in memory, with the same fields as the
// log lines.
//
// Logs never carry data values: statement text, parameters, row values
// and error details stay out of every line this package writes; commits
// are described by branch, commit id, table names and counts.
package observe
