// Package adapters is the closed registry of graph-visible writers and
// the Go API the SQL layer writes through.
//
// Registry (registry.go): Mutation (INSERT/UPDATE/DELETE/MERGE/COPY
// loads: one staged Lance transaction per touched table), Optimize
// (compaction, below) and SchemaApply
// (CREATE/DROP TABLE, optionally with the new tables' rows in the same
// graph commit: a create is a staged Overwrite at version 0 of a fresh
// dataset). All three declare RollBackArmedForwardConfirmed. No other code
// stages or commits a Lance transaction on a graph table:
// TestConformanceOnlyAdaptersCommitGraphTables walks the module's source
// and pins the exact Lance write calls per file.
//
// API (graph.go): Open a root (Create initializes), Head a branch, and
// Write(ctx, WriteOptions, StageFunc). The StageFunc fills a Stage
// against the attempt's base snapshot — Insert (Arrow record readers,
// streamed in bounded memory: data files are cut every
// WriteOptions.MaxRowsPerFile rows (default lance.DefaultMaxRowsPerFile),
// so memory is one data file and there is no per-commit row cap;
// TestLargeCommitStreamsIntoManyFragments, bench-graph reports peak heap), Delete (row
// addresses in the base version; UPDATE = Delete + Insert), Probe (a
// table a validator read joins the read set), CreateTable, DropTable —
// and is re-run from a fresh base on every transparent re-prepare, so it
// must recompute rather than replay stale addresses. Strict writes
// (explicit transactions) pin Base and get 40001 on any read-set change;
// Txn (Begin … Commit) packages that: it pins a snapshot, collects
// inserts, deletes, probes and DDL, and commits them as one graph commit.
// Branches: CreateBranch / DeleteBranch (control operations behind the
// barrier and the exclusive branch gate); writes take WriteOptions.Branch.
//
// Optimize (optimize.go; registry kind "optimize"): Graph.Optimize /
// OptimizeWith compact the small fragments of one or more tables of a
// branch in one graph commit — per table one staged Lance Rewrite
// (lance.StageCompaction: adjacent fragments below
// TargetRowsPerFragment rows or carrying deletions are rewritten into
// fewer files, deletion vectors materialized away), through the same
// protocol as every write: sidecar before the first effect, exact commit
// at pin+1, manifest CAS, first touch on a branch. Unlike Mutation it
// stages in Apply, under the held table gate after the sidecar is
// durable (as first touch does): staged in Prepare, a compaction (slower
// than a one-row write) would lose its read set to every concurrent
// writer of the table and never land; under the gate they wait for it
// (and then re-prepare, their base table having moved). It is
// content-preserving, and its recovery is "complete or leave": a
// confirmed intent is rolled forward (new layout), an armed one is left
// at the old layout (restored to the pin so pin == HEAD) — same rows
// either way (crash sweep shape "optimize" checks rows and which layout
// is visible). Row addresses change, so a concurrent non-strict write
// re-prepares (its base table moved) and a strict transaction that read
// the table gets 40001. Automatic trigger: Options.AutoOptimizeFragments
// > 0 makes a write that leaves a table it wrote with that many
// fragments start an Optimize of those tables in a background goroutine
// after the write is acknowledged (never on the committing caller's
// path; one run per branch at a time; Close waits for it). Under a
// steady stream of writers a run may lose its read set five times and
// give up with 40001, changing nothing; the next crossing retries
// (AutoOptimizeStats counts runs and failures).
//
// Views for the SQL layer: Commits (graph.commits), Audit (graph.audit),
// Pending (graph.recovery), Branches (graph.branches); as-of reads use
// graph.Root.Resolve.
//
// Tests: the crash sweep (crash_test.go) prints its cell count and every
// recovery decision and class reached (go test -v -run TestCrashSweep);
// -crash.long runs every second-crash ordinal and every fault mode on
// the local backend too (nightly). Concurrency: goroutines
// (concurrency_test.go), writer processes and a SIGKILL loop
// (process_test.go), all checked by one history checker.
//
// Invariants: Prepare moves no HEAD (it stages reclaimable files with
// pre-minted UUIDs); Apply commits every staged transaction with
// CommitExact (zero transparent retries) and records the exact post-state
// (version pin+1, row count); a lost slot with no landed effect is
// reported as protocol.ErrNoEffect.
package adapters
