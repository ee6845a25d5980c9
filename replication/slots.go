package replication

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// prefix holds every replication object of a root.
const prefix = "__replication/"

const slotPrefix = prefix + "slots/"

// Errors of the store; the SQL layer maps them to SQLSTATEs.
var (
	ErrExists   = errors.New("replication: already exists")
	ErrNotFound = errors.New("replication: does not exist")
	ErrActive   = errors.New("replication: slot is active")
)

// Slot is a logical replication slot: a consumer's durable position in
// one branch's stream.
type Slot struct {
	Name     string `json:"name"`
	Plugin   string `json:"plugin"`
	Database string `json:"database"` // the branch it streams
	// ConfirmedFlush: every commit whose end LSN is at or below it has
	// been confirmed by the consumer and is not streamed again.
	ConfirmedFlush LSN       `json:"confirmed_flush"`
	Created        time.Time `json:"created"`
}

// Store is a process's handle of a root's slots and publications.
// Open one per root per process: it also knows which slots a session
// of this process is streaming (Acquire).
type Store struct {
	store  objstore.Store
	mu     sync.Mutex
	active map[string]uint32 // slot → process id of the session streaming it
}

// Open returns the replication objects of the root stored in store.
func Open(store objstore.Store) *Store {
	return &Store{store: store, active: map[string]uint32{}}
}

// ValidSlotName reports PostgreSQL's rule for slot names: 1 to 63
// characters of lower-case letters, digits and underscores.
func ValidSlotName(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func slotKey(name string) string { return slotPrefix + name + ".json" }

// CreateSlot stores a new slot; ErrExists when one of that name exists.
func (s *Store) CreateSlot(ctx context.Context, sl Slot) error {
	if !ValidSlotName(sl.Name) {
		return fmt.Errorf("replication: invalid slot name %q", sl.Name)
	}
	b, err := json.Marshal(sl)
	if err != nil {
		return err
	}
	if err := s.store.PutIfAbsent(ctx, slotKey(sl.Name), b); err != nil {
		if errors.Is(err, objstore.ErrExists) {
			return ErrExists
		}
		return err
	}
	return nil
}

// Slot reads one slot; ErrNotFound when there is none.
func (s *Store) Slot(ctx context.Context, name string) (Slot, error) {
	if !ValidSlotName(name) {
		return Slot{}, ErrNotFound
	}
	b, err := s.store.Get(ctx, slotKey(name))
	if err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return Slot{}, ErrNotFound
		}
		return Slot{}, err
	}
	var sl Slot
	if err := json.Unmarshal(b, &sl); err != nil {
		return Slot{}, fmt.Errorf("replication: slot %s: %w", name, err)
	}
	return sl, nil
}

// Slots lists every slot, by name.
func (s *Store) Slots(ctx context.Context) ([]Slot, error) {
	infos, err := s.store.List(ctx, slotPrefix)
	if err != nil {
		return nil, err
	}
	var out []Slot
	for _, in := range infos {
		name, ok := strings.CutSuffix(strings.TrimPrefix(in.Key, slotPrefix), ".json")
		if !ok {
			continue
		}
		sl, err := s.Slot(ctx, name)
		if errors.Is(err, ErrNotFound) {
			continue // dropped meanwhile
		}
		if err != nil {
			return nil, err
		}
		out = append(out, sl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// DropSlot deletes a slot; ErrActive while a session of this process
// streams it, ErrNotFound when there is none.
func (s *Store) DropSlot(ctx context.Context, name string) error {
	s.mu.Lock()
	_, busy := s.active[name]
	s.mu.Unlock()
	if busy {
		return ErrActive
	}
	if !ValidSlotName(name) {
		return ErrNotFound
	}
	if err := s.store.Delete(ctx, slotKey(name)); err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return ErrNotFound
		}
		return err
	}
	return nil
}

// ActivePID is the process id of the session streaming the slot (0:
// none in this process).
func (s *Store) ActivePID(name string) uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active[name]
}

// Acquire marks the slot as streamed by the session pid; false (and the
// holder's pid) when another session of this process streams it.
func (s *Store) Acquire(name string, pid uint32) (release func(), holder uint32, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, busy := s.active[name]; busy {
		return nil, h, false
	}
	s.active[name] = pid
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.active, name)
			s.mu.Unlock()
		})
	}, 0, true
}

// Confirm moves the slot's confirmed_flush forward to lsn (never back)
// and stores it durably. The caller holds the slot (Acquire), so no
// other writer of this process races it.
func (s *Store) Confirm(ctx context.Context, name string, lsn LSN) (Slot, error) {
	sl, err := s.Slot(ctx, name)
	if err != nil {
		return Slot{}, err
	}
	if lsn <= sl.ConfirmedFlush {
		return sl, nil
	}
	sl.ConfirmedFlush = lsn
	b, err := json.Marshal(sl)
	if err != nil {
		return Slot{}, err
	}
	if err := s.store.Put(ctx, slotKey(name), b); err != nil {
		return Slot{}, err
	}
	return sl, nil
}

// ManifestFloors is, per branch, the lowest manifest version some slot
// on it may still stream from (the commit before its first unconfirmed
// one, which the first change is compared with). Cleanup keeps every
// manifest version of the branch's history from there on.
func ManifestFloors(ctx context.Context, store objstore.Store) (map[string]uint64, error) {
	slots, err := Open(store).Slots(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	for _, sl := range slots {
		v := sl.ConfirmedFlush.Version()
		if v > 0 {
			v-- // the snapshot before the first commit that may be streamed
		}
		if f, ok := out[sl.Database]; !ok || v < f {
			out[sl.Database] = v
		}
	}
	return out, nil
}
