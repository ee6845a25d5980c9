package ddl

import (
	"errors"
	"fmt"

	"github.com/pggraph/pggraph/pgerr"
)

// SQLSTATE codes the planner answers with (PostgreSQL's class 42, 2B, 0A, …).
const (
	CodeDuplicateTable          = pgerr.DuplicateTable
	CodeUndefinedTable          = pgerr.UndefinedTable
	CodeUndefinedColumn         = pgerr.UndefinedColumn
	CodeDuplicateColumn         = pgerr.DuplicateColumn
	CodeDatatypeMismatch        = pgerr.DatatypeMismatch
	CodeInvalidTableDefinition  = pgerr.InvalidTableDefinition
	CodeInvalidForeignKey       = pgerr.InvalidForeignKey
	CodeDependentObjects        = pgerr.DependentObjectsStillExist
	CodeFeatureNotSupported     = pgerr.FeatureNotSupported
	CodeSyntaxError             = pgerr.SyntaxError
	CodeUndefinedObject         = pgerr.UndefinedObject
	CodeDuplicateObject         = pgerr.DuplicateObject
	CodeDuplicateSchema         = pgerr.DuplicateSchema
	CodeInvalidSchemaName       = pgerr.InvalidSchemaName
	CodeWrongObjectType         = pgerr.WrongObjectType
	CodeInvalidParameterValue   = pgerr.InvalidParameterValue
	CodeInvalidColumnReference  = pgerr.InvalidColumnReference
	CodeInvalidObjectDefinition = pgerr.InvalidObjectDefinition
	CodeNumericOutOfRange       = pgerr.NumericValueOutOfRange
	CodeObjectNotInState        = pgerr.ObjectNotInPrerequisiteState
	CodeSequenceLimit           = pgerr.SequenceGeneratorLimitExceeded
	CodeInvalidName             = pgerr.InvalidName
	CodeUniqueViolation         = pgerr.UniqueViolation
	CodeGroupingError           = pgerr.GroupingError
	CodeWindowingError          = pgerr.WindowingError
)

// errorf builds the PostgreSQL error a client sees (a *pgerr.Error).
func errorf(code, format string, args ...any) *pgerr.Error {
	return pgerr.Errorf(code, format, args...)
}

// Code returns the SQLSTATE of err ("" when err carries none).
func Code(err error) string {
	var we *pgerr.Error
	if errors.As(err, &we) {
		return we.Code
	}
	return ""
}

// IsUndefinedTable reports a missing relation (42P01).
func IsUndefinedTable(err error) bool { return Code(err) == CodeUndefinedTable }

// IsDuplicateTable reports a relation name already in use (42P07).
func IsDuplicateTable(err error) bool { return Code(err) == CodeDuplicateTable }

// IsNotSupported reports a statement or option pggraph does not implement (0A000).
func IsNotSupported(err error) bool { return Code(err) == CodeFeatureNotSupported }

// IsDependentObjects reports a DROP refused because other objects depend on the target (2BP01).
func IsDependentObjects(err error) bool { return Code(err) == CodeDependentObjects }

// notSupported is 0A000 naming what is not supported.
// revokeNotSupported refuses a statement that takes privileges away:
// object privileges are not enforced, so it could not take effect.
func revokeNotSupported(what string) *pgerr.Error {
	return notSupported("%s", what).WithDetail("Object privileges are not enforced: every role may use every table, view and sequence, so a revoked privilege would still be usable.").
		WithHint("Restrict who reaches a branch with pg_hba rules (--hba).")
}

func notSupported(format string, args ...any) *pgerr.Error {
	return errorf(CodeFeatureNotSupported, "%s is not supported", fmt.Sprintf(format, args...))
}
