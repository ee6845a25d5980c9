// Package deletion reads and writes Lance deletion files: the set of
// deleted row offsets (0-based, within one fragment) of a fragment.
//
// Two formats exist. ".arrow" (DeletionFile.file_type ARROW_ARRAY = 0) is an
// Arrow IPC file with one record batch whose schema is exactly
// `row_id: uint32 not null`; Lance writes it with ZSTD body compression and
// uses it for up to 5000 deleted rows. ".bin" (BITMAP = 1) is a 32-bit
// Roaring bitmap in the portable serialization. We always write ".bin" and
// read both.
//
// Keys are `_deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}` where
// id is a random u64 printed in decimal (relative to the dataset or branch
// root).
//
// Invariants: decoding untrusted bytes never panics (decoder panics inside
// the Arrow and Roaring libraries are turned into ErrCorrupt) and returns
// *Error wrapping ErrCorrupt; every row offset fits in u32.
package deletion
