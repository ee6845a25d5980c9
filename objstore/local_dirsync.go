package objstore

import (
	"path/filepath"
	"sync"
)

// dirSyncs coalesces the directory fsyncs of concurrent writes into one
// directory (a group commit's files, concurrent commits' transaction
// files, the __manifest version directory). A write that finds no fsync
// of its directory running starts one; one that finds an fsync running
// cannot use it — it may have begun before the write's directory entry
// existed — and joins the next, which starts when the running one has
// finished and serves every write that joined it. So each write's entry
// is covered by an fsync that began after the entry was made, and at
// most two fsyncs of one directory are outstanding however many writes
// wait.
type dirSyncs struct {
	mu   sync.Mutex
	dirs map[string]*dirSyncState
	// before, when set (tests), runs before each directory fsync.
	before func(dir string)
}

type dirSyncState struct {
	running, next *dirSyncCall
}

type dirSyncCall struct {
	done   chan struct{}
	err    error
	joined int // writes waiting for it (tests observe it)
}

// syncDirOf makes the directory entry of the file at path durable
// (coalesced, see dirSyncs) and records the wait on cur.
func (l *Local) syncDirOf(path string, cur *roundCursor) error {
	if err := l.syncDirShared(filepath.Dir(path)); err != nil {
		return err
	}
	cur.synced()
	return nil
}

// syncDirShared fsyncs dir, or waits for an fsync of dir that began
// after this call did.
func (l *Local) syncDirShared(dir string) error {
	s := &l.dirSyncs
	s.mu.Lock()
	if s.dirs == nil {
		s.dirs = map[string]*dirSyncState{}
	}
	st := s.dirs[dir]
	if st == nil {
		st = &dirSyncState{}
		s.dirs[dir] = st
	}
	if st.running == nil {
		c := &dirSyncCall{done: make(chan struct{})}
		st.running = c
		s.mu.Unlock()
		l.runDirSync(dir, st, c)
		return c.err
	}
	if st.next == nil {
		st.next = &dirSyncCall{done: make(chan struct{})}
	}
	c := st.next
	c.joined++
	s.mu.Unlock()
	<-c.done
	return c.err
}

// runDirSync performs c, the running fsync of dir, then starts the next
// one if writes joined it meanwhile (in its own goroutine, so that c's
// caller returns as soon as its own fsync is done).
func (l *Local) runDirSync(dir string, st *dirSyncState, c *dirSyncCall) {
	s := &l.dirSyncs
	if s.before != nil {
		s.before(dir)
	}
	c.err = l.syncDir(dir)
	s.mu.Lock()
	n := st.next
	st.running, st.next = n, nil
	if n == nil {
		delete(s.dirs, dir)
	}
	s.mu.Unlock()
	close(c.done)
	if n != nil {
		go l.runDirSync(dir, st, n)
	}
}
