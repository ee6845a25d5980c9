package format

import (
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by every error caused by malformed bytes.
var ErrCorrupt = errors.New("lance/format: corrupt data")

// ErrUnsupported is wrapped by every error caused by a feature this
// package can read past but must not write over.
var ErrUnsupported = errors.New("lance/format: unsupported feature")

// CorruptError says which message (and why) failed to decode.
type CorruptError struct {
	Message string // protobuf message or framing element, e.g. "Manifest"
	Reason  string
	Err     error // optional underlying cause
}

func (e *CorruptError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("lance/format: corrupt %s: %s: %v", e.Message, e.Reason, e.Err)
	}
	return fmt.Sprintf("lance/format: corrupt %s: %s", e.Message, e.Reason)
}

// Unwrap lets errors.Is match both ErrCorrupt and the cause.
func (e *CorruptError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrCorrupt, e.Err}
	}
	return []error{ErrCorrupt}
}

// UnsupportedError names a feature (flag bit, manifest section,
// operation) present in the data that we refuse to write over.
type UnsupportedError struct {
	Feature string
}

func (e *UnsupportedError) Error() string {
	return "lance/format: unsupported feature: " + e.Feature
}

// Unwrap returns ErrUnsupported.
func (e *UnsupportedError) Unwrap() error { return ErrUnsupported }

// IsCorrupt reports whether err was caused by malformed bytes.
func IsCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }

// IsUnsupported reports whether err names a feature we do not implement.
func IsUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }

func corrupt(msg, reason string) error { return &CorruptError{Message: msg, Reason: reason} }
