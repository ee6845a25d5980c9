// Package seq allocates sequence values (nextval/currval/setval/lastval)
// for serial and identity columns and CREATE SEQUENCE, durably and
// without coordination between processes.
//
// Model: a sequence's values are handed out in blocks. Block k of the
// sequence with key K is the object sequences/K/<k, 20 digits> in the
// graph root's store, holding {first, count, inc, next, end}: the values
// first, first+inc, … (count of them) and the value the next block
// starts at. A process claims block k+1 by PutIfAbsent after reading
// block k; the winner owns those values, a loser reads the winner's
// block and tries k+2. Blocks are contiguous and never deleted, so the
// tail (found from an advisory hint object, or a listing, then probing
// forward) always tells where the next block starts. setval writes a
// block with no values that only moves next.
//
// The process caches its current block and hands values out of it under
// a per-sequence mutex. Block size starts at max(CACHE, 32) and doubles
// (up to 65536) while blocks are used up within a second, so a bulk load
// costs a few durable writes. Session holds currval/lastval per
// connection.
//
// Invariants:
//   - No value is handed out twice by any number of goroutines,
//     allocators or processes sharing the store: each value belongs to
//     exactly one block, and a block to the one PutIfAbsent that created
//     it.
//   - Crashes and restarts leave gaps (unused values of claimed blocks),
//     never duplicates. Sequences are not transactional, as in
//     PostgreSQL: a rolled-back transaction does not return its values.
//   - Sequence keys are global to the graph root: a branch that inherits
//     a table inherits its sequence key, so branches that later merge
//     never produce the same serial id. SetVal moves a key for every
//     branch sharing it, so restarts re-key the sequence in the branch's
//     catalog instead (planner/ddl: RESTART, TRUNCATE … RESTART IDENTITY,
//     Planner.Rekey before a setval).
//   - Exhaustion answers 2200H, currval/lastval before nextval 55000,
//     setval out of range 22003, with PostgreSQL's messages.
//   - Corrupt stored blocks give ErrCorrupt, never a panic.
package seq
