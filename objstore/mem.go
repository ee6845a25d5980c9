package objstore

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"
)

// Mem is an in-memory Store that models durability the way the local
// backend achieves it. Each write is a sequence of steps — write the
// staging copy, fsync it, publish the name, fsync the directory — and the
// store tracks which published changes are synced. A simulated power loss
// (PowerLoss) throws away every unsynced change, or keeps a random subset
// of them, exactly what a real crash may do.
//
// A crash can be injected between the steps of one operation with
// SetStepHook, so a test can stop a Put after the name is published but
// before it is synced.
type Mem struct {
	mu sync.Mutex
	// visible is what readers see now.
	visible map[string]memObject
	// listed indexes visible's keys by directory (the key up to its last
	// '/'), so List costs the directories and the matching ones' keys,
	// not every object: a long history of commits would otherwise make
	// every recovery barrier's listing grow with it (the local backend
	// reads one directory too).
	listed map[string]map[string]struct{}
	// dirs holds every "directory" (key prefix before a '/') any write
	// has created. Like the local backend, which creates and fsyncs
	// directories before it stages a file and never removes them, a
	// directory outlives its objects and survives power loss, and its
	// name can never become an object key.
	dirs map[string]bool
	// durable is what survives a power loss.
	durable map[string]memObject
	// pending lists published but unsynced changes, oldest first.
	pending []memChange
	hook    StepHook
	fsyncs  int64
	// unsafeNoSync makes every step skip syncing; for tests that prove
	// crash tests detect a store that never syncs.
	unsafeNoSync bool
	clock        func() time.Time
}

type memObject struct {
	data    []byte
	modTime time.Time
}

type memChange struct {
	key     string
	deleted bool
	obj     memObject
	// partial marks a PutNew's unsynced create: written under its final
	// name, so a power loss that keeps it may keep any prefix of it.
	partial bool
}

// Step names one internal step of a Mem write, for StepHook.
type Step int

// The steps of a Mem write, in order. Delete has only StepPublish and
// StepSyncDir.
const (
	StepWriteStaging Step = iota + 1
	StepSyncStaging
	StepPublish
	StepSyncDir
)

func (s Step) String() string {
	switch s {
	case StepWriteStaging:
		return "write-staging"
	case StepSyncStaging:
		return "sync-staging"
	case StepPublish:
		return "publish"
	case StepSyncDir:
		return "sync-dir"
	}
	return "unknown-step"
}

// StepHook is called before each step of a write. A non-nil error aborts
// the operation at that point (the steps already taken stay taken) and is
// returned to the caller. Tests use it to crash inside an operation.
type StepHook func(op, key string, step Step) error

// NewMem returns an empty in-memory store.
func NewMem() *Mem {
	return &Mem{
		visible: map[string]memObject{},
		listed:  map[string]map[string]struct{}{},
		dirs:    map[string]bool{},
		durable: map[string]memObject{},
		clock:   time.Now,
	}
}

// SetStepHook installs h (nil removes it).
func (m *Mem) SetStepHook(h StepHook) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = h
}

// Fsyncs returns the number of modelled fsyncs.
func (m *Mem) Fsyncs() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.fsyncs
}

// Unsynced returns the keys of published changes that a power loss could
// still lose, oldest first.
func (m *Mem) Unsynced() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]string, len(m.pending))
	for i, c := range m.pending {
		out[i] = c.key
	}
	return out
}

// PowerLoss simulates a power failure and restart. Every unsynced change
// is lost, except that when keep is non-nil each one independently
// survives with probability 1/2 (in order, as a journal replay would
// apply them). Synced data always survives.
func (m *Mem) PowerLoss(keep *rand.Rand) {
	m.mu.Lock()
	defer m.mu.Unlock()
	state := cloneObjects(m.durable)
	if keep != nil {
		for _, c := range m.pending {
			if keep.IntN(2) == 0 {
				continue
			}
			switch {
			case c.deleted:
				delete(state, c.key)
			case c.partial:
				o := c.obj
				o.data = o.data[:keep.IntN(len(o.data)+1)]
				state[c.key] = o
			default:
				state[c.key] = c.obj
			}
		}
	}
	m.visible = state
	m.listed = map[string]map[string]struct{}{}
	for k := range state {
		m.index(k)
	}
	m.durable = cloneObjects(state)
	m.pending = nil
}

