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
// Backends: Local (POSIX filesystem) and Mem (in memory, with a model of
// synced vs unsynced state so tests can simulate power loss mid-write).
// Wrappers: Faulty (fail the Nth operation once, persistently, or crash),
// Counting (operations, bytes, fsyncs, dependent round trips) and Tracing
// (exact operation sequences for golden files). The storetest package is
// the one contract suite all of them pass.
package objstore
