//go:build race

package e2e

// raceEnabled: this test binary runs under the race detector, so the
// server it builds does too.
const raceEnabled = true
