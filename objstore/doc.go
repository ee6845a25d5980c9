// Package objstore is the storage seam: every durable byte pggraph
// writes goes through a Store.
//
// Model. A Store maps slash-separated keys to immutable byte objects.
// There are exactly two ways to write: Put, an atomic replace, and
// PutIfAbsent, an atomic create that fails with ErrExists when the key
// exists. PutIfAbsent is the only compare-and-swap in the system; every
// commit point (Lance manifests, the graph manifest, sidecars, the format
// stamp) is built on it.
//
// Invariants every backend keeps:
//   - A write that returns nil is durable. The local backend fsyncs the
//     staged file before publishing it and fsyncs the directory after, and
//     fsyncs each parent of a directory it creates.
//   - Readers never see partial objects: data is written under a staging
//     name and published by link() (PutIfAbsent) or rename() (Put). It is
//     never written in place, and existence is never checked with a stat
//     followed by a rename.
//   - List never returns staging names. Staging files left by a crashed
//     writer are invisible garbage (a later cleanup may reclaim them).
//   - Keys form a hierarchy as on a filesystem: a key that is, or once
//     was, the parent "directory" of another key can never itself hold an
//     object (ErrInvalidKey). Directories are not removed when their last
//     object goes, so the hot path does not pay to recreate them.
//   - Missing keys give ErrNotFound, lost creates ErrExists, malformed keys
//     ErrInvalidKey; errors are wrapped in *OpError naming op and key.
//
// S3 (s3.go) keeps a store under a prefix of an S3 bucket, on AWS or an
// S3-compatible server, through the AWS SDK for Go v2. PutIfAbsent is
// PutObject with If-None-Match: * — S3's own conditional write, atomic
// across every process and machine on the bucket. Where it departs from
// the invariants above:
//   - The key space is flat: "a" and "a/b" may both hold objects, and a
//     former "directory" name is an ordinary key. Nothing in pggraph
//     writes such pairs; portable callers rely on neither behaviour
//     (storetest.RunFlatKeys checks the flat variant).
//   - No staging objects exist: a put (multipart included) appears whole
//     when S3 acknowledges it, durable, or not at all.
//   - A PutIfAbsent whose earlier attempt failed ambiguously (5xx, a
//     lost connection) and whose retry finds the key taken reads the
//     object back: identical bytes mean our own write landed (nil), not
//     a lost race. Commit points carry unique identifiers, so two
//     writers never race with identical bytes.
//   - Delete is HeadObject + DeleteObject (S3 deletes a missing key
//     silently); two racing deletes may both succeed.
//
// S3 counts its HTTP requests by kind (Requests): the unit object
// storage bills and rate-limits, finer than Counting's store calls. It
// can keep recent ranges of immutable objects in memory, bounded in
// bytes (CacheImmutableReads, as Local keeps their files open): a read
// inside any cached range is served from it, the store's own successful
// writes of an immutable key cache the object whole, its other writes
// drop the key's ranges, and a read racing a write is not cached. It
// answers Stat of such a key from memory too, once this store wrote it
// or sent one HeadObject for it (s3_statcache.go): Lance stats a data
// file before reading it, a dependent round trip of every commit and
// point read otherwise.
// CacheImmutableReadsOnDisk adds a second tier in files under a local
// directory that outlives the process (checksummed, bounded, locked to
// one process). CacheOwnWrites adds keys only their writer rewrites (Lance transaction
// files): cached when this store writes them, never filled by reads.
//
// PutNew (NewPutter, putnew.go) is a third, narrower way to create: an
// object under a fresh key that nothing references until a later commit
// point (Lance data, deletion and staged transaction files). Local writes
// it under its final name with O_EXCL and fsyncs the file and the
// directory at the same time (one ordered round instead of two); a crash
// may leave it missing, empty or partial, which is harmless only
// because nothing references it yet (docs/write-protocol.md §7.2).
// Stores without it use PutIfAbsent. PutIfAbsentAfter publishes a
// put-if-absent only after other work (the files it references) is
// done, writing and fsyncing its staging file meanwhile on Local. Local
// coalesces concurrent fsyncs of one directory (local_dirsync.go).
//
// DurableRounds (rounds.go) counts, per context, the ordered durability
// waits (fsyncs, S3 writes) of an operation: a commit's
// pggraph_commit_durable_rounds.
//
// Backends: Local (POSIX filesystem), S3 and Mem (in memory, with a model of
// synced vs unsynced state so tests can simulate power loss mid-write).
// Wrappers: Faulty (fail the Nth operation once, persistently, or crash),
// Counting (operations, bytes, fsyncs, dependent round trips) and Tracing
// (exact operation sequences for golden files). The storetest package is
// the one contract suite all of them pass.
package objstore
