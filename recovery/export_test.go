package recovery

import "github.com/pggraph/pggraph/protocol"

// AsAnotherProcess gives m gates of its own, so its resolutions are not
// serialized with other managers of the root in this process — as with
// a recoverer in another process (gates are process-local).
func AsAnotherProcess(m *Manager) { m.gates = protocol.NewGates() }
