// Package graph owns a graph root: the directory (or bucket prefix) that
// holds one versioned property graph.
//
// This file set covers the root's identity. A root is marked by the
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
