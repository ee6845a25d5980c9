package protocol

import (
	"errors"
	"fmt"

	"github.com/pggraph/pggraph/pgerr"
)

// ErrNoEffect is wrapped by an adapter's Apply error when it proves that
// none of its effects landed (so the armed intent is empty).
var ErrNoEffect = errors.New("protocol: no effect landed")

// noEffectFinal is an Apply failure that landed nothing and must not be
// retried (see NoEffectFinal).
type noEffectFinal struct{ err error }

func (e *noEffectFinal) Error() string { return e.err.Error() }
func (e *noEffectFinal) Unwrap() []error {
	return []error{ErrNoEffect, e.err}
}

// NoEffectFinal wraps an adapter's Apply failure that proves no effect
// landed and that re-preparing cannot fix (the input was invalid, or a
// one-shot stream was consumed): the coordinator finalizes the empty
// intent and returns err to the caller unchanged instead of restarting.
func NoEffectFinal(err error) error { return &noEffectFinal{err: err} }

// finalCause returns the error a NoEffectFinal wraps (nil if none).
func finalCause(err error) error {
	var f *noEffectFinal
	if errors.As(err, &f) {
		return f.err
	}
	return nil
}

// ErrorKind classifies protocol errors; each maps to one SQLSTATE
// (docs/architecture.md, "The write protocol").
type ErrorKind int

// Error kinds.
const (
	KindReadSetChanged    ErrorKind = iota + 1 // 40001
	KindRecoveryRequired                       // 55000
	KindContention                             // 55P03
	KindUncoveredDrift                         // 55000
	KindKeyConflict                            // 23505
	KindForeignKey                             // 23503
	KindCheck                                  // 23514
	KindNotNull                                // 23502
	KindResourceLimit                          // 54000
	KindReadOnly                               // 25006
	KindUnknownBranch                          // 3D000
	KindUnsupported                            // 0A000
	KindInvalid                                // 22023 invalid_parameter_value
	KindUndefinedTable                         // 42P01 undefined_table
	KindDuplicateTable                         // 42P07 duplicate_table
	KindInvalidDefinition                      // 42P16 invalid_table_definition
	// KindResolutionUnknown: the commit's manifest CAS failed in a way
	// that does not say whether it landed (commit path v2 has no sidecar
	// to resolve it later); PostgreSQL's transaction_resolution_unknown.
	KindResolutionUnknown // 08007
)

var sqlStates = map[ErrorKind]string{
	KindReadSetChanged: pgerr.SerializationFailure, KindRecoveryRequired: pgerr.ObjectNotInPrerequisiteState, KindContention: pgerr.LockNotAvailable,
	KindUncoveredDrift: pgerr.ObjectNotInPrerequisiteState, KindKeyConflict: pgerr.UniqueViolation, KindForeignKey: pgerr.ForeignKeyViolation,
	KindCheck: pgerr.CheckViolation, KindNotNull: pgerr.NotNullViolation, KindResourceLimit: pgerr.ProgramLimitExceeded,
	KindReadOnly: pgerr.ReadOnlySQLTransaction, KindUnknownBranch: pgerr.InvalidCatalogName, KindUnsupported: pgerr.FeatureNotSupported,
	KindInvalid: pgerr.InvalidParameterValue, KindUndefinedTable: pgerr.UndefinedTable, KindDuplicateTable: pgerr.DuplicateTable,
	KindInvalidDefinition: pgerr.InvalidTableDefinition, KindResolutionUnknown: pgerr.TransactionResolutionUnknown,
}

var kindNames = map[ErrorKind]string{
	KindReadSetChanged: "read set changed", KindRecoveryRequired: "recovery required",
	KindContention: "live writer contention", KindUncoveredDrift: "uncovered table drift",
	KindKeyConflict: "key conflict", KindForeignKey: "foreign key violation",
	KindCheck: "check violation", KindNotNull: "not null violation",
	KindResourceLimit: "resource limit", KindReadOnly: "read-only snapshot",
	KindUnknownBranch: "unknown branch", KindUnsupported: "unsupported",
	KindInvalid: "invalid write", KindUndefinedTable: "undefined table",
	KindDuplicateTable: "duplicate table", KindInvalidDefinition: "invalid table definition",
	KindResolutionUnknown: "transaction resolution unknown",
}

// Error is every error the write path returns to its callers. Message is
// safe to show a SQL client; Detail adds context (e.g. the operation id);
// Err is the cause for logs and errors.Is.
type Error struct {
	Kind        ErrorKind
	Message     string
	Detail      string
	OperationID string
	// Member names the read-set member that changed (KindReadSetChanged).
	Member string
	Err    error
}

func (e *Error) Error() string {
	s := kindNames[e.Kind] + ": " + e.Message
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// SQLState is the Postgres error code of the error.
func (e *Error) SQLState() string { return sqlStates[e.Kind] }

func newErr(k ErrorKind, op string, cause error, format string, args ...any) *Error {
	return &Error{Kind: k, OperationID: op, Err: cause, Message: fmt.Sprintf(format, args...)}
}

// Errorf builds a typed error (for adapters and the SQL layer).
func Errorf(k ErrorKind, cause error, format string, args ...any) *Error {
	return newErr(k, "", cause, format, args...)
}

func kindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// SQLState returns err's SQLSTATE ("XX000" internal_error for anything
// untyped).
func SQLState(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.SQLState()
	}
	return pgerr.InternalError
}

// IsReadSetChanged reports a pre-effect read-set change (40001).
func IsReadSetChanged(err error) bool { return kindOf(err) == KindReadSetChanged }

// IsRecoveryRequired reports an unresolved intent or a post-effect
// failure (55000).
func IsRecoveryRequired(err error) bool { return kindOf(err) == KindRecoveryRequired }

// IsContention reports a possibly live foreign writer (55P03).
func IsContention(err error) bool { return kindOf(err) == KindContention }

// IsUncoveredDrift reports a table HEAD ahead of its pin with no intent
// covering it.
func IsUncoveredDrift(err error) bool { return kindOf(err) == KindUncoveredDrift }

// IsKeyConflict reports a uniqueness violation (23505).
func IsKeyConflict(err error) bool { return kindOf(err) == KindKeyConflict }

// IsUnknownBranch reports a missing branch (3D000).
func IsUnknownBranch(err error) bool { return kindOf(err) == KindUnknownBranch }

// IsUndefinedTable reports a table name that does not resolve (42P01).
func IsUndefinedTable(err error) bool { return kindOf(err) == KindUndefinedTable }

// IsDuplicateTable reports a table name that is already taken (42P07).
func IsDuplicateTable(err error) bool { return kindOf(err) == KindDuplicateTable }

// IsInvalidDefinition reports a malformed table definition or a
// catalog-only change that would need a physical rewrite (42P16).
func IsInvalidDefinition(err error) bool { return kindOf(err) == KindInvalidDefinition }

// IsResourceLimit reports a resource limit (54000).
func IsResourceLimit(err error) bool { return kindOf(err) == KindResourceLimit }

// Retryable reports whether the caller may run the whole operation again
// unchanged (a serialization failure or transient contention).
func Retryable(err error) bool {
	k := kindOf(err)
	return k == KindReadSetChanged || k == KindContention
}
