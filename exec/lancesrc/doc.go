// Package lancesrc adapts a pinned Lance dataset version to exec's
// TableSource and KeyLookupSource.
//
// Model: a Source wraps one *lance.Dataset (one immutable version) and the
// table's column definitions. Scans push column projection into the Lance
// scan and report Lance row addresses ((fragment << 32) | offset), so a
// transaction overlay can skip deleted rows by address.
//
// Key lookups: a lookup on a key column uses a hash index from key value
// to row addresses, then reads just the matching rows through a
// row-address scan (fragments without matches are never opened). Indexes
// live in a process-wide cache keyed by dataset (store, location, Lance
// branch) and column (indexcache.go), because every commit makes a new
// version: the index of version v+k is derived from a cached version v
// by diffing the two manifests' fragment lists (keyindex.go) — only the
// key column of fragments added since v is read (or taken from memory
// when this process wrote them: lance.Dataset.WrittenColumn, the common
// case of the previous commit's 1-row fragment), fragments removed are
// filtered out, and fragments whose deletion file changed get a bitmap
// of their live offsets from that deletion file alone (all offsets but
// the deleted ones: no scan, O(deletions) per commit). Another process's commits are just newer versions. A
// delta larger than 1/16 of the table (compaction, overwrite) or a
// fragment id whose data files changed, or live rows that were never read
// (a restore reviving deleted rows or removed fragments), falls back to
// a full build. The rows added since the base are a stack of shared
// layers (addedlayers.go: each derivation pushes one with only its new
// rows, merged like a binary counter, so a 1-row commit copies no map of
// earlier additions), merged into a new shared base once they pass that
// size. Indexes are immutable once built (versions share the
// base map), so concurrent sessions read them without locks; one
// dataset's derivations are serialized so they are computed once. The
// cache evicts least recently used datasets beyond a byte bound
// (SetIndexCacheLimit, default 256 MiB; about 50 bytes per key: keys
// with one address, all of a primary key's, are stored inline —
// addrmap.go; integer key columns use int64-keyed maps, about 24-32
// bytes per key and nothing for the garbage collector to scan). An index too large to share is kept in a spare slot
// (the newest version per dataset column, two slots), so a statement
// probing a large table batch after batch and the next version (derived
// from it) reuse it; Sources remember indexes only weakly, so a catalog
// cache holding old versions' Sources does not pin their indexes.
//
// Covering lookups (colcache.go): the rows a key lookup finds are built
// from a process-wide cache of column values per fragment (fixed-width
// integers, floats, dates, timestamps, and text), indexed by row offset,
// when every requested column is such a column — an edge table's lookup by
// src reading dst (and dst reading src) never reads edge rows. Text
// columns are copied into an offsets and a data buffer sized up front
// (no Arrow builder per lookup: its growth was a third of a covered
// lookup's time for a point or 1-hop query's few rows). Entries
// are keyed by dataset, the fragment's data files and the column's field
// id and type: Lance never rewrites a fragment's data files, so every
// version, branch checkout or time-travel read referencing them sees the
// same values, and a commit loads only the fragments it added. An entry
// records the offsets it read; a lookup reaching a row outside them
// (live in an older version, deleted when the entry was loaded) reads
// Lance instead. LRU beyond SetColumnCacheLimit (default 256 MiB). A
// fragment column is loaded only once lookups asked for 1/512 of its rows
// (rent or buy): a one-off point lookup in a big table reads its rows,
// not whole columns (measured on a 500k-row int64 column: a load 13 ms,
// a row taken from Lance 6.5 µs per column, so the break-even is near
// 1/250). Every requested column counts each lookup's demand, and one
// that reaches its share is loaded even while another column of the
// projection still reads Lance, so projections of several columns are
// bought too. A Source remembers (weakly) the entries its lookups used
// and only marks them used on the next lookup instead of building their
// keys again; an evicted entry is marked gone and the memo misses.
//
// Row fetch: ScanAddrs reads the rows at given addresses (DML fetching
// the rows it changes: only their pages are read).
//
// Storage forms: vector(n) columns are stored as
// fixed_size_list<float32>[n]; scans hand exec the list form (real[])
// through ExecForm.
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
//
// Read logs (readlog.go): a statement that runs with a ReadLog in its
// context has every read of a Source recorded at the granularity it was
// served (keys looked up, counted or probed; a key range; row addresses;
// a scan's filter hints, none meaning the whole table), per table
// version. SERIALIZABLE transactions arbitrate their reads with them
// (planner/readset.go).
package lancesrc
