package lance

import (
	"errors"
	"fmt"

	"github.com/pggraph/pggraph/lance/format"
)

// Sentinels; every typed error below wraps one of them.
var (
	// ErrConflict: the commit did not land because another transaction
	// took the version slot or is incompatible with ours.
	ErrConflict = errors.New("lance: commit conflict")
	// ErrMissingTransaction: a committed version's transaction cannot be
	// read, so no conflict decision can be made.
	ErrMissingTransaction = errors.New("lance: transaction of a committed version is unreadable")
	// ErrVersionNotFound: the requested version does not exist.
	ErrVersionNotFound = errors.New("lance: version not found")
	// ErrDatasetNotFound: no manifest exists at the location.
	ErrDatasetNotFound = errors.New("lance: dataset not found")
	// ErrMixedNaming: both V1 and V2 manifest names are present.
	ErrMixedNaming = errors.New("lance: both V1 and V2 manifest naming present")
	// ErrTagNotFound / ErrTagExists: tag lookup or creation failed.
	ErrTagNotFound = errors.New("lance: tag not found")
	ErrTagExists   = errors.New("lance: tag already exists")
	// ErrBranchNotFound: no such branch ref.
	ErrBranchNotFound = errors.New("lance: branch not found")
	// ErrBranchExists: a branch ref with that name already exists.
	ErrBranchExists = errors.New("lance: branch already exists")
	// ErrBranchInUse: other branches were forked from the branch.
	ErrBranchInUse = errors.New("lance: branch is the parent of other branches")
	// ErrInvalidName: a tag or branch name Lance would refuse.
	ErrInvalidName = errors.New("lance: invalid name")
	// ErrInvalidArgument: a caller error (bad row address, empty batch, …).
	ErrInvalidArgument = errors.New("lance: invalid argument")
	// ErrCorrupt: a file we read is malformed.
	ErrCorrupt = errors.New("lance: corrupt dataset file")
)

// ConflictKind classifies a conflict.
type ConflictKind int

const (
	// ConflictLost: exact mode; another transaction took read_version+1.
	ConflictLost ConflictKind = iota
	// ConflictRetryable: the caller must redo its work against the new
	// state (e.g. both deleted rows of the same fragment).
	ConflictRetryable
	// ConflictIncompatible: a committed transaction (overwrite, restore)
	// invalidates ours outright.
	ConflictIncompatible
	// ConflictTooManyRetries: rebasing mode gave up after its bound.
	ConflictTooManyRetries
)

func (k ConflictKind) String() string {
	switch k {
	case ConflictLost:
		return "lost the version slot"
	case ConflictRetryable:
		return "retryable"
	case ConflictIncompatible:
		return "incompatible"
	case ConflictTooManyRetries:
		return "too many retries"
	}
	return "unknown"
}

// ConflictError reports a commit that did not land.
type ConflictError struct {
	Kind        ConflictKind
	ReadVersion uint64 // our transaction's read version
	Version     uint64 // the committed version we conflict with
	// Winner is the committed transaction at Version; nil when it could
	// not be read (then Err says why).
	Winner *format.Transaction
	Err    error
}

func (e *ConflictError) Error() string {
	w := "unreadable"
	if e.Winner != nil {
		op := "none"
		if e.Winner.Op != nil {
			op = e.Winner.Op.Kind().String()
		}
		w = fmt.Sprintf("%s %s", op, e.Winner.UUID)
	}
	s := fmt.Sprintf("lance: commit conflict (%s): read version %d, version %d taken by transaction %s", e.Kind, e.ReadVersion, e.Version, w)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap matches ErrConflict and the cause.
func (e *ConflictError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrConflict, e.Err}
	}
	return []error{ErrConflict}
}

// WinnerUUID returns the winning transaction's UUID ("" if unreadable).
func (e *ConflictError) WinnerUUID() string {
	if e.Winner == nil {
		return ""
	}
	return e.Winner.UUID
}

// MissingTransactionError names a version whose transaction is unreadable.
type MissingTransactionError struct {
	Version uint64
	Err     error
}

func (e *MissingTransactionError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("lance: version %d has no readable transaction: %v", e.Version, e.Err)
	}
	return fmt.Sprintf("lance: version %d has no transaction (neither inline nor a transaction file)", e.Version)
}

// Unwrap matches ErrMissingTransaction and the cause.
func (e *MissingTransactionError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrMissingTransaction, e.Err}
	}
	return []error{ErrMissingTransaction}
}

// NameError names an invalid tag or branch name.
type NameError struct {
	Kind, Name, Reason string
}

func (e *NameError) Error() string {
	return fmt.Sprintf("lance: invalid %s name %q: %s", e.Kind, e.Name, e.Reason)
}

// Unwrap returns ErrInvalidName.
func (e *NameError) Unwrap() error { return ErrInvalidName }

// BranchInUseError refuses to delete a branch other branches were
// forked from (their files live in its tree).
type BranchInUseError struct {
	Name     string
	Children []string
}

func (e *BranchInUseError) Error() string {
	return fmt.Sprintf("lance: branch %q is the parent of branches %q; delete them first", e.Name, e.Children)
}

// Unwrap returns ErrBranchInUse.
func (e *BranchInUseError) Unwrap() error { return ErrBranchInUse }

// IsExists reports whether a tag or branch to create already exists.
func IsExists(err error) bool { return errors.Is(err, ErrTagExists) || errors.Is(err, ErrBranchExists) }

// IsInUse reports whether a branch cannot be deleted because other
// branches were forked from it.
func IsInUse(err error) bool { return errors.Is(err, ErrBranchInUse) }

// IsConflict reports whether a commit lost to another transaction.
func IsConflict(err error) bool { return errors.Is(err, ErrConflict) }

// IsRetryable reports whether the caller may redo its work and try again
// (a lost slot, a retryable conflict, or exhausted rebase retries).
func IsRetryable(err error) bool {
	var ce *ConflictError
	return errors.As(err, &ce) && ce.Kind != ConflictIncompatible
}

// IsMissingTransaction reports whether a version's transaction is unreadable.
func IsMissingTransaction(err error) bool { return errors.Is(err, ErrMissingTransaction) }

// IsNotFound reports whether a dataset, version, tag or branch is missing.
func IsNotFound(err error) bool {
	return errors.Is(err, ErrVersionNotFound) || errors.Is(err, ErrDatasetNotFound) ||
		errors.Is(err, ErrTagNotFound) || errors.Is(err, ErrBranchNotFound)
}

// IsUnsupported reports whether a dataset uses a Lance feature we do not
// implement (see format.UnsupportedError).
func IsUnsupported(err error) bool { return format.IsUnsupported(err) }

// IsCorrupt reports whether a file we read is malformed.
func IsCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) || format.IsCorrupt(err) }

func wrapf(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}
