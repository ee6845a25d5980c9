// Package protocol is the graph-write coordinator of the write protocol
// (docs/write-protocol.md): the protocol objects
// (PreparedWrite, BaseView, ReadSet, Effect, ManifestDelta,
// LineageIntent, RecoveryPlan), the stage machine A–H, the ordered
// process-local gates, the publisher's manifest CAS loop and the typed
// errors with their SQLSTATEs.
//
// Model. A graph-visible write is one Coordinator.Commit of a Writer
// (an adapter from the closed registry in package adapters). The stages
// below are the path a branch's first touch takes; every other write
// skips E and F's table commits (commit path v2, further down):
//
//	A  Recovery.Barrier resolves every intent whose owner is gone
//	B  the base snapshot is captured (after A), Writer.Prepare stages
//	   per-table Lance transactions without moving any HEAD and fills
//	   the read set, effects (pre-minted transaction UUIDs) and delta
//	C  gates: schema-control (catalog changes), the target branch
//	   (shared; branch create/delete take it exclusively), then sorted
//	   (branch, table) keys of every written table; ctx-cancellable
//	D  revalidate: every read-set member against a fresh head (branch
//	   incarnation, schema, each table), and live Lance HEAD == pin of
//	   every written table (a first-touch target must have no fork yet;
//	   an orphaned fork no intent covers is reclaimed)
//	F' a first-touch effect creates the table's fork ref from the
//	   inherited version only now (after E), stages the retained logical
//	   input on it with the pre-minted UUID, and commits exactly
//	E  Recovery.Arm makes the sidecar durable
//	F  Writer.Apply commits each staged transaction exactly at pin+1 and
//	   records exact post-states; Recovery.Confirm makes them durable
//	G  Publish: load head N, arbitrate every member, apply the delta to
//	   head N's state, PutIfAbsent version N+1; on a lost slot reload
//	   and re-arbitrate (disjoint writers both commit)
//	H  Recovery.Finalize deletes the sidecar best effort
//
// A pre-effect mismatch discards the plan and re-prepares (bounded,
// default 5) unless the caller is strict (an explicit transaction's
// COMMIT), which gets 40001. After F starts, every failure is a recovery
// case (55000): the sidecar stays and the operation is abandoned so the
// next barrier — in this process or any other — resolves it. The one
// exception is an Apply whose every commit lost its exact slot to
// another transaction (ErrNoEffect): exact commits only use pin+1, so
// none of ours can ever land; the intent is empty, finalized at once,
// and the attempt restarts — unless the adapter marks its failure
// final (NoEffectFinal: nothing landed, but re-preparing cannot help,
// e.g. a consumed COPY stream or bad COPY data found while streaming),
// which is finalized and returned unchanged.
//
// Invariants (docs/write-protocol.md §3) → code → tests:
//
//  1. Recovery before base capture: Coordinator.attempt calls
//     Recovery.Barrier before Root.Head/Prepare. Tests: adapters
//     TestCrashSweep (every cell's next write runs the barrier first),
//     recovery TestArmedIntentRolledBackWithAudit.
//  2. No durable effect before durable intent: Arm precedes Apply;
//     Prepare only writes reclaimable staged files. Tests: adapters
//     TestEffectOrder (trace: sidecar before the first table HEAD),
//     TestFirstTouchOrder (sidecar before the fork ref before its HEAD),
//     TestCrashSweep (crash after every durable op).
//  3. Complete read-set validation: ReadSet.Check (schema identity,
//     optional head, every written or probed table's version, branch,
//     epoch, presence) in stage D and on every CAS attempt; checkHeads
//     (live HEAD == pin, else covered → retry / 55P03, uncovered →
//     KindUncoveredDrift). Tests: TestReadSetCheckPerMember,
//     adapters TestPublisherArbitratesProbedMember (a probed table
//     changing between revalidation and the CAS fails the write into
//     recovery; a disjoint commit does not; -tags failpoints),
//     adapters TestStrictReadSetChangeIs40001AndAutocommitReprepares,
//     recovery TestUncoveredDriftIsRefused.
//  4. Recompute, do not patch: a mismatch returns to Commit's loop,
//     which reruns the barrier and Writer.Prepare (the caller's
//     StageFunc) from a fresh base; nothing refreshes a version under an
//     old plan. Tests: adapters TestConcurrentOverlappingWriters
//     (autocommit re-prepares), TestStrictReadSetChangeIs40001AndAutocommitReprepares
//     (the staging function runs again against a fresh base).
//  5. One graph visibility point: PublishDelta is the only writer of a
//     graph-visible __manifest version for a write. Tests: adapters
//     TestEffectOrder (exactly one __manifest version per write),
//     TestCrashSweep (all-or-nothing in every cell).
//  6. Adapters own effect truth: Writer.Apply binds the slots; Delta.Apply
//     refuses an unconfirmed slot; the registry is closed. Tests:
//     TestDeltaApplyBindsOnlyConfirmedSlots, adapters
//     TestConformanceOnlyAdaptersCommitGraphTables.
//  7. Queues are local optimization: Gates are per root per process;
//     cross-process safety comes from CommitExact and the manifest CAS.
//     Tests: TestGatesOrderAndCancel, adapters TestConcurrentProcesses
//     (no shared gates), TestConcurrentDisjointWritersAllCommit.
//  8. Recovery safety is synchronous: the barrier resolves or fails
//     typed before the base is captured; live owners' intents are
//     in-flight writes and surface as 55P03 at revalidation. Tests:
//     recovery TestLiveForeignOwnerIsNeverTouched,
//     TestUnknownSidecarVersionBlocksWrites.
//  9. Derived work follows visibility: stage H only deletes the sidecar
//     after the CAS (no derived work exists yet). Test:
//     recovery TestFailedSidecarDeleteIsNotAUserError.
//
// Catalog changes (SchemaApply): the delta carries Registrations (new
// tables and new incarnations of an altered or truncated table, each
// backed by an EffectCreate at version 1 of a fresh dataset),
// Tombstones, and Redefinitions (catalog-only: name, kind, definition
// replaced, the data pointer taken from the head the CAS applies to —
// safe because the redefined table is a read-set member whose version,
// branch and epoch arbitration proved unchanged). Any of them makes the
// delta SchemaChanging: the schema gate is taken and the schema identity
// (counter + hash) moves, so every concurrent write prepared against the
// old schema re-prepares or gets 40001. A delta without effects
// (redefinitions, drops) is published authority-first. Tests: adapters
// TestRedefineIsCatalogOnly, TestReplaceTableKeepsIDAndColumnIDs,
// TestTruncateDropCreateInOneCommit, TestSchemaChangesOnBranch,
// TestSchemaCrashSweep (all-or-nothing for every catalog shape and
// Load), TestLoadAfterConsumedStreamIs40001 (a one-shot COPY stream
// never re-prepares with missing rows).
//
// Errors: every error a caller sees is an *Error with a Kind mapped to a
// SQLSTATE (docs/architecture.md, "The write protocol"): ReadSetChanged 40001, RecoveryRequired 55000
// (Detail names the operation), live-writer contention 55P03, uncovered
// drift 55000, key conflict 23505, foreign key 23503, check 23514, not
// null 23502, resource limit 54000, read-only 25006, unknown branch
// 3D000, unsupported 0A000, invalid write 22023, undefined table 42P01,
// duplicate table 42P07, invalid table definition 42P16. Test:
// TestSQLStates.
//
// Commit latency (what an acknowledged commit waits for). Measured on the
// local backend with adapters BenchmarkCommitLatencyAB (1-row insert, one
// table, both variants interleaved in one run): before, 11 durable
// operations, 21 fsyncs and 17 ordered storage rounds before the
// acknowledgement; after the cuts below 10 durable operations, 16
// fsyncs and 11-12 rounds (each volatile hint and each read still
// counts as a round).
// Wall time is fsync bound on this disk (~0.5–1.5 ms per durable op; the
// commit path's own CPU is ~0.6 ms on the in-memory backend). Each cut,
// and why it keeps the invariants:
//
//   - Stage H runs after Commit returns when Coordinator.AsyncFinalize is
//     set (adapters default; Options.SyncFinalize turns it off). The
//     delete was already after the acknowledgement in RFC terms; now the
//     caller does not wait for its directory fsync. It still always
//     happens: its context is detached from the caller's, and
//     WaitFinalized (adapters Graph.Close and Graph.Pending) waits for it.
//     Until it lands the operation stays in flight in its Manager, so a
//     barrier in this process skips it (its commit is published; every
//     table it wrote is pinned at its post-state, so a later write's
//     checkHeads never asks Covering about it). A crash before the delete
//     is exactly the crash-contract row "manifest CAS succeeded, sidecar
//     remains" (the crash sweeps' "after the CAS, before returning"
//     cell): the next barrier finds the commit id on the branch and
//     converges. Test: adapters TestSidecarDeleteFollowsTheAcknowledgement.
//
//   - Confirm runs concurrently with the publisher's staging of the
//     __manifest data file (ParallelConfirm; adapters
//     sets it and wraps the root's store in objstore.Fenced). Those files
//     are referenced by nothing until the CAS (a crash leaves unreferenced,
//     reclaimable files, as a lost CAS does). The CAS itself — the
//     PutIfAbsent of a __manifest version file, isManifestCommit — is
//     issued under an objstore.Fence that holds it until Confirm has
//     returned and fails it (never issued) if Confirm failed; Commit
//     waits for Confirm before returning on every path. So docs/write-protocol.md §4.5
//     "durably records the exact confirmed post-state before manifest
//     publish" holds as before. Tests: adapters TestEffectOrder (confirm
//     before the manifest version), the crash sweeps (every crash point
//     of the now-concurrent ops lands in Armed → rolled back or
//     Confirmed → rolled forward), objstore TestFenceHoldsOnlyMatchedWrites
//     and the contract suite over Fenced.
//
//   - adapters writes a write's staged files (Lance data, deletion and
//     transaction files) in the background from Prepare on, so they are
//     written while the gates are taken, stage D revalidates and stage E
//     makes the sidecar durable. They are referenced by nothing until the
//     table's exact commit in Apply, which waits for them (docs/write-protocol.md §4.2:
//     reclaimable uncommitted files may exist before the sidecar; no HEAD
//     moves before Apply). Stage D probes HEAD on the handle opened in
//     Prepare. A staging failure found in Apply landed nothing and is
//     returned as NoEffectFinal (the empty intent is finalized, the error
//     reaches the caller unchanged). Discard waits for the staging.
//     Tests: the crash sweeps, TestEffectOrder (no HEAD before the
//     sidecar), adapters/mutation.go backgroundStaging.
//
//   - The first CAS attempt reuses stage D's fresh head instead of
//     probing the manifest again. Safe because the CAS is a PutIfAbsent
//     of that head's version+1: it lands only if nothing was published
//     since stage D's arbitration of the complete read set; otherwise it
//     is lost and the loop reloads and re-arbitrates as before
//     (TestPublisherArbitratesProbedMember still fails a probed member
//     that changed in between into recovery).
//
//   - adapters keeps the dataset handle each commit produced (main Lance
//     branch only) and stages the next write that pins exactly that
//     version on it instead of reading and decoding the table manifest
//     again (adapters/headcache.go states why main-branch versions are
//     immutable names and fork versions are not). Prepare still moves no
//     HEAD; revalidation still probes live HEAD == pin from storage.
//
//   - Lance version hints (latest_version_hint.json) cost no fsync:
//     every commit writes one with objstore.PutVolatile. (Writing it only
//     every 16th version once seemed to make adapters TestKillNineLoop
//     fail more often; it only changed the timing of the real cause,
//     sibling recoverers deciding differently, fixed in recovery; see
//     lance/commit.go.) A hint is
//     never trusted: readers probe forward from it, a missing, stale,
//     unreadable or too-high one falls back to probing or listing (lance
//     TestLatestProbing, TestVersionHintIsVolatileAndReadersSurvivePowerLoss),
//     and the official Lance opens the latest version with a stale one.
//     No invariant refers to the hint.
//
//   - A commit builds the new table handle from the manifest it encoded
//     (no decode of its own bytes; lance checks the two agree in its
//     tests), carries fragments over without deep copies, and keeps the
//     handle in graph.Root's committed-table cache, which the next
//     write's staging and the SQL layer's catalog (Root.OpenTable) use
//     instead of reading and decoding the manifest: main-branch versions
//     are immutable names (graph/tablecache.go).
//
//   - A staged transaction's data or deletion files and its transaction
//     file are written in one round (lance stageOperationWhile; appends,
//     overwrites and updates through writeFragmentsAsync): all are
//     unreferenced until the table's exact commit, as the staged files
//     above, so their order among themselves does not matter; the same
//     holds for the __manifest commit's data and transaction files,
//     which the CAS is the first to reference. Crash cells: every
//     durable op of these rounds is an ordinal of the crash sweeps.
//
//   - Retry turns (turns.go): a write whose read set changed re-prepares
//     only when no other retrier of the same table in this process is
//     mid-attempt, instead of N-1 writers re-preparing against a head
//     that is about to move again. A turn is not a gate, protects
//     nothing, and the retry runs the unchanged state machine (invariant
//     7). Test: adapters TestRetryWaitsForTheTablesTurn.
//
// Every acknowledged write is durable: adapters
// TestAcknowledgedWritesSurvivePowerLoss checks after each write that
// the only unsynced objects are version hints, then drops any subset of
// unsynced changes and finds every acknowledged row.
//
// Per 1-row commit now (CommitLatencyAB, local backend): 8 durable
// operations (plus a volatile hint) and 16 fsyncs before the
// acknowledgement, in 4 ordered durable rounds:
// [sidecar ‖ data file ‖ txn file] → table manifest → [confirm ‖
// __manifest data file ‖ txn file] → __manifest CAS. That is the
// protocol's floor for one table: the confirmation must follow the
// table commit and precede the CAS (docs/write-protocol.md §4.5), the table commit must
// follow the sidecar (invariant 2).
//
// Commit path v2 (design in docs/architecture.md, "Commit path v2:
// publish first, materialize after"; it extends docs/write-protocol.md §4.9 to data
// writes). Staged and create effects are Deferred: Apply stages them and
// computes their exact post-state in memory but commits no Lance
// version; the manifest CAS publishes each written table's pin p with
// the transaction UUID that yields it (graph.TableEntry.Txn), and the
// table's Lance manifest at p is materialized after the CAS — by the
// committer after the acknowledgement, and by any reader or writer that
// opens a pinned version not yet materialized (graph.Root.Materialize).
// A write whose effects are all deferred arms no sidecar (authority-
// first: the CAS is its first referenced durable effect; a lost CAS
// leaves unreferenced files only): Coordinator.commitDeferred. A write
// with a first touch keeps the sidecar for its fork effects (stages E–H
// above) and defers its other effects the same way. Proof obligations
// (stated in docs/architecture.md) → code → tests:
//
//   - Prefix (a published pin's base version exists): adapters opens
//     every written table's base through Root.OpenTable /
//     committedHeads.open, which materialize it, before staging on it.
//     Tests: the crash sweeps (every cell's next write stages on a base
//     a crash may have left unmaterialized).
//   - Slot exclusivity (only materialization writes a pinned slot):
//     deferred effects are never committed before the CAS (adapters
//     Apply previews them); recovery never restores a deferred effect
//     nor occupies its slot (recovery rollback, classify); the first
//     touch commits only on its own new fork. Tests: TestEffectOrder/v2
//     (no table version before the __manifest version), the conformance
//     registry (graph/materialize.go is the one new commit call).
//   - Idempotence: Root.Materialize commits the recorded transaction
//     exactly at the pin and adopts the same UUID found there. Tests:
//     TestVerifyAndRecoverAnInterruptedWrite (crash after the CAS, first
//     read materializes), crash sweeps (materialization interrupted at
//     every op, then completed by MaterializeHeads).
//   - Losers leave nothing referenced; an ambiguous CAS is 08007, never
//     an acknowledgement (a put that failed may be visible but not
//     durable). Tests: TestPublisherArbitratesProbedMember (a changed
//     probed member re-prepares, nothing stale visible), the power-loss
//     cells of the crash sweeps.
//   - One visibility point and HEAD == pin at rest: Delta.Apply records
//     Txn only for deferred effects; the committer materializes after
//     the acknowledgement (tracked by WaitFinalized), serve start and
//     Graph.Quiesce materialize every branch head. Tests:
//     adapters TestOfficialLanceReadsEveryCommit (the official Lance
//     reads every table at its pin while open and after Close).
//
// Per 1-row commit with v2 (BenchmarkCommitLatencyAB): 5 durable
// operations and 8 fsyncs before the acknowledgement (before: 10 and
// 16), no sidecar, no confirmation, no table manifest; the __manifest
// version's transaction is inline in its manifest only, no file
// (docs/write-protocol.md §7.6; graph TestPublishIsCASAndSnapshotsTimeTravel,
// lance TestInteropInlineOnlyTransactions). When the row
// counts are known from the input (Predictor: inserts from memory, no
// deletes) the rounds are [table data ‖ txn file ‖ __manifest data]
// → __manifest CAS, the CAS held by an objstore.Fence until
// Apply has seen the staged files durable and the preview equal to the
// prediction (commitPredicted; on the local backend the CAS's staging
// file is written and fsynced while held and only linked after:
// objstore.Local.PutIfAbsentAfter); otherwise [table data ‖ txn file] →
// [__manifest data] → CAS. The numbers below are
// the path before v2.
//
// Two durable rounds on the local backend (docs/write-protocol.md §7.2):
// the staged files are created under their final names with the file's
// and the directory's fsync at once (objstore.PutNew), and the
// __manifest version's own data file is written while
// its put is staged (lance OverwriteExact → objstore.PutIfAbsentAfter),
// so a 1-row INSERT waits for [3 new files ‖ manifest staging fsync] →
// link + directory fsync: 2 ordered durable rounds, 8 fsyncs. Each
// commit counts what it waited for (objstore.DurableRounds →
// Receipt.DurableRounds, the commit log line, the
// pggraph_commit_durable_rounds histogram; post-commit materialization
// and finalization are not counted). Tests: adapters
// TestCommitCountsDurableRounds (exact count on a serialized store),
// objstore TestDurableRounds*, TestDirSyncsCoalesce, TestMemPutNewPowerLoss,
// the crash sweeps (PutNew is a put-if-absent ordinal).
//
// Chaining on a published version (docs/architecture.md, "Commit path
// v2", prefix): after its CAS and before its acknowledgement a commit
// hands each deferred effect's in-memory post-state (Confirmed.Preview)
// to graph.Root.RememberPublished, so the next statement of this process
// reads and stages on the published version at once. Such a write's
// base is materialized by materializeBases in its own first round,
// concurrently with Apply (its staged files), and the CAS is issued only
// after both succeeded (commitPredicted: the same fence; commitDeferred:
// before publishFrom; the sidecar path: before Arm). checkHeads accepts
// HEAD == pin-1 only for a base pin that carries a commit record.
// Tests: adapters TestNextWriteStagesOnThePublishedVersion (the base's
// materialization precedes the CAS, and staging does not wait for it),
// the crash sweeps (every cell's next write may stage on an
// unmaterialized base). Measured: adapters BenchmarkBackToBackInserts.
//
// Overlapped stages (docs/write-protocol.md §7.1). On object storage each
// dependent request is a round trip, so a v2 write whose base the
// attempt captures itself overlaps the read-only stages: barrierAndHead
// reads the base head concurrently with the barrier when the recovery
// reports it knew of no intent (CleanBarrier; any intent found → the
// head is read again after the barrier; the barrier lists __recovery/
// only on its first run and every rescan interval, recovery/doc.go
// "Finding intents", so it usually sends no request), and round1 runs stage D's
// live-HEAD check (checkHeads) concurrently with Apply and the
// __manifest files, the CAS fenced until it passed. Stage D's fresh-head
// comparison is the CAS itself (publishFrom starts from the base; a
// version published since makes the CAS lose, and the reload arbitrates
// every member). A base this process already knows to be stale
// (graph.Root.KnownNewer), a strict caller's base, or
// SequentialRevalidate keep the sequential order. A caller that has
// just read the head for its statement passes it (CommitOptions.HeadHint)
// and the first attempt takes it as its base when the barrier finds no
// intent — the same argument as the concurrent read, the head being read
// before the barrier instead of beside it. With the planner reading the
// statement's head beside its role catalog probe, a 1-row INSERT on S3
// waits on 3 dependent requests: [role check ‖ statement head], [staged
// files ‖ live HEAD ‖ __manifest files], CAS (cmd/pgproxy
// TestS3RequestCountsByKind). A publishFrom failure other than the CAS
// attempt itself (publishError) happened before any CAS of ours landed
// and is returned as such, not as an unknown outcome.
// Tests: the crash sweeps (every cell's next write takes the overlapped
// path), adapters TestConcurrentProcesses and the uncovered-drift and
// covered-drift tests (a failed live-HEAD check in round 1 never lets
// the CAS through), TestBarrierHeadOverlap.
//
// Group commit (adapters/group.go, docs/architecture.md "The write
// protocol") needs nothing new here: a group is one Writer whose
// Prepare runs every member's stage function against one base, so the
// stage machine, the read set and the crash contract are those of any
// write (invariant 4 holds: a read-set change re-runs every member).
// The writer records the admitted members in LineageIntent.Members,
// which the publisher copies into the commit record (graph.Commit.Members,
// one graph.commits row and one receipt commit id per member).
// Autocommit UPDATE and DELETE members group too: the SQL layer asks
// only where a removed row is one no other member's row depends on (no
// foreign key references the table, no out-degree minimum), and adapters
// defers a member removing a row an earlier member removes.
// Explicit transactions' COMMITs group below SERIALIZABLE and without
// table-level FOR UPDATE/SHARE locks: their row-level arbitration reads
// committed versions, which an earlier member of the same group is not
// yet, so what it would miss — two members changing one row — is kept
// apart by row locks and, as a backstop, by adapters' row claims, and
// SERIALIZABLE (which arbitrates every table it read) never groups.
package protocol
