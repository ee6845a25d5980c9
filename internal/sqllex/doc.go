// Package sqllex holds the pieces of PostgreSQL's lexical rules that
// more than one of pggraph's scanners needs (wire splits statements and
// reads utility commands, exec finds literals for the literal cache),
// so each rule is written once. It decides nothing about what a
// statement means. NestingBound (depth.go) is a streaming upper bound on
// how deep a statement's parse tree can nest, so the parser's caller can
// refuse what would overflow the parser's stack without parsing it.
package sqllex
