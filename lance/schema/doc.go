// Package schema maps between Lance's schema model and Arrow schemas.
//
// Lance stores a schema as a flat, depth-first list of Field protobuf
// messages (package lance.file): every field carries an id, the id of its
// parent (-1 for a top-level column), a name, a logical-type string such as
// "int64", "large_string", "timestamp:us:UTC", "decimal:128:10:2" or
// "fixed_size_list:float:128", a nullable flag and a metadata map. The same
// message appears in a data file's FileDescriptor and in a dataset manifest,
// so this package is shared by lance/file and lance/format.
// ParseLogicalType also reads "list:<element type>" and
// "large_list:<element type>" (a list of a nullable "item"), which Lance
// never writes (its list fields say "list" and carry a child field) but
// graph column definitions use for SQL arrays.
//
// Invariants:
//   - EncodeField/DecodeField are a hand-written protowire codec. Fields this
//     package does not model (e.g. the legacy dictionary message, or fields
//     added by newer Lance versions) are kept verbatim in Field.Unknown and
//     re-emitted, so an entry carried over unchanged keeps newer data.
//   - FromArrow assigns ids depth-first from 0 (parent before children), the
//     way Lance numbers a new dataset; lists have exactly one child field,
//     structs one per member, fixed-size lists none (the element type lives in
//     the logical type string).
//   - ToArrow accepts fields in any order as long as a parent precedes its
//     children, and fails with a *Error (IsUnsupportedType / IsMalformed)
//     instead of guessing.
//   - PlainEncodingMetadata is the field metadata that steers later Lance
//     writers (appends, compaction, merge-insert by the official Lance) to
//     flat/variable value buffers, which our reader decodes without the
//     compressive encodings.
package schema
