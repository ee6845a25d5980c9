package wire

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pggraph/pggraph/pgerr"
)

// SQLSTATE codes used by this package, named as the layers above use
// them (pgerr has every code PostgreSQL defines).
const (
	CodeSuccessfulCompletion     = pgerr.SuccessfulCompletion
	CodeWarning                  = pgerr.Warning
	CodeProtocolViolation        = pgerr.ProtocolViolation
	CodeFeatureNotSupported      = pgerr.FeatureNotSupported
	CodeInvalidParameterValue    = pgerr.InvalidParameterValue
	CodeInvalidTextRepresent     = pgerr.InvalidTextRepresentation
	CodeCharacterNotInRepertoire = pgerr.CharacterNotInRepertoire
	CodeInvalidBinaryRepresent   = pgerr.InvalidBinaryRepresentation
	CodeDataException            = pgerr.DataException
	CodeInvalidDatetimeFormat    = pgerr.InvalidDatetimeFormat
	CodeActiveSQLTransaction     = pgerr.ActiveSQLTransaction
	CodeNoActiveSQLTransaction   = pgerr.NoActiveSQLTransaction
	CodeInFailedSQLTransaction   = pgerr.InFailedSQLTransaction
	CodeIdleInTransactionTimeout = pgerr.IdleInTransactionSessionTimeout
	CodeIdleSessionTimeout       = pgerr.IdleSessionTimeout
	CodeInvalidAuthorization     = pgerr.InvalidAuthorizationSpecification
	CodeInvalidPassword          = pgerr.InvalidPassword
	CodeInvalidSQLStatementName  = pgerr.InvalidSQLStatementName
	CodeInvalidCursorName        = pgerr.InvalidCursorName
	CodeInvalidCatalogName       = pgerr.InvalidCatalogName
	CodeSavepointException       = pgerr.InvalidSavepointSpecification
	CodeSyntaxError              = pgerr.SyntaxError
	CodeUndefinedObject          = pgerr.UndefinedObject
	CodeInsufficientPrivilege    = pgerr.InsufficientPrivilege
	CodeDuplicatePreparedStmt    = pgerr.DuplicatePreparedStatement
	CodeDuplicateCursor          = pgerr.DuplicateCursor
	CodeDiskFull                 = pgerr.DiskFull
	CodeOutOfMemory              = pgerr.OutOfMemory
	CodeTooManyConnections       = pgerr.TooManyConnections
	CodeProgramLimitExceeded     = pgerr.ProgramLimitExceeded
	CodeObjectNotInState         = pgerr.ObjectNotInPrerequisiteState
	CodeCantChangeRuntimeParam   = pgerr.CantChangeRuntimeParam
	CodeQueryCanceled            = pgerr.QueryCanceled
	CodeIOError                  = pgerr.IOError
	CodeAdminShutdown            = pgerr.AdminShutdown
	CodeInternalError            = pgerr.InternalError
)

// Severity of an error or notice as PostgreSQL spells it.
const (
	SeverityError   = pgerr.SeverityError
	SeverityFatal   = pgerr.SeverityFatal
	SeverityWarning = pgerr.SeverityWarning
	SeverityNotice  = pgerr.SeverityNotice
)

// Error is a PostgreSQL error or notice (pgerr.Error): what the client
// sees in an ErrorResponse or NoticeResponse. The session layer returns
// *Error (or an error wrapping one) to control exactly what the client
// receives; any other error becomes XX000 with a generic message, never
// the raw Go text. This package is the only one that encodes it.
type Error = pgerr.Error

// Errorf builds an ERROR with the given SQLSTATE.
func Errorf(code, format string, args ...any) *Error {
	return pgerr.Errorf(code, format, args...)
}

// errorResponse encodes e as the ErrorResponse the client receives.
func errorResponse(e *Error) *pgproto3.ErrorResponse {
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

// noticeResponse encodes e as a NoticeResponse (NOTICE unless e has a
// severity).
func noticeResponse(e *Error) *pgproto3.NoticeResponse {
	m := errorResponse(e)
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
			return &Error{Severity: SeverityFatal, Code: pgerr.ConnectionFailure, Message: "connection to client lost", Cause: err}
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
