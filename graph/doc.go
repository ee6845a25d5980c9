// Package graph owns a graph root: the directory (or bucket prefix) that
// holds one versioned property graph (layout: docs/architecture.md, "Storage layout of a root").
//
// The manifest (manifest.go, root.go). __manifest.lance is a Lance
// dataset whose every version is one graph commit and holds current
// state only: one row per registered table (stable id, incarnation,
// name, kind, definition with stable column ids, location, pinned
// version, Lance branch, row count, live|dropped, fence epoch) plus one
// schema row (identity = monotonic counter + content hash, and the
// never-reusing id allocator; a table created off main takes a random id,
// BranchID, and keeps its OID in its entry). Each version is an Overwrite whose data
// file holds those rows and whose transaction properties carry the same
// state and the commit lineage (id, parent, actor, message, time,
// operation id, writer kind, recovery kind), so reading a snapshot costs
// the one manifest read Lance needs anyway: O(tables), never O(history).
// Root.Head probes version N+1 only (warm) — nothing on the write path
// lists _versions/. Root.Publish is the only writer of manifest versions
// and is a PutIfAbsent CAS on N+1. Snapshots: Head (branch head),
// SnapshotAt (manifest version), SnapshotByCommit, SnapshotAsOf (these
// two walk history: time travel is allowed to be O(history)).
// ManifestVersions lists a branch's existing versions from one listing
// of its _versions/ directory; the history walks use it, so versions
// pruned by a manifest retention (adapters Cleanup, opt-in) are skipped
// rather than ending the walk.
//
// Decoded-snapshot cache (headcache.go): the decoded state of each
// branch's latest head is cached under (branch, incarnation, manifest
// version) — immutable facts — so Head of an unchanged branch costs the
// N+1 probe and one O(tables) slice copy, no JSON decode
// (BenchmarkHead: 10 tables 123µs → 3.7µs, 100 tables 1.33ms → 33µs on
// main). Each snapshot gets a private Tables slice; table definitions
// are shared read-only (edit a State.Clone()).
//
// Branches (branch.go): a graph branch is a native Lance branch of
// __manifest — a control operation that creates no manifest version. Its
// incarnation (the ref's newest id) is part of every snapshot, so a
// deleted and re-created branch never passes for the old one. A new
// branch inherits every table at the exact version its parent pins
// (entry.Branch names the Lance branch holding it); the first write of a
// table on the branch forks the table dataset lazily (package adapters).
// Names are path-prefix-disjoint. Delete first seals the branch
// (seal.go: a terminal manifest version through the publishers' own
// PutIfAbsent CAS, so a writer in another process that prepared on the
// branch can no longer publish, and Head reports ErrBranchDeleting),
// then runs the delete guard (recovery waits for writers on the branch
// that may still be running), then removes the ref and reclaims the
// branch's table forks best effort; a delete stopped after its seal is
// completed by the next delete or create of the name. Create reclaims
// stale forks of its name first. A dataset handle needs the root's absolute location
// (Options.Location), which Lance records in branch base paths.
//
// Init: the stamp (PutIfAbsent), then __manifest version 1 whose commit
// id is the graph id. An init interrupted between the two is completed by
// the next read-write Open (only our own init can leave that state);
// OpenReadOnly reports ErrInitIncomplete instead of writing.
//
// Identity. A root is marked by the
// format stamp `_graph.json`, written once with PutIfAbsent at init, so
// two processes initializing the same empty directory cannot both
// succeed, and a root is never re-initialized over existing data.
//
// Invariants:
//   - A root is recognized only by a stamp whose "format" is "pggraph"
//     and whose format version this build supports. Anything else is
//     refused with a typed error naming the path and the problem; opening
//     never modifies the directory.
//   - Init writes into an empty directory only: a non-empty directory
//     without a stamp is someone else's data and is refused.
package graph
