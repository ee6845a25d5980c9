// Package oracle runs the official Lance implementation (npm package
// @lancedb/lancedb, pinned at exactly 0.31.0, which embeds Lance 8.0.0) from
// Go tests, so our Lance code is judged by the real thing.
//
// The JavaScript side is oracle.js in this directory; its dependencies are
// pinned by package.json and package-lock.json and installed with
//
//	npm ci --prefix internal/oracle
//
// (node_modules is not committed). When node_modules is missing, Run fails
// the test with that instruction: the oracle is never silently skipped.
//
// Values cross the boundary as JSON with a type-exact convention (see the
// header of oracle.js): 64-bit integers, timestamps and decimals as decimal
// strings of their raw integer, binary as hex, vectors and lists as arrays.
package oracle
