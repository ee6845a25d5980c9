//go:build failpoints

package failpoint

import "sync"

var (
	mu      sync.RWMutex
	enabled = map[Point]Action{}
)

// Compiled reports whether failpoints are compiled into this binary.
const Compiled = true

// Inject runs the action enabled for p, if any, and returns its error.
func Inject(p Point) error {
	mu.RLock()
	a := enabled[p]
	mu.RUnlock()
	if a == nil {
		return nil
	}
	return a()
}

// Enable makes p run a on every hit until Disable or Reset.
func Enable(p Point, a Action) error {
	mu.Lock()
	defer mu.Unlock()
	enabled[p] = a
	return nil
}

// Disable turns p off.
func Disable(p Point) {
	mu.Lock()
	defer mu.Unlock()
	delete(enabled, p)
}

// Reset turns every point off.
func Reset() {
	mu.Lock()
	defer mu.Unlock()
	enabled = map[Point]Action{}
}
