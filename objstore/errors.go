package objstore

import (
	"errors"
	"fmt"
)

// Sentinel errors. Test with errors.Is or the predicates below; every
// error a Store returns for these conditions wraps one of them.
var (
	// ErrNotFound: no object has the key.
	ErrNotFound = errors.New("objstore: object not found")
	// ErrExists: PutIfAbsent lost; an object with the key already exists.
	ErrExists = errors.New("objstore: object already exists")
	// ErrInvalidKey: the key is not a well-formed relative path.
	ErrInvalidKey = errors.New("objstore: invalid key")
	// ErrInvalidRange: GetRange offset is negative or past the end.
	ErrInvalidRange = errors.New("objstore: invalid range")
	// ErrInjected: a fault-injection wrapper failed the operation.
	ErrInjected = errors.New("objstore: injected fault")
	// ErrCrashed: the store simulates a crashed process; every
	// operation fails until it is restarted.
	ErrCrashed = errors.New("objstore: store has crashed")
)

// IsNotFound reports whether err means the object does not exist.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }

// IsExists reports whether err means a PutIfAbsent lost its race.
func IsExists(err error) bool { return errors.Is(err, ErrExists) }

// IsInjected reports whether err was produced by fault injection
// (including a simulated crash).
func IsInjected(err error) bool { return errors.Is(err, ErrInjected) || errors.Is(err, ErrCrashed) }

// OpError names the operation and key that failed, wrapping the cause.
type OpError struct {
	Op  string
	Key string
	Err error
}

func (e *OpError) Error() string { return fmt.Sprintf("objstore %s %q: %v", e.Op, e.Key, e.Err) }
func (e *OpError) Unwrap() error { return e.Err }

// Operation is the failed operation's name (get, getrange, put,
// putifabsent, delete, list), for messages that must not show the key.
func (e *OpError) Operation() string { return e.Op }

func opErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return &OpError{Op: op, Key: key, Err: err}
}
