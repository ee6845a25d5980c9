// Package adapters is the closed registry of graph-visible writers and
// the Go API the SQL layer writes through.
//
// Registry (registry.go): Mutation (INSERT/UPDATE/DELETE/MERGE: one
// staged Lance transaction per touched table), Load (COPY FROM, below),
// Optimize (compaction, below), SchemaApply (DDL, below) and
// BranchMerge (merge.go, Graph.Merge: graph.merge replays a source
// branch's row deltas as staged transactions and adopts its catalog
// changes in one graph commit; rules in merge.go's header; rows merge
// per primary key and per column, merge_columns.go, or by value in a
// table without a primary key, merge_keyless.go). All declare
// RollBackArmedForwardConfirmed. Cleanup (cleanup.go, Graph.Cleanup) is
// a control operation, not a writer: it reclaims files no Lance version
// references and unregistered datasets, behind the recovery barrier. No
// other code stages or commits a Lance transaction on a graph table:
// TestConformanceOnlyAdaptersCommitGraphTables walks the module's source
// and pins the exact Lance write calls per file.
//
// API (graph.go): Open a root (Create initializes), Head a branch, and
// Write(ctx, WriteOptions, StageFunc). The StageFunc fills a Stage
// against the attempt's base snapshot — Insert (Arrow record readers,
// streamed in bounded memory: data files are cut every
// WriteOptions.MaxRowsPerFile rows (default lance.DefaultMaxRowsPerFile)
// or MaxBytesPerFile bytes, so memory is one data file and there is no
// per-commit row cap; TestLargeCommitStreamsIntoManyFragments,
// bench-graph reports peak heap), Delete (row addresses in the base
// version; UPDATE = Delete + Insert), Probe (a table a validator read
// joins the read set), Load, and the DDL methods — and is re-run from a
// fresh base on every transparent re-prepare, so it must recompute
// rather than replay stale addresses. Strict writes (explicit
// transactions) pin Base and get 40001 on any read-set change; Txn
// (Begin … Commit) packages that: it pins a snapshot, collects inserts,
// deletes, probes and DDL, and commits them as one graph commit.
// Branches: CreateBranch / CreateBranchAt (fork at an older snapshot,
// branch_at.go) / DeleteBranch (control operations behind the barrier
// and the exclusive branch gate); writes take WriteOptions.Branch.
//
// Names (stage.go). A stage resolves table names in call order against
// the base catalog as changed by its earlier calls: DROP t; CREATE t …
// in one transaction, CREATE x … DROP x (nothing is created), RENAME
// then use of the new name, TRUNCATE then INSERT. Unknown names are
// 42P01, taken names 42P07, malformed definitions 42P16.
//
// SchemaApply (schema.go; kind "schema_apply", chosen whenever a stage
// changes the catalog). Physical model: a table incarnation is one Lance
// dataset whose schema is its columns' names and logical types, every
// field nullable; NOT NULL, defaults, constraints, comments (Def.Extra,
// owned by planner/ddl) and the table's name and kind are catalog-only.
//   - CreateTable: a staged Overwrite at version 0 of a fresh dataset
//     (effect "create"), registration of a new id/incarnation with fresh
//     column ids, and the stage's rows for it in the same first version.
//     Off main the table id is random (graph.BranchID) and the OID the
//     counter value, kept in the entry, so tables two branches create
//     stay distinct when they merge (merge_oids.go re-numbers an OID the
//     merge target already uses).
//   - ReplaceTable (ALTER rewrites: ADD/DROP/RENAME COLUMN, type
//     change): a new incarnation of the same table id — a fresh dataset
//     created like a table, rows streamed in — registered, and the old
//     incarnation tombstoned, in one graph commit. Surviving columns keep
//     their ids; new ones get fresh ids.
//   - Truncate: ReplaceTable with the same definition and no rows (a new
//     relfilenode, in PostgreSQL terms): O(1) whatever the table's size,
//     no fork on a branch, old rows still readable by time travel.
//   - Redefine / SetKind: a ManifestDelta.Redefinitions entry (name,
//     kind, definition; the data pointer kept from the head) and the
//     table as a read-set member; no Lance effect, so a stage with only
//     catalog-only changes and drops publishes authority-first (no
//     sidecar: nothing durable precedes the CAS).
//   - DropTable: a tombstone (the dataset stays for time travel).
//
// Schema changes on a graph branch touch only the branch's manifest:
// created and replaced incarnations are fresh datasets only that branch
// references (later writes to them on the branch fork them lazily like
// any inherited table), so ALTER/TRUNCATE/DROP work while branches
// exist (TestSchemaChangesOnBranch). Recovery is the generic one: an
// armed intent leaves its created datasets as unregistered garbage
// (ids never reused: the rollback commit moves the allocator), a
// confirmed one is rolled forward.
//
// Load (load.go; kind "load"): Stage.Load / Graph.Load stream a COPY's
// rows straight into staged data files of the target table, cut at
// MaxRowsPerFile rows or DefaultLoadBytesPerFile (32 MB) of data (memory
// is about one data file: TestLoadMemoryIsBounded loads 2M rows, ~116 MB, with
// under 48 MB of heap growth), one staged Append and one graph commit
// whatever the row count. Like Optimize, a load stages in Apply — after
// revalidation, with the sidecar durable and the table's gate held — so
// a read-set change before the stream is read re-prepares transparently
// and in-process writers of the table wait for the COPY instead of
// failing it (TestWritersWaitForALoad); the read set is checked again
// after streaming. The stream is read once (OnceSource): a change found
// after it was consumed answers 40001 (TestLoadAfterConsumedStreamIs40001),
// and an error while streaming (bad COPY data, a validator) lands
// nothing and reaches the caller unchanged (protocol.NoEffectFinal;
// TestLoadErrorMidStreamIsFinal; on a branch's first touch the new fork
// is dropped again: TestLoadErrorMidStreamOnBranchIsFinal). Effects and recovery are Mutation's
// (an intent armed before its commit is empty or rolled back).
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
// Commit path v2 (docs/architecture.md, protocol/doc.go): every writer
// here implements protocol.Deferrer — Apply stages and previews its
// staged and create effects (lance.Staged.Preview) and commits no table
// version; the manifest CAS publishes the pins with their transaction
// UUIDs, and the versions are materialized afterwards by the committer
// (after the acknowledgement), by any open of the pin (committedHeads.open,
// openPin, a first touch's parent), by MaterializeHeads (serve start,
// Quiesce) and by Cleanup (before it decides what nothing references).
// Options.LegacyCommitPath turns it off (the path before v2: table
// commits under a sidecar before the CAS; benchmarks and recovery tests).
//
// Commit latency: by default a write returns once its manifest CAS
// landed; its sidecar delete (stage H) runs after that, in the
// background (Options.SyncFinalize waits for it instead); Pending and
// Close wait for deletes in flight. The argument is in protocol/doc.go
// ("Commit latency"); BenchmarkCommitLatencyAB measures both modes in
// one run (p50/p99, durable ops, fsyncs and rounds until acknowledged).
// The crash sweeps open graphs with SyncFinalize so their operation
// counts stay deterministic; the async delete's crash state is their
// "after the CAS, before returning" cell. Open wraps the store in
// objstore.Fenced so the coordinator can write the durable confirmation
// while the __manifest files are staged (the CAS waits for it), and a
// Graph keeps the dataset handle of each main-branch commit it made
// (headcache.go) so the next write pinning that version does not read
// the table manifest back. Mutation writes its staged files in the
// background from Prepare on (mutation.go backgroundStaging), while the
// gates, revalidation and the sidecar proceed; Apply waits for them
// before the first exact commit.
//
// Views for the SQL layer: Commits (graph.commits), Audit (graph.audit),
// Pending (graph.recovery), Branches (graph.branches); as-of reads use
// graph.Root.Resolve.
//
// Tests: the crash sweeps (crash_test.go) print their cell counts per
// shape, every recovery decision and class reached, and the seed of
// their sampled cells (go test -v -run 'CrashSweep'; TestMergeCrashSweep
// in merge_crash_test.go runs the same harness over BranchMerge). TestCrashSweep
// (Mutation, Optimize, first touch) crashes after every durable op on
// both backends; TestSchemaCrashSweep (create via ALTER rewrite,
// catalog-only ALTER, DROP, TRUNCATE, DROP+CREATE of one name, ALTER on
// a branch with a first touch in the same commit, Load, Load on a
// branch) does so on the in-memory backend. On the in-memory backend
// every cell runs: crash after op c for every c, power loss (unsynced
// changes dropped) at every c, op c failing once and persistently, and
// a second crash at every op of the recovering write (first crash every
// third op). On the local backend the fault and second-crash cells (and
// the schema shapes' crash cells) are a random sample per run;
// -crash.long runs all of them (nightly), -crash.seed replays a sample
// (with the same -run). Every cell starts from one seeded root copied
// per cell (crash_test.go backends).
// Concurrency: goroutines (concurrency_test.go), writer processes and a
// SIGKILL loop (process_test.go), all checked by one history checker.
//
// Group commit (group.go): grouped autocommit writes of a branch
// (WriteOptions.Group) queued while a commit is in flight are committed
// together as one Mutation whose stage function runs each member's own
// stage function against the group's base and absorbs it; a failing
// member is cut out with its own error, a member inserting a primary
// key an earlier member inserts, or deleting a row an earlier member
// deletes, is deferred to the next group (it recomputes there), a member
// staging anything but in-memory inserts and deletes by address runs
// alone. When fewer writes are queued than were active around the
// previous group, the runner first gathers the writers of that group as
// they come back (group_gather.go, bounded by one commit duration after
// its end). Tests: TestGroupCommitMembers,
// TestGroupCommitConcurrentWriters, TestGatherWait,
// TestGroupCommitGathersReturningWriters, the crash sweep's group-commit
// shape.
//
// Background Optimize does not wait for open transactions: a compaction
// moves rows without changing them, and the SQL layer follows a
// transaction's row addresses across it (lance.AddressMap, planner
// rebase.go). The OptimizeGuard only keeps it off rows this process
// has locked (row locks name rows by address): a background run is
// given the fragments it will rewrite (planned from the commit that
// triggered it, OptimizeOptions.Fragments) and rewrites no others, and
// merges only fragments of fewer than autoSmallFragmentRows rows, so
// locks of rows elsewhere (a large fragment) never wait for it. Tests:
// planner TestBackgroundOptimizeNeverFailsATransaction,
// TestCompactionByAnotherProcessKeepsTransactions.
//
// Invariants: Prepare moves no HEAD (it stages reclaimable files with
// pre-minted UUIDs); Apply commits every staged transaction with
// CommitExact (zero transparent retries) and records the exact post-state
// (version pin+1, row count); a lost slot with no landed effect is
// reported as protocol.ErrNoEffect.
package adapters
