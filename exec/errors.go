package exec

import (
	"errors"
	"fmt"

	"github.com/pggraph/pggraph/pgerr"
)

// SQLSTATE codes the executor raises.
const (
	CodeSyntaxError              = pgerr.SyntaxError
	CodeUndefinedTable           = pgerr.UndefinedTable
	CodeUndefinedColumn          = pgerr.UndefinedColumn
	CodeUndefinedFunction        = pgerr.UndefinedFunction
	CodeAmbiguousColumn          = pgerr.AmbiguousColumn
	CodeAmbiguousFunction        = pgerr.AmbiguousFunction
	CodeDuplicateAlias           = pgerr.DuplicateAlias
	CodeGroupingError            = pgerr.GroupingError
	CodeDatatypeMismatch         = pgerr.DatatypeMismatch
	CodeUndefinedParameter       = pgerr.UndefinedParameter
	CodeIndeterminateDatatype    = pgerr.IndeterminateDatatype
	CodeInvalidColumnReference   = pgerr.InvalidColumnReference
	CodeWindowingError           = pgerr.WindowingError
	CodeCannotCoerce             = pgerr.CannotCoerce
	CodeUndefinedObject          = pgerr.UndefinedObject
	CodeInvalidRecursion         = pgerr.InvalidRecursion
	CodeInvalidObjectDefinition  = pgerr.InvalidObjectDefinition
	CodeDuplicateColumn          = pgerr.DuplicateColumn
	CodeInvalidTableDefinition   = pgerr.InvalidTableDefinition
	CodeNumericOutOfRange        = pgerr.NumericValueOutOfRange
	CodeDivisionByZero           = pgerr.DivisionByZero
	CodeInvalidTextRepr          = pgerr.InvalidTextRepresentation
	CodeInvalidDatetimeFormat    = pgerr.InvalidDatetimeFormat
	CodeDatetimeFieldOverflow    = pgerr.DatetimeFieldOverflow
	CodeStringDataRightTrunc     = pgerr.StringDataRightTruncation
	CodeInvalidParameterValue    = pgerr.InvalidParameterValue
	CodeInvalidRegex             = pgerr.InvalidRegularExpression
	CodeInvalidEscapeSequence    = pgerr.InvalidEscapeSequence
	CodeArraySubscriptError      = pgerr.ArraySubscriptError
	CodeInvalidRowCountLimit     = pgerr.InvalidRowCountInLimitClause
	CodeInvalidRowCountOffset    = pgerr.InvalidRowCountInResultOffsetClause
	CodeCardinalityViolation     = pgerr.CardinalityViolation
	CodeNullValueNotAllowed      = pgerr.NullValueNotAllowed
	CodeInvalidArgumentForLog    = pgerr.InvalidArgumentForLogarithm
	CodeInvalidArgumentPower     = pgerr.InvalidArgumentForPowerFunction
	CodeFeatureNotSupported      = pgerr.FeatureNotSupported
	CodeOutOfMemory              = pgerr.OutOfMemory
	CodeQueryCanceled            = pgerr.QueryCanceled
	CodeProgramLimitExceeded     = pgerr.ProgramLimitExceeded
	CodeStackDepthExceeded       = pgerr.StatementTooComplex
	CodeInternalError            = pgerr.InternalError
	CodeProtocolViolation        = pgerr.ProtocolViolation
	CodeInvalidJSONText          = pgerr.InvalidJSONText
	CodeCharacterNotInRepertoire = pgerr.CharacterNotInRepertoire
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
