package recovery

import (
	"errors"
	"fmt"
)

// SidecarErrorKind classifies an unreadable sidecar.
type SidecarErrorKind int

// Sidecar error kinds.
const (
	SidecarCorrupt SidecarErrorKind = iota + 1
	SidecarUnknownVersion
)

// SidecarError reports a sidecar that cannot be acted on.
type SidecarError struct {
	Kind   SidecarErrorKind
	Op     string
	Detail string
	Err    error
}

func (e *SidecarError) Error() string {
	what := "corrupt recovery sidecar"
	if e.Kind == SidecarUnknownVersion {
		what = "recovery sidecar of an unknown format version"
	}
	s := fmt.Sprintf("%s %s: %s", what, e.Op, e.Detail)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *SidecarError) Unwrap() error { return e.Err }

// IsCorruptSidecar reports a malformed sidecar.
func IsCorruptSidecar(err error) bool {
	var e *SidecarError
	return errors.As(err, &e) && e.Kind == SidecarCorrupt
}

// IsUnknownVersion reports a sidecar of a format this build refuses.
func IsUnknownVersion(err error) bool {
	var e *SidecarError
	return errors.As(err, &e) && e.Kind == SidecarUnknownVersion
}

// ErrLeaseLost: the owner's lease ran out before it could confirm its
// effects; a recoverer in another process may already have fenced the
// operation, so the owner writes nothing more to its sidecar (the write
// fails into recovery).
var ErrLeaseLost = errors.New("recovery: the operation's owner lease ran out")

// IsLeaseLost reports a write whose owner lease ran out.
func IsLeaseLost(err error) bool { return errors.Is(err, ErrLeaseLost) }
