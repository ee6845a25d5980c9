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
// Filter pushdown: Lance keeps no column statistics, so a scan with
// filter hints (col op const, IS [NOT] NULL) that also needs other
// columns runs in two passes: the first reads only the filter columns and
// collects the addresses of matching rows (exec.ScanFilter.Matches); the
// second is a row-address scan, for which Lance fetches and decodes only
// the pages holding those rows and skips fragments without any. When
// more than a quarter of the rows match, the first pass stops and the
// scan falls back to a plain one (the address list would cost more than
// it saves).
//
// Invariants: a Source never returns rows deleted in its version (Lance
// applies deletion vectors); filters in a ScanRequest are hints only —
// the engine re-checks every predicate.
package lancesrc
