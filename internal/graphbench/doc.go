// Package graphbench is the graph traversal benchmark of `make bench`: a
// generated social graph loaded into pgproxy and PostgreSQL 15 with the
// same indexes, and single-node traversals (1-, 2- and 3-hop
// neighbourhoods with and without property filters, 3 hops from a range
// of 100 start nodes joined to their names, friends-of-friends
// recommendations, WITH RECURSIVE to depth 4, top-k neighbours by an
// edge property (also over 2 hops), point lookups through edges,
// recursive queries with a CYCLE clause and an array-path cycle check,
// shortest paths to depth 5, a join ORDER BY the edge key DESC LIMIT 2)
// plus whole-graph queries (the out-degree
// distribution, a triangle count, three PageRank iterations in SQL)
// timed on both, every answer compared.
//
// The graph (Generate): n persons (id, name, age) and about 5 knows edges
// (src, dst, since, w) per person; out-degrees are spread 1..9 and edge
// targets follow a Zipf distribution over a shuffled id order, so
// in-degrees are power-law (a few persons are known by thousands). It is
// deterministic for a seed. pgproxy holds knows as an edge table
// (WITH (graph.kind = edge): src/dst adjacency lookups) with CREATE
// INDEX on src and dst, PostgreSQL the same table with btree indexes on
// src and dst after VACUUM ANALYZE.
//
// Timing (Run): each query runs once on both sides untimed (its answers
// compared), then Rounds times interleaved (which side goes first
// alternates), each round from another start node (the same on both
// sides); the report has the median and p95 per side and the ratio of
// the medians (PostgreSQL / pgproxy: above 1 means pgproxy is faster),
// with the targets of docs/architecture.md (single-node traversals at
// least PostgreSQL's speed, whole-graph work 5x). The CI test
// (graphbench_test.go) runs it at a small size as a correctness check;
// the command exec/cmd/graphbench runs it at full size in `make bench`.
package graphbench
