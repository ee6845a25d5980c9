// Package repotest holds tests about the repository itself rather than
// about one package: that no package imports a layer above it
// (imports_test.go, the layering of docs/architecture.md, "Layers", with
// today's known exceptions reported), that code names SQLSTATEs by their
// pgerr constants (sqlstate_test.go), and that code comments cite only
// what a reader of the repository has (citations_test.go: its own docs,
// never files outside it or issue numbers). It has no code of its own.
//
// Invariants:
//   - The tests read the source tree from the module root (two levels up)
//     and change nothing.
//   - Every rule is stated in docs/ (docs/architecture.md, "Layers";
//     docs/write-protocol.md) and the test names the file and line that
//     breaks it.
package repotest
