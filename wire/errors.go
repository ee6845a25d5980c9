package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
)

// SQLSTATE codes used by this package. The SQL layer may use any other
// PostgreSQL code in an *Error it returns; these are the ones wire itself
// produces.
const (
	CodeSuccessfulCompletion     = "00000"
	CodeWarning                  = "01000"
	CodeProtocolViolation        = "08P01"
	CodeFeatureNotSupported      = "0A000"
	CodeInvalidParameterValue    = "22023"
	CodeInvalidTextRepresent     = "22P02"
	CodeCharacterNotInRepertoire = "22021"
	CodeInvalidBinaryRepresent   = "22P03"
	CodeDataException            = "22000"
	CodeInvalidDatetimeFormat    = "22007"
	CodeActiveSQLTransaction     = "25001"
	CodeNoActiveSQLTransaction   = "25P01"
	CodeInFailedSQLTransaction   = "25P02"
	CodeIdleInTransactionTimeout = "25P03"
	CodeIdleSessionTimeout       = "57P05"
	CodeInvalidAuthorization     = "28000"
	CodeInvalidPassword          = "28P01"
	CodeInvalidSQLStatementName  = "26000"
	CodeInvalidCursorName        = "34000"
	CodeInvalidCatalogName       = "3D000"
	CodeSavepointException       = "3B001"
	CodeSyntaxError              = "42601"
	CodeUndefinedObject          = "42704"
	CodeInsufficientPrivilege    = "42501"
	CodeDuplicatePreparedStmt    = "42P05"
	CodeDuplicateCursor          = "42P03"
	CodeDiskFull                 = "53100"
	CodeOutOfMemory              = "53200"
	CodeTooManyConnections       = "53300"
	CodeProgramLimitExceeded     = "54000"
	CodeObjectNotInState         = "55000"
	CodeCantChangeRuntimeParam   = "55P02"
	CodeQueryCanceled            = "57014"
	CodeIOError                  = "58030"
	CodeAdminShutdown            = "57P01"
	CodeInternalError            = "XX000"
)

// Severity of an error or notice as PostgreSQL spells it.
const (
	SeverityError   = "ERROR"
	SeverityFatal   = "FATAL"
	SeverityWarning = "WARNING"
	SeverityNotice  = "NOTICE"
)

// Error is a PostgreSQL error or notice: what the client sees in an
// ErrorResponse or NoticeResponse. The session layer returns *Error (or an
// error wrapping one) to control exactly what the client receives; any
// other error becomes XX000 with a generic message, never the raw Go text.
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
	Cause      error // the underlying Go error, for logs and errors.Is; never sent
}

// Errorf builds an ERROR with the given SQLSTATE.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Severity: SeverityError, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	sev := e.Severity
	if sev == "" {
		sev = SeverityError
	}
	return fmt.Sprintf("%s: %s (SQLSTATE %s)", sev, e.Message, e.Code)
}

func (e *Error) Unwrap() error { return e.Cause }

// SQLState is the error's code (the method pgconn.PgError also has, so
// other packages can keep a SQLSTATE without importing wire).
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
func (e *Error) Fatal() bool { return e.Severity == SeverityFatal || e.Severity == "PANIC" }

func (e *Error) toMessage() *pgproto3.ErrorResponse {
	sev := e.Severity
	if sev == "" {
		sev = SeverityError
	}
	code := e.Code
	if len(code) != 5 {
		code = CodeInternalError
	}
	return &pgproto3.ErrorResponse{
		Severity: sev, SeverityUnlocalized: sev, Code: code, Message: e.Message,
		Detail: e.Detail, Hint: e.Hint, Position: e.Position, Where: e.Where,
		SchemaName: e.Schema, TableName: e.Table, ColumnName: e.Column,
		DataTypeName: e.DataType, ConstraintName: e.Constraint,
	}
}

