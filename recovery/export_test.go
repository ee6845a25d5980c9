package recovery

import "github.com/pggraph/pggraph/protocol"

// AsAnotherProcess gives m gates of its own, so its resolutions are not
// serialized with other managers of the root in this process — as with
// a recoverer in another process (gates are process-local).
func AsAnotherProcess(m *Manager) { m.gates = protocol.NewGates() }

// ForgetKnownIntents empties the set of intents m's process knows of, as
// in a process that did not write them.
func ForgetKnownIntents(m *Manager) {
	m.known.mu.Lock()
	m.known.keys = map[string]bool{}
	m.known.mu.Unlock()
}
