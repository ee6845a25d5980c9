package objstore

// Test-only switches that turn off syncing, so tests can prove their
// crash checks notice a store that does not fsync.

func (m *Mem) SetUnsafeNoSync(v bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.unsafeNoSync = v
}

func (l *Local) SetUnsafeNoSync(v bool) { l.noSync = v }

// OpenReadHandles reports how many read handles l keeps open.
func OpenReadHandles(l *Local) int {
	if l.handles == nil {
		return 0
	}
	return l.handles.open()
}
