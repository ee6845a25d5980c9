// Package recovery owns the durable write intents of the write protocol
// (docs/write-protocol.md): the
// versioned sidecar __recovery/<operation id>.json, the barrier that
// resolves intents before a write captures its base, exact-identity
// classification, roll forward / roll back / refuse, owner leases and
// fencing, and the audit log __audit.lance.
//
// Sidecar. Format version 1 (SidecarVersion); any other version, a
// missing version, unknown fields or an inconsistent body is refused
// with a typed error (IsUnknownVersion / IsCorruptSidecar) and the
// sidecar is left untouched — never upgraded by guessing. It holds the
// operation id, writer kind, branch, owner (host, pid, boot id, manager
// instance, lease expiry), phase (Armed → EffectsConfirmed) and the
// complete PreparedWrite: base, read set, every effect (dataset, Lance
// branch, expected version, pre-minted transaction UUID), the delta and
// the pre-minted lineage (commit id and rollback commit id). Arm writes
// it with PutIfAbsent before the first durable effect; Confirm replaces
// it atomically with every exact post-state.
//
// Classification (per effect, by exact identity, never by version
// arithmetic): no_movement (HEAD == expected), landed (expected+1 holds
// our UUID), rolled_back (ours, then our Restore marked with
// RollbackProp = operation id), fenced (our Restore holds expected+1),
// superseded (another transaction holds expected+1, so our exact commit
// can never land), created_only (a created dataset, unregistered),
// ref_only (first touch: our fork ref exists at the fork version, no
// commit on it — the ref-before-HEAD crash state; ref absent is
// no_movement, the sidecar-before-ref state),
// foreign (our effect buried under foreign movement) and violation
// (HEAD behind the pin, table gone). Decision per intent, all-or-nothing:
// the commit id already on the branch → converged; the rollback commit
// id → already rolled back; any foreign/violation → refused (55000, the
// sidecar stays); EffectsConfirmed with every effect landed at its
// confirmed version → roll forward (PublishDelta with the original
// commit id and actor; if a read-set member changed meanwhile, check for
// convergence, else roll back); otherwise roll back: Restore every
// landed table to its expected version, then publish the restored HEADs
// as the pre-minted rollback commit so pin == HEAD (and move the id
// allocator past ids a rolled-back create consumed); a first-touch fork
// (ref_only or landed) is rolled back by deleting the fork ref, since the
// graph still pins the inherited version. An intent whose branch was
// deleted (or re-created: another incarnation) can never become
// visible: orphaned_branch_discarded. Every decision is
// appended to __audit.lance (ReadAudit); an audit failure keeps the
// sidecar so the decision is re-derived. A failed sidecar delete is
// counted, never a user error: the next barrier finds the commit id
// published and converges.
//
// Deferred effects (commit path v2, docs/architecture.md). Most writes
// arm no sidecar at all: their table versions are published first and
// materialized after the CAS, so nothing of theirs needs recovery. A
// sidecar exists only for a write with a first-touch effect, and its
// other effects are Deferred: never committed before the CAS. Such an
// effect classifies no_movement while its commit is unpublished (or
// superseded, when other commits have materialized the slot since —
// never foreign: ours never moved anything), counts as ready for a
// roll-forward when nothing moved (the roll-forward publishes its pin;
// readers materialize it), and a rollback neither restores it nor
// occupies its slot — a concurrent v2 writer may publish exactly that
// version, and a restore there would make it unmaterializable (slot
// exclusivity). A deferred create always moves the id allocator on
// rollback. Sidecars of earlier builds (staged effects committed before
// the CAS) are resolved exactly as before.
//
// Ownership, liveness and fencing. Recovery never destroys an intent
// whose owner may be alive. Liveness: the owning Manager instance is
// live in this process and the operation is in flight → alive; the
// instance is live but gave the operation up (Abandon after a
// post-effect failure), or is closed, or the owner is another process
// on this machine and boot that no longer exists → gone; another machine
// (or a live pid) → alive until its lease expires, then expired. Alive
// intents are skipped by the barrier: they are in-flight writes, and an
// overlapping write sees their HEAD movement as covered and answers
// 55P03 after a bounded wait. Expired owners are fenced before any
// action. The fencing argument:
//
//   - The owner can change graph-visible state only by its one manifest
//     CAS, and that CAS arbitrates the epoch of every table it writes.
//     Recovery first publishes a fence commit that bumps those epochs
//     (fenceManifest). Manifest versions are a PutIfAbsent chain: if the
//     owner's commit landed first, recovery sees the commit id and
//     converges; otherwise every later owner CAS re-arbitrates against a
//     head whose epochs differ and fails forever. So after the fence the
//     owner can never publish.
//   - The owner can move a table HEAD only with a CommitExact at exactly
//     expected+1. Recovery's Restore of every untouched table occupies
//     that slot (every rollback does this, fenced or not: see sibling
//     recoverers below), so the owner's pending commits can never land;
//     a table it already reached is restored on top.
//     A commit racing the fence loses the PutIfAbsent or is classified
//     as landed and compensated (restore retries after reclassifying).
//   - Hence after fencing the owner has no remaining way to change
//     durable state, and recovery acts alone. A resumed owner fails with
//     a read-set change or a lost slot, leaving nothing visible.
//
// Lease renewal (lease.go). While an armed operation is in flight its
// manager rewrites the sidecar with a fresh expiry every
// LeaseDuration/3, so a write longer than one lease is not fenced by a
// recoverer elsewhere (TestLongWriteRenewsItsLease: another OS process
// writes for ~3 leases while this one runs Recover every 100ms and only
// ever sees a live owner; with renewal disabled it fences the owner).
// Renewal is liveness, never safety — the fencing argument above does
// not assume the owner stops writing when its lease ends:
//
//   - The renewer holds the operation's lease mutex across each write,
//     Confirm takes the same mutex (a renewal never reverts
//     EffectsConfirmed to Armed), and Finalize/Abandon stop the renewer
//     and wait out a write in flight before deleting or giving up, so a
//     finished write's sidecar is never resurrected by its own renewer.
//   - The renewer stops for good once its own clock passes the last
//     expiry it wrote, and when the operation's context ends: a frozen
//     or partitioned owner does not revive a lease a recoverer may have
//     judged expired (TestStalledOwnerIsFencedAfterItsLease: SIGSTOPped
//     past its lease, the owner is fenced; resumed, its exact commit
//     loses the slot to the fence and its strict write fails 40001 with
//     nothing visible).
//   - Should a delayed renewal PUT still land after a recoverer removed
//     the sidecar (clock skew, a stalled store request), the resurrected
//     sidecar names an operation whose outcome is already durable: its
//     commit id or rollback commit id is on the branch (converged /
//     already rolled back), or its branch is gone (orphaned), or nothing
//     moved (empty intent) — the next barrier re-derives the same
//     decision from exact identities and removes it. The fence itself
//     keeps the owner from ever publishing.
//   - Abandon releases the lease (one rewrite with an expiry of now,
//     before the operation leaves the in-flight set), so recoverers in
//     other processes fence and resolve a failed write at once instead of
//     waiting out its lease (TestLeaseRenewalKeepsPhaseAndStops).
//
// Finding intents (known.go). The barrier does not list __recovery/ on
// every write: on object storage a LIST is the slowest, costliest and
// most rate-limited request a commit could make. It resolves the intents
// this process knows may be pending — the keys of its listings, and the
// ones it left itself (an abandoned operation or failed arm, a sidecar
// whose delete failed, a manager closed with writes in flight), shared
// by every manager of the root in the process — and lists only on a
// manager's first barrier (a restarted process finds what it left) and
// once every RescanInterval (default 30s). An intent of another process
// that this one does not know is treated exactly as a live owner's: it
// is the same state as an intent armed just after a listing, which the
// protocol has always had to allow. A write it overlaps sees the table
// HEAD past its pin (or a first-touch fork ref) at revalidation;
// Covering lists, and the listed keys join the known set, so the retried
// attempt's barrier resolves the intent when its owner is gone (or
// answers 55P03 while it may be alive, 55000 when it is unresolvable).
// An intent that moved nothing (deferred effects, or armed only) blocks
// nobody; the next rescan resolves it, and until then a later write may
// supersede its deferred effects, which its rollback allows for (below).
// So a resolution may come later than the next write in another process,
// never a different one; every guarantee above holds. Tests:
// TestBarrierListsOnlyWhenARescanIsDue, TestOverlappingUnknownIntentIsResolvedByTheWrite,
// the crash sweeps (their next write runs in a fresh manager, whose first
// barrier lists) and TestKillNineLoop.
//
// Maintenance and recovery. adapters Cleanup runs Recover first, skips
// every dataset an unresolved intent names, refuses beside an unreadable
// one, and its opt-in __manifest retention never prunes a version above
// a pending intent's base; published() skips versions pruned before the
// intent armed (never its own commit, published after it armed).
//
// The barrier is a deliberate availability trade: an unresolvable intent
// (unreadable, unknown version, foreign movement) fails the writes it
// overlaps with 55000 until an operator acts (pgproxy verify shows it):
// writes on its branch, or every write when it is unreadable or changes
// the catalog; other branches proceed (TestRefusedIntentBlocksOnlyItsBranch).
//
// docs/write-protocol.md §5 crash contract → code → tests (adapters TestCrashSweep
// crashes after every durable op, drops unsynced writes, fails each op
// once and persistently, and crashes again inside recovery; it prints the
// cell count and every decision/class reached):
//
//   - Before sidecar: nothing durable but reclaimable staged files; the
//     next write simply proceeds (decision none). TestCrashSweep cells
//     c < arm.
//   - Sidecar durable, no effect: classes all no_movement →
//     empty_intent_finalized (resolve → rollback with no pins).
//     TestCrashSweep; TestUnknownSidecarVersionBlocksWrites (refusal).
//   - Some effects applied, not confirmed: Armed → rollback (restore +
//     rollback commit). TestArmedIntentRolledBackWithAudit,
//     TestExpiredForeignOwnerIsFencedThenRolledBack.
//   - All effects confirmed, before CAS: rolled_forward with the exact
//     delta and original lineage. TestCrashSweep (decision counts).
//   - CAS succeeded, sidecar remains: converged + audit + delete.
//     TestFailedSidecarDeleteIsNotAUserError, TestCrashSweep.
//   - Live owners: TestLiveForeignOwnerIsNeverTouched (skipped, 55P03).
//   - Expired owners: TestExpiredForeignOwnerIsFencedThenRolledBack (its
//     later publish is refused), TestFenceStopsAnExpiredOwnersPendingCommit
//     (its pending exact commit cannot land).
//   - BranchMerge intents are Mutation-shaped (staged replays, first
//     touches, plus registrations/tombstones in the delta); a rollback
//     restores every landed table and skips the pin of a table the intent
//     itself registered (publishPins). adapters TestMergeCrashSweep runs
//     the same sweep on dev→main and main→dev merges.
//   - Concurrent recoverers of one intent (several processes): restores
//     land exactly on the classified HEAD and adopt each other's
//     (adapters TestKillNineLoop). Sibling recoverers may judge the owner
//     differently — its own process sees an abandoned operation as gone,
//     another process sees a live pid whose lease Abandon released as
//     expired and fences — so no step may depend on that judgment:
//     (1) a rollback occupies every untouched table's next slot whether
//     or not it fenced, so every sibling computes the same restores and
//     no restore can land after a sibling's rollback commit (it would
//     sit one past its pin with the sidecar gone: uncovered drift);
//     (2) a roll-forward adopts the epochs of a fence of the same intent
//     (adoptFence) and retries, instead of reading the sibling's fence as
//     a read-set change and rolling back while the fencer rolls forward;
//     (3) fenceManifest never fences an intent already fenced or rolled
//     back; (4) a refusal or failed rollback first checks whether a
//     sibling already resolved the intent; (5) the direction (roll
//     forward or back) is recorded once per intent with PutIfAbsent
//     under DecisionDir before any restore or roll-forward, and every
//     sibling follows the first record (decide): the sidecar's phase is
//     the one input that can still change (an owner past its lease
//     landing a late confirmation), so two siblings could otherwise read
//     Armed and EffectsConfirmed and go both ways. The record is deleted
//     before the sidecar when the intent is finished. recovery
//     TestSiblingRecoverersAgreeOnRollback / ...OnRollForward /
//     ...FollowTheFirstDirection replay the three interleavings
//     deterministically (hooked store, a manager with its own gates as in
//     another process); each fails without its part of the fix.
//
// Known limits: an owner whose renewals all fail for a whole lease (its
// store unreachable) can be fenced; its write then fails with
// 55000/40001 and nothing of it is visible — safe, not live. Confirm
// refuses once the owner's own clock passes its lease (ErrLeaseLost),
// so a late confirmation is rare; when one still lands (a put stalled
// past the lease), the direction record decides.
//
// Branch delete versus a write in another process (branchguard.go,
// graph/seal.go). Lance refs have no compare-and-delete, so the delete
// seals the branch with a terminal manifest version through the same
// PutIfAbsent CAS every publisher uses: a write that published first is
// simply ordered before the delete; every other write on the branch
// loses its slot and finds the branch unknown (its sidecar is discarded
// as orphaned_branch_discarded). The root's delete guard
// (awaitBranchWriters) then waits until no intent on that branch
// incarnation has an owner that may be alive — they fail at publish and
// Abandon releases their lease — so no straggler commits to a table fork
// after the forks are reclaimed; past BranchDeleteWait it answers 55P03
// and the branch stays sealed (the next delete completes it).
// TestBranchDeleteFencesAWriterInAnotherProcess (two OS processes: a
// write acknowledged on the deleted branch without the seal; with it the
// write fails, the re-created branch starts from its parent, and the
// next write succeeds with no sidecar left), TestSealedBranchIsDeletedOnRetry.
// Residual window: a write with no sidecar (authority-first, metadata
// only) that read the head before the seal and stalls across the whole
// delete could still put version N+1 into the reclaimed tree of the
// deleted branch; nothing reads it (the ref is gone, and a re-created
// branch reclaims its tree before its first version), but the write is
// acknowledged on a branch that no longer exists.
package recovery
