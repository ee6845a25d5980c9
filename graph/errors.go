package graph

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Sentinels of the manifest layer.
var (
	// ErrCorruptManifest: a __manifest version's state cannot be decoded
	// or breaks an invariant; never guessed around.
	ErrCorruptManifest = errors.New("graph: corrupt manifest state")
	// ErrUnknownBranch: no such graph branch.
	ErrUnknownBranch = errors.New("graph: unknown branch")
	// ErrBranchExists: the branch name is taken.
	ErrBranchExists = errors.New("graph: branch already exists")
	// ErrInvalidBranch: a branch name that is reserved, malformed or
	// nests with a live branch.
	ErrInvalidBranch = errors.New("graph: invalid branch name")
	// ErrBranchInUse: another branch was created from it.
	ErrBranchInUse = errors.New("graph: branch has child branches")
	// ErrSnapshotNotFound: no snapshot matches a commit id or time.
	ErrSnapshotNotFound = errors.New("graph: snapshot not found")
	// ErrInitIncomplete: the stamp exists but __manifest does not yet
	// (the next read-write open completes the init).
	ErrInitIncomplete = errors.New("graph: root init not completed yet (no __manifest)")
	// ErrInvalidDefinition: a table definition is malformed.
	ErrInvalidDefinition = errors.New("graph: invalid table definition")
	// ErrBranchDeleting: the branch is sealed by a delete (it is an
	// ErrUnknownBranch: nothing can be written or read at its head).
	ErrBranchDeleting = fmt.Errorf("%w (being deleted)", ErrUnknownBranch)
)

// BranchError names the branch an operation failed on.
type BranchError struct {
	Branch string
	Err    error
}

func (e *BranchError) Error() string { return e.Err.Error() + ": " + e.Branch }
func (e *BranchError) Unwrap() error { return e.Err }

// IsUnknownBranch reports whether err names a missing branch.
func IsUnknownBranch(err error) bool { return errors.Is(err, ErrUnknownBranch) }

// IsCorruptManifest reports whether a manifest state was undecodable.
func IsCorruptManifest(err error) bool { return errors.Is(err, ErrCorruptManifest) }

func encodeCommit(c Commit) (string, error) {
	c.Time = CommitTime(c.Time)
	b, err := json.Marshal(c)
	return string(b), err
}