// dirOf is the directory part of key ("" at the top).
func dirOf(key string) string {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i]
	}
	return ""
}

// setVisible publishes obj under key; the caller holds m.mu.
func (m *Mem) setVisible(key string, obj memObject) {
	m.visible[key] = obj
	m.index(key)
}

// index adds key to listed.
func (m *Mem) index(key string) {
	d := dirOf(key)
	keys := m.listed[d]
	if keys == nil {
		keys = map[string]struct{}{}
		m.listed[d] = keys
	}
	keys[key] = struct{}{}
}

// makeDirs records every directory above key.
func (m *Mem) makeDirs(key string) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			m.dirs[key[:i]] = true
		}
	}
}

func cloneObjects(in map[string]memObject) map[string]memObject {
	out := make(map[string]memObject, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// step runs the hook for one step; the caller holds m.mu.
func (m *Mem) step(op, key string, s Step) error {
	if m.hook == nil {
		return nil
	}
	return m.hook(op, key, s)
}

// syncKey makes every pending change of key durable (the directory
// fsync of the local backend covers the whole directory, but tracking per
// key is the stricter model: it never makes more durable than was asked).
func (m *Mem) syncKey(key string) {
	if m.unsafeNoSync {
		return
	}
	m.fsyncs++
	kept := m.pending[:0]
	for _, c := range m.pending {
		if c.key != key {
			kept = append(kept, c)
			continue
		}
		if c.deleted {
			delete(m.durable, key)
		} else {
			m.durable[key] = c.obj
		}
	}
	m.pending = kept
}

// write runs the step sequence of Put/PutIfAbsent with m.mu held.
// cur follows its two syncs.
func (m *Mem) write(op, key string, data []byte, ifAbsent bool, cur *roundCursor) error {
	m.makeDirs(key)
	if err := m.step(op, key, StepWriteStaging); err != nil {
		return err
	}
	if err := m.step(op, key, StepSyncStaging); err != nil {
		return err
	}
	if !m.unsafeNoSync {
		m.fsyncs++
	}
	cur.synced()
	if err := m.step(op, key, StepPublish); err != nil {
		return err
	}
	if _, ok := m.visible[key]; ok && ifAbsent {
		return ErrExists
	}
	obj := memObject{data: append([]byte(nil), data...), modTime: m.clock()}
	m.setVisible(key, obj)
	m.pending = append(m.pending, memChange{key: key, obj: obj})
	if err := m.step(op, key, StepSyncDir); err != nil {
		return err
	}
	m.syncKey(key)
	cur.synced()
	return nil
}

// Get implements Store.
func (m *Mem) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkCall(ctx, key); err != nil {
		return nil, opErr("get", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.visible[key]
	if !ok {
		return nil, opErr("get", key, ErrNotFound)
	}
	return append([]byte(nil), o.data...), nil
}

// GetRange implements Store.
func (m *Mem) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	if err := checkCall(ctx, key); err != nil {
		return nil, opErr("getrange", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.visible[key]
	if !ok {
		return nil, opErr("getrange", key, ErrNotFound)
	}
	n, err := clampRange(int64(len(o.data)), off, length)
	if err != nil {
		return nil, opErr("getrange", key, err)
	}
	return append([]byte(nil), o.data[off:off+n]...), nil
}

// Put implements Store.
func (m *Mem) Put(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("put", key, err)
	}
	cur := cursor(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkPathConflict(key); err != nil {
		return opErr("put", key, err)
	}
	return opErr("put", key, m.write("put", key, data, false, &cur))
}

// PutIfAbsent implements Store.
func (m *Mem) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("putifabsent", key, err)
	}
	cur := cursor(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkPathConflict(key); err != nil {
		return opErr("putifabsent", key, err)
	}
	return opErr("putifabsent", key, m.write("putifabsent", key, data, true, &cur))
}

// PutNew implements NewPutter the way Local does: the object is visible
// under its key at once (StepPublish), unsynced and, until synced,
// possibly partial after a power loss; then the file and the directory
// are synced in one step (StepSyncDir, two fsyncs).
func (m *Mem) PutNew(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("putifabsent", key, err)
	}
	cur := cursor(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkPathConflict(key); err != nil {
		return opErr("putifabsent", key, err)
	}
	m.makeDirs(key)
	if _, ok := m.visible[key]; ok {
		return opErr("putifabsent", key, ErrExists)
	}
	if err := m.step("putnew", key, StepPublish); err != nil {
		return opErr("putifabsent", key, err)
	}
	obj := memObject{data: append([]byte(nil), data...), modTime: m.clock()}
	m.setVisible(key, obj)
	m.pending = append(m.pending, memChange{key: key, obj: obj, partial: true})
	if err := m.step("putnew", key, StepSyncDir); err != nil {
		return opErr("putifabsent", key, err)
	}
	if !m.unsafeNoSync {
		m.fsyncs++ // the file's; syncKey counts the directory's
	}
	m.syncKey(key)
	cur.synced()
	return nil
}

// PutVolatile implements VolatilePutter: the new content is visible at
// once but never synced, so a power loss keeps it or loses it (and a
// later durable write of the same key makes it durable).
func (m *Mem) PutVolatile(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("put", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.checkPathConflict(key); err != nil {
		return opErr("put", key, err)
	}
	m.makeDirs(key)
	if err := m.step("putvolatile", key, StepWriteStaging); err != nil {
		return opErr("put", key, err)
	}
	if err := m.step("putvolatile", key, StepPublish); err != nil {
		return opErr("put", key, err)
	}
	obj := memObject{data: append([]byte(nil), data...), modTime: m.clock()}
	m.setVisible(key, obj)
	m.pending = append(m.pending, memChange{key: key, obj: obj})
	return nil
}

// checkPathConflict mirrors the filesystem: a key cannot be both an
// object and a directory.
func (m *Mem) checkPathConflict(key string) error {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			if _, ok := m.visible[key[:i]]; ok {
				return ErrInvalidKey
			}
		}
	}
	if m.dirs[key] {
		return ErrInvalidKey
	}
	return nil
}

// Delete implements Store.
func (m *Mem) Delete(ctx context.Context, key string) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("delete", key, err)
	}
	cur := cursor(ctx)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.visible[key]; !ok {
		return opErr("delete", key, ErrNotFound)
	}
	if err := m.step("delete", key, StepPublish); err != nil {
		return opErr("delete", key, err)
	}
	delete(m.visible, key)
	if keys := m.listed[dirOf(key)]; keys != nil {
		delete(keys, key)
		if len(keys) == 0 {
			delete(m.listed, dirOf(key))
		}
	}
	m.pending = append(m.pending, memChange{key: key, deleted: true})
	if err := m.step("delete", key, StepSyncDir); err != nil {
		return opErr("delete", key, err)
	}
	m.syncKey(key)
	cur.synced()
	return nil
}

// Stat implements Store.
func (m *Mem) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	if err := checkCall(ctx, key); err != nil {
		return ObjectInfo{}, opErr("stat", key, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.visible[key]
	if !ok {
		return ObjectInfo{}, opErr("stat", key, ErrNotFound)
	}
	return ObjectInfo{Key: key, Size: int64(len(o.data)), ModTime: o.modTime}, nil
}

// List implements Store.
func (m *Mem) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, opErr("list", prefix, err)
	}
	if err := validatePrefix(prefix); err != nil {
		return nil, opErr("list", prefix, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	// a key matching prefix lives in prefix's directory or below it
	pdir := dirOf(prefix)
	below := pdir + "/"
	var out []ObjectInfo
	for d, keys := range m.listed {
		if pdir != "" && d != pdir && !strings.HasPrefix(d, below) {
			continue
		}
		for k := range keys {
			if strings.HasPrefix(k, prefix) {
				o := m.visible[k]
				out = append(out, ObjectInfo{Key: k, Size: int64(len(o.data)), ModTime: o.modTime})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}
