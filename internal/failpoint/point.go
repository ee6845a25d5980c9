package failpoint

import "errors"

// Point names one place in the code where a test may inject a failure.
type Point string

// ErrDisabled is returned by Enable in builds without the failpoints tag.
var ErrDisabled = errors.New("failpoint: built without the failpoints tag")

// Action decides what an enabled point does each time it is reached: a
// non-nil error is returned to the call site.
type Action func() error

// Error returns an Action that always fails with err.
func Error(err error) Action { return func() error { return err } }
