package exec

import (
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/pggraph/pggraph/observe"
)

// internalPanic turns a panic recovered at one of the executor's
// boundaries (prepare, execute, view analysis, its worker goroutines)
// into the XX000 error the client gets, and logs the panic with the stack
// of the goroutine that panicked: the client sees "internal error", the
// operator the place. Call it from the deferred function that recovered,
// so the stack is still the panicking one. The error keeps that stack
// (Error.Stack, never sent) for callers that log it again.
func internalPanic(r any) *Error {
	stack := debug.Stack()
	observe.Logger().Error("internal error: executor panic", slog.String("panic", fmt.Sprint(r)), slog.String("stack", string(stack)))
	return &Error{Code: CodeInternalError, Message: fmt.Sprintf("internal error: %v", r), Stack: stack}
}