func (e *Error) toNotice() *pgproto3.NoticeResponse {
	m := e.toMessage()
	if e.Severity == "" {
		m.Severity, m.SeverityUnlocalized = SeverityNotice, SeverityNotice
	}
	n := pgproto3.NoticeResponse(*m)
	return &n
}

// Code returns the SQLSTATE carried by err, or "" when err carries none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// IsCode reports whether err carries the given SQLSTATE.
func IsCode(err error, code string) bool { return Code(err) == code }

// IsCanceled reports whether err is a statement cancellation (57014), by
// CancelRequest or statement_timeout.
func IsCanceled(err error) bool { return IsCode(err, CodeQueryCanceled) }

// IsAuthFailure reports whether err is a failed login (28P01 or 28000).
func IsAuthFailure(err error) bool {
	c := Code(err)
	return c == CodeInvalidPassword || c == CodeInvalidAuthorization
}

// IsProtocolViolation reports whether err is a malformed or out-of-order
// message from the client (08P01).
func IsProtocolViolation(err error) bool { return IsCode(err, CodeProtocolViolation) }

// IsTooManyConnections reports whether err is the connection limit (53300).
func IsTooManyConnections(err error) bool { return IsCode(err, CodeTooManyConnections) }

// Cancellation causes attached to a statement context, so the session layer
// (and wire) can tell why a context ended.
var (
	ErrCancelRequested  = errors.New("wire: cancel requested by client")
	ErrStatementTimeout = errors.New("wire: statement timeout")
	ErrShutdown         = errors.New("wire: server shutting down")
)

// toPGError converts any error from the session layer into what the client
// receives. ctx is the statement context: if it was cancelled, the error
// becomes 57014 whatever the session returned.
func toPGError(ctx context.Context, err error) *Error {
	if ctx != nil && ctx.Err() != nil {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, ErrStatementTimeout):
			return &Error{Severity: SeverityError, Code: CodeQueryCanceled, Message: "canceling statement due to statement timeout", Cause: err}
		case errors.Is(cause, ErrShutdown):
			return &Error{Severity: SeverityFatal, Code: CodeAdminShutdown, Message: "terminating connection due to administrator command", Cause: err}
		case errors.Is(cause, errClientGone):
			return &Error{Severity: SeverityFatal, Code: "08006", Message: "connection to client lost", Cause: err}
		case errors.Is(cause, ErrCancelRequested):
			return &Error{Severity: SeverityError, Code: CodeQueryCanceled, Message: "canceling statement due to user request", Cause: err}
		}
	}
	var e *Error
	if errors.As(err, &e) {
		return refine(e)
	}
	if se := storageError(err); se != nil {
		return se
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return &Error{Severity: SeverityError, Code: CodeQueryCanceled, Message: "canceling statement due to user request", Cause: err}
	}
	return &Error{Severity: SeverityError, Code: CodeInternalError, Message: "internal error", Cause: err}
}

// shiftPosition returns e with its position moved by offset characters (a
// copy: the session's error value is not modified).
func shiftPosition(e *Error, offset int) *Error {
	if e == nil || e.Position <= 0 || offset == 0 {
		return e
	}
	c := *e
	c.Position += int32(offset)
	return &c
}

// checkUTF8 rejects text that is not valid UTF-8 (the only client
// encoding), as PostgreSQL does on receipt.
func checkUTF8(s string) *Error {
	if utf8.ValidString(s) {
		return nil
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			// report the whole sequence the lead byte announces, as PostgreSQL
			n := 1
			switch c := s[i]; {
			case c >= 0xC0 && c < 0xE0:
				n = 2
			case c >= 0xE0 && c < 0xF0:
				n = 3
			case c >= 0xF0 && c < 0xF8:
				n = 4
			}
			n = min(n, len(s)-i)
			parts := make([]string, n)
			for j := range parts {
				parts[j] = fmt.Sprintf("0x%02x", s[i+j])
			}
			return Errorf(CodeCharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": %s", strings.Join(parts, " "))
		}
		i += size
	}
	return nil
}
