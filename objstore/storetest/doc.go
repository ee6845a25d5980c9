// Package storetest is the contract every objstore.Store must meet,
// written once and run against every backend and every wrapper.
//
// Run checks the semantics of each call (typed errors, ranges, listing
// order and prefixes, key validation, replace and create-if-absent),
// atomicity under concurrency (exactly one PutIfAbsent winner per key;
// readers of a key being replaced see the old or the new bytes, never a
// mix) and cancellation. RunPowerLoss checks, for stores that can
// simulate a power failure, that synced data always survives and that no
// object is ever half-written. Multi-process races are driven by the
// objstore package's own tests, which re-execute the test binary.
package storetest
