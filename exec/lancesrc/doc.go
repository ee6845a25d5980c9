// Package lancesrc adapts a pinned Lance dataset version to exec's
// TableSource and KeyLookupSource.
//
// Model: a Source wraps one *lance.Dataset (one immutable version) and the
// table's column definitions. Scans push column projection into the Lance
// scan and report Lance row addresses ((fragment << 32) | offset), so a
// transaction overlay can skip deleted rows by address.
//
// Key lookups: the first lookup on a key column builds a hash index from
// key value to row addresses by scanning only that column with row
// addresses; later lookups read just the matching rows through a
// row-address scan (fragments without matches are never opened). The
// index belongs to the dataset version, which never changes, so it is
// never stale; a new version gets a new Source and a new index.
//
// Invariants: a Source never returns rows deleted in its version (Lance
// applies deletion vectors); filters in a ScanRequest are hints only —
// the engine re-checks every predicate.
package lancesrc
