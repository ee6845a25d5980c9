// Package repotest holds tests about the repository itself rather than
// about one package: that code comments cite only what a reader of the
// repository has (its own docs, never files outside it or issue
// numbers). It has no code of its own.
//
// Invariants:
//   - The tests read the source tree from the module root (two levels up)
//     and change nothing.
//   - Every rule is stated in docs/ (docs/architecture.md, "Layers";
//     docs/write-protocol.md) and the test names the file and line that
//     breaks it.
package repotest
