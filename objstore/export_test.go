package objstore

import "path/filepath"

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

// SetBeforeDirSync installs a hook run before each directory fsync of l.
func (l *Local) SetBeforeDirSync(f func(dir string)) { l.dirSyncs.before = f }

// DirSyncJoined reports how many writes wait for the next fsync of the
// directory holding key.
func (l *Local) DirSyncJoined(key string) int {
	l.dirSyncs.mu.Lock()
	defer l.dirSyncs.mu.Unlock()
	st := l.dirSyncs.dirs[filepath.Dir(l.keyPath(key))]
	if st == nil || st.next == nil {
		return 0
	}
	return st.next.joined
}
