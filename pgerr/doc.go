// Package pgerr is the PostgreSQL error every layer of pgproxy returns
// when it wants the client to see a particular SQLSTATE: code, message,
// detail, hint, statement position and the ErrorResponse fields drivers
// read (schema, table, column, data type, constraint).
//
// Model:
//   - The SQLSTATE constants are generated (go generate) from
//     errcodes.txt, the data lines of PostgreSQL's own list, so every code
//     PostgreSQL can send has a name here and the PL/pgSQL condition
//     names (unique_violation, …) resolve to the same codes
//     (ConditionCodes). internal/gencodes checks that codes.go is current.
//   - An *Error is what the client receives; the protocol server (wire)
//     turns it into an ErrorResponse or NoticeResponse and is the only
//     place that does. Any other error reaching the client becomes XX000
//     "internal error", never its Go text.
//   - The executor returns *Error too (exec.Error is an alias). Its
//     Placement, never sent, says which text Position counts in, so a
//     caller that rewrote the statement before the executor parsed it
//     keeps only positions already in the client's text.
//   - Internal wraps an unexpected Go error as XX000 and keeps the stack
//     of the place that wrapped it, for the server log only: Stack and
//     Cause are never sent.
//
// The package is a leaf: it imports nothing of the module, so every
// layer may use it (docs/architecture.md, "Layers").
package pgerr

//go:generate go run ./internal/gencodes -in errcodes.txt -out codes.go
