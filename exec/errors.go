package exec

import (
	"errors"
	"fmt"

	"github.com/pggraph/pggraph/pgerr"
)

// SQLSTATE codes the executor raises.
const (
	CodeSyntaxError              = "42601"
	CodeUndefinedTable           = "42P01"
	CodeUndefinedColumn          = "42703"
	CodeUndefinedFunction        = "42883"
	CodeAmbiguousColumn          = "42702"
	CodeAmbiguousFunction        = "42725"
	CodeDuplicateAlias           = "42712"
	CodeGroupingError            = "42803"
	CodeDatatypeMismatch         = "42804"
	CodeUndefinedParameter       = "42P02"
	CodeIndeterminateDatatype    = "42P18"
	CodeInvalidColumnReference   = "42P10"
	CodeWindowingError           = "42P20"
	CodeCannotCoerce             = "42846"
	CodeUndefinedObject          = "42704"
	CodeInvalidRecursion         = "42P19"
	CodeInvalidObjectDefinition  = "42P17"
	CodeDuplicateColumn          = "42701"
	CodeInvalidTableDefinition   = "42P16"
	CodeNumericOutOfRange        = "22003"
	CodeDivisionByZero           = "22012"
	CodeInvalidTextRepr          = "22P02"
	CodeInvalidDatetimeFormat    = "22007"
	CodeDatetimeFieldOverflow    = "22008"
	CodeStringDataRightTrunc     = "22001"
	CodeInvalidParameterValue    = "22023"
	CodeInvalidRegex             = "2201B"
	CodeInvalidEscapeSequence    = "22025"
	CodeArraySubscriptError      = "2202E"
	CodeInvalidRowCountLimit     = "2201W"
	CodeInvalidRowCountOffset    = "2201X"
	CodeCardinalityViolation     = "21000"
	CodeNullValueNotAllowed      = "22004"
	CodeInvalidArgumentForLog    = "2201E"
	CodeInvalidArgumentPower     = "2201F"
	CodeFeatureNotSupported      = "0A000"
	CodeOutOfMemory              = "53200"
	CodeQueryCanceled            = "57014"
	CodeProgramLimitExceeded     = "54000"
	CodeStackDepthExceeded       = "54001"
	CodeInternalError            = "XX000"
	CodeProtocolViolation        = "08P01"
	CodeInvalidJSONText          = "22032"
	CodeCharacterNotInRepertoire = "22021"
)

// Error is the executor's error: the one PostgreSQL error every layer
// returns (pgerr.Error), so the protocol server sends it as it is. The
// executor records in Placement which text its Position counts in.
type Error = pgerr.Error

// errf builds an *Error with a formatted message.
func errf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// unsupported is the 0A000 error for anything the engine does not implement.
func unsupported(format string, args ...any) *Error {
	return &Error{Code: CodeFeatureNotSupported, Message: fmt.Sprintf(format, args...)}
}

// Code returns the SQLSTATE of err, or "" when err carries none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// IsFeatureNotSupported reports whether err is a 0A000 error.
func IsFeatureNotSupported(err error) bool { return Code(err) == CodeFeatureNotSupported }

// IsOutOfMemory reports whether err is the 53200 memory-budget error.
func IsOutOfMemory(err error) bool { return Code(err) == CodeOutOfMemory }

// IsCanceled reports whether err is a 57014 cancellation.
func IsCanceled(err error) bool { return Code(err) == CodeQueryCanceled }

// IsDivisionByZero reports whether err is a 22012 error.
func IsDivisionByZero(err error) bool { return Code(err) == CodeDivisionByZero }

// IsNumericOutOfRange reports whether err is a 22003 error.
func IsNumericOutOfRange(err error) bool { return Code(err) == CodeNumericOutOfRange }

// IsUndefined reports whether err names a missing table, column or function.
func IsUndefined(err error) bool {
	switch Code(err) {
	case CodeUndefinedTable, CodeUndefinedColumn, CodeUndefinedFunction, CodeUndefinedObject:
		return true
	}
	return false
}

func errDivZero() *Error { return errf(CodeDivisionByZero, "division by zero") }

// ErrSourceShape is returned by a TableSource whose batches do not have
// the requested shape.
var ErrSourceShape = &Error{Code: CodeInternalError, Message: "table source returned a batch of the wrong shape"}
