// Package replication holds what PostgreSQL's logical replication needs
// besides the protocol framing (package wire) and the change feed
// (package planner): log sequence numbers for graph commits, the
// replication slots and publications stored durably in the graph root,
// and the pgoutput message encoder.
//
// # LSNs
//
// A graph commit is one transaction of the stream. Its manifest version
// v (versions only grow along a branch's history, forks included)
// gives every position of it: the messages of commit v sit at
// v<<32 + i (Begin at i = 0, then one per change), and its Commit and
// end LSN, which a consumer confirms, at (v+1)<<32 - 1, whatever the
// commit holds (so positions do not move when publications change). A
// slot created at head version h starts at (h+1)<<32, so exactly the
// commits after h are streamed. LSNs print as PostgreSQL's "%X/%X", so
// "7/0" is the Begin of manifest version 7.
//
// # Storage
//
// Slots and publications are JSON objects under __replication/ in the
// root (slots/<name>.json, publications/<hex name>.json): created with
// PutIfAbsent (so two processes cannot both create one name), replaced
// atomically with Put (a slot's confirmed_flush only moves forward) and
// deleted with Delete. Every objstore write is durable when it returns,
// so a slot confirmed before a crash restarts where it was confirmed.
// They belong to the root, not to a branch's commits: creating or
// dropping one is not transactional (the SQL layer refuses it inside a
// transaction block). Cleanup (package adapters) keeps every manifest
// version a slot can still stream (ManifestFloors).
package replication
