package pgerr

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// Severities as PostgreSQL spells them.
const (
	SeverityError   = "ERROR"
	SeverityFatal   = "FATAL"
	SeverityPanic   = "PANIC"
	SeverityWarning = "WARNING"
	SeverityNotice  = "NOTICE"
)

// Error is a PostgreSQL error or notice: what the client sees in an
// ErrorResponse or NoticeResponse.
type Error struct {
	Severity   string // ERROR unless set (FATAL closes the connection)
	Code       string // SQLSTATE, five characters
	Message    string
	Detail     string
	Hint       string
	Position   int32 // 1-based character position in the statement text, 0 if none
	Where      string
	Schema     string
	Table      string
	Column     string
	DataType   string
	Constraint string
	Cause      error  // the underlying Go error, for logs and errors.Is; never sent
	Stack      []byte // where an internal error was wrapped (Internal); never sent
	// Placement says which text Position counts in, for layers that
	// rewrite a statement before the executor parses it; never sent.
	Placement Placement
}

// Placement records how an error's Position relates to the client's
// statement. The executor positions an error in the text it parsed; a
// caller that handed it rewritten text (the planner's DML) drops such a
// position unless it is already in the client's statement.
type Placement uint8

// Placements.
const (
	// PlacedInParsed: Position (if any) counts in the text the executor
	// parsed; the executor may attach one where it has none.
	PlacedInParsed Placement = iota
	// PlacedInClient: Position is already in the client's statement (a
	// rewriting caller passed it in) and survives the rewrite.
	PlacedInClient
	// Unplaced: PostgreSQL reports this error without a position even
	// where a name in the text caused it (a view's rules recursing), so
	// none is attached.
	Unplaced
)

// Errorf builds an ERROR with the given SQLSTATE.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Severity: SeverityError, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Internal wraps an unexpected error as XX000 "internal error", keeping
// err as the cause and the caller's stack for the log. The client sees
// neither.
func Internal(err error) *Error {
	return &Error{Severity: SeverityError, Code: InternalError, Message: "internal error", Cause: err, Stack: debug.Stack()}
}

func (e *Error) Error() string {
	sev := e.Severity
	if sev == "" {
		sev = SeverityError
	}
	return fmt.Sprintf("%s: %s (SQLSTATE %s)", sev, e.Message, e.Code)
}

func (e *Error) Unwrap() error { return e.Cause }

// SQLState is the error's code (the method pgconn.PgError also has, so a
// caller can read a SQLSTATE from either through one interface).
func (e *Error) SQLState() string { return e.Code }

// WithDetail returns a copy of e carrying detail.
func (e *Error) WithDetail(detail string) *Error { c := *e; c.Detail = detail; return &c }

// WithHint returns a copy of e carrying hint.
func (e *Error) WithHint(hint string) *Error { c := *e; c.Hint = hint; return &c }

// WithPosition returns a copy of e carrying a 1-based statement position.
func (e *Error) WithPosition(pos int32) *Error { c := *e; c.Position = pos; return &c }

// WithConstraint returns a copy of e naming the table and constraint an
// integrity violation is about (ErrorResponse fields s, t and n): drivers
// read them (psycopg's diag.constraint_name, pgx's ConstraintName) and
// ORMs map them to the model field that failed, so they are sent as
// PostgreSQL sends them.
func (e *Error) WithConstraint(schema, table, constraint string) *Error {
	c := *e
	c.Schema, c.Table, c.Constraint = schema, table, constraint
	return &c
}

// WithColumn returns a copy of e naming the table and column a not-null
// violation is about (fields s, t and c), as PostgreSQL does.
func (e *Error) WithColumn(schema, table, column string) *Error {
	c := *e
	c.Schema, c.Table, c.Column = schema, table, column
	return &c
}

// Fatal reports whether the error ends the connection.
func (e *Error) Fatal() bool { return e.Severity == SeverityFatal || e.Severity == SeverityPanic }

// Code returns the SQLSTATE carried by err (an *Error it wraps, or any
// error with a SQLState method), or "" when it carries none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var s interface{ SQLState() string }
	if errors.As(err, &s) {
		return s.SQLState()
	}
	return ""
}

// Message returns the text of err as a client reads it inside another
// message or a detail: an *Error's Message (Error adds the severity and
// SQLSTATE, for logs), any other error's Error.
func Message(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Message
	}
	return err.Error()
}

// IsCode reports whether err carries the given SQLSTATE.
func IsCode(err error, code string) bool { return Code(err) == code }

// ConditionCodes returns the SQLSTATEs a PL/pgSQL condition name stands
// for (nil if the name is unknown).
func ConditionCodes(name string) []string { return conditions[name] }

// ConditionName returns the condition name of a SQLSTATE ("" if none).
func ConditionName(code string) string { return conditionNames[code] }

// Class returns the two-character class of a SQLSTATE ("23" for every
// integrity constraint violation).
func Class(code string) string {
	if len(code) < 2 {
		return ""
	}
	return code[:2]
}
