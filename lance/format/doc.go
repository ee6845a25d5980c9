// Package format holds hand-written protobuf codecs (protowire, from
// field numbers) for the Lance table-level messages pggraph reads and
// writes: Manifest (and its nested WriterVersion, DataStorageFormat,
// BasePath, maps and timestamp), DataFragment, DataFile, DeletionFile,
// Transaction with its operations (Append, Delete, Overwrite, Rewrite,
// Merge, Restore, ReserveFragments, Update, Clone, Project, UpdateConfig,
// DataReplacement; any other operation is kept as raw bytes), and the
// manifest file framing.
//
// Model and invariants:
//   - Decoding never panics and never trusts a length: malformed bytes
//     give a *CorruptError (IsCorrupt). Decoded values do not alias the
//     input buffer.
//   - Unknown fields of every message are kept in its Unknown slice, in
//     their original order, and re-emitted after the known fields.
//   - A Fragment remembers the bytes it was decoded from: if it is
//     re-encoded unchanged (compared through its canonical encoding) it
//     is emitted byte-exact, so entries written by newer Lance versions
//     survive being carried over to a new manifest.
//   - The schema (lance.file.Field messages) is kept as raw bytes here;
//     package lance/schema interprets it.
//   - Encoding follows proto3: zero scalars are omitted, `optional`
//     fields are pointers and emitted whenever set, maps are emitted in
//     key order.
//   - CheckWritable refuses (UnsupportedError, IsUnsupported) manifests
//     that use a feature flag we do not implement (stable row ids,
//     unknown bits) or an index section; EncodeManifestFile refuses an
//     index section too.
package format
