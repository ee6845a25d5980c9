package file

import (
	"errors"
	"fmt"
)

// Sentinel causes. Every error this package returns for these conditions
// wraps one of them; test with errors.Is or the predicates below.
var (
	// ErrCorrupt: the bytes are not a well-formed Lance 2.1 data file.
	ErrCorrupt = errors.New("lance/file: corrupt data file")
	// ErrUnsupported: a well-formed file uses something this package does
	// not implement (an encoding, a layout, a file version, a type).
	ErrUnsupported = errors.New("lance/file: unsupported")
	// ErrSchemaMismatch: a batch given to the writer does not match its schema,
	// or a projection names a column the file does not have.
	ErrSchemaMismatch = errors.New("lance/file: schema mismatch")
	// ErrClosed: the writer was already finished or aborted.
	ErrClosed = errors.New("lance/file: writer closed")
)

// Error names what failed (Column is "" for file-level problems).
type Error struct {
	Column string
	Detail string
	Err    error
}

func (e *Error) Error() string {
	if e.Column != "" {
		return fmt.Sprintf("%v: column %q: %s", e.Err, e.Column, e.Detail)
	}
	return fmt.Sprintf("%v: %s", e.Err, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

// IsCorrupt reports whether err means malformed file bytes.
func IsCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }

// IsUnsupported reports whether err means a feature this package lacks;
// the message names it (e.g. the encoding).
func IsUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }

// IsSchemaMismatch reports whether err means a batch or projection does not
// fit the file's schema.
func IsSchemaMismatch(err error) bool { return errors.Is(err, ErrSchemaMismatch) }

func corrupt(col, format string, args ...any) error {
	return &Error{Column: col, Detail: fmt.Sprintf(format, args...), Err: ErrCorrupt}
}

func unsupported(col, format string, args ...any) error {
	return &Error{Column: col, Detail: fmt.Sprintf(format, args...), Err: ErrUnsupported}
}

func mismatch(col, format string, args ...any) error {
	return &Error{Column: col, Detail: fmt.Sprintf(format, args...), Err: ErrSchemaMismatch}
}
