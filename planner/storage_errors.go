package planner

import "github.com/pggraph/pggraph/wire"

// storageFailed is 58030 for a failed read of stored state. The message
// names what could not be read; the cause (which holds object keys, i.e.
// internal paths) stays out of the reply and goes to the server log
// through Cause. wire turns a full disk in the cause into 53100.
func storageFailed(err error, format string, args ...any) *wire.Error {
	w := wire.Errorf(wire.CodeIOError, format, args...)
	w.Cause = err
	return w
}
