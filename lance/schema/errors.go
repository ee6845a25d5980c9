package schema

import (
	"errors"
	"fmt"
)

// Sentinel causes; every error returned by this package wraps one of them.
var (
	// ErrMalformed: bytes or a field list that do not form a valid schema.
	ErrMalformed = errors.New("lance/schema: malformed")
	// ErrUnsupportedType: a logical or Arrow type this package cannot map.
	ErrUnsupportedType = errors.New("lance/schema: unsupported type")
)

// Error carries the field (when known) and the cause.
type Error struct {
	Field  string // field name or "" when not known
	Detail string
	Err    error // ErrMalformed or ErrUnsupportedType
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%v: field %q: %s", e.Err, e.Field, e.Detail)
	}
	return fmt.Sprintf("%v: %s", e.Err, e.Detail)
}

func (e *Error) Unwrap() error { return e.Err }

// IsMalformed reports whether err means malformed schema bytes or fields.
func IsMalformed(err error) bool { return errors.Is(err, ErrMalformed) }

// IsUnsupportedType reports whether err names a type that cannot be mapped.
func IsUnsupportedType(err error) bool { return errors.Is(err, ErrUnsupportedType) }

func malformed(field, format string, args ...any) error {
	return &Error{Field: field, Detail: fmt.Sprintf(format, args...), Err: ErrMalformed}
}

func unsupported(field, format string, args ...any) error {
	return &Error{Field: field, Detail: fmt.Sprintf(format, args...), Err: ErrUnsupportedType}
}
