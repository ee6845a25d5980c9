//go:build !failpoints

package failpoint

// Compiled reports whether failpoints are compiled into this binary.
const Compiled = false

// Inject is a no-op without the failpoints build tag.
func Inject(Point) error { return nil }

// Enable cannot enable anything without the failpoints build tag.
func Enable(Point, Action) error { return ErrDisabled }

// Disable is a no-op without the failpoints build tag.
func Disable(Point) {}

// Reset is a no-op without the failpoints build tag.
func Reset() {}
