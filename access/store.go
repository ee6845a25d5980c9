package access

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/pggraph/pggraph/objstore"
)

// prefix holds the catalog's version chain.
const prefix = "__access/"

func versionKey(v uint64) string { return fmt.Sprintf("%sv%020d.json", prefix, v) }

// ErrNoChange from an Update's change publishes nothing (the change
// finds the catalog already as it wants it).
var ErrNoChange = errors.New("access: no change")

// maxPublishAttempts bounds how often a change re-applies itself after
// losing the put-if-absent race to another writer.
const maxPublishAttempts = 64

// Store is a process's handle of a root's role catalog. It caches the
// newest version it has seen; every method is safe for concurrent use.
// Open one Store per root per process, so a change made by one session
// is seen by the next statement of every other session at once.
type Store struct {
	store objstore.Store
	mu    sync.Mutex // held by whoever reads or replaces cur (refresh, Update)
	cur   *Catalog   // nil until first read
	seen  atomic.Uint64
	// probes shares one Stat among the statements that ask for the
	// newest catalog at the same time (current.go).
	probes probeGroup
}

// Seen is the newest version this process has read or published, without
// any I/O (plans bound with an older one are bound again).
func (s *Store) Seen() uint64 { return s.seen.Load() }

// Open returns the role catalog of the root stored in store.
func Open(store objstore.Store) *Store { return &Store{store: store} }

func (s *Store) refresh(ctx context.Context) (*Catalog, error) {
	if s.cur == nil {
		v, err := s.latestListed(ctx)
		if err != nil {
			return nil, err
		}
		c := &Catalog{}
		if v > 0 {
			if c, err = s.read(ctx, v); err != nil {
				return nil, err
			}
		}
		s.cur = c
		s.seen.Store(c.Version)
	}
	for {
		next := s.cur.Version + 1
		if _, err := s.store.Stat(ctx, versionKey(next)); errors.Is(err, objstore.ErrNotFound) {
			return s.cur, nil
		} else if err != nil {
			return nil, fmt.Errorf("access: reading the role catalog: %w", err)
		}
		c, err := s.read(ctx, next)
		if err != nil {
			return nil, err
		}
		s.cur = c
		s.seen.Store(c.Version)
	}
}

// latestListed finds the newest version by listing the chain (once per
// process; later versions are found by probing the next one).
func (s *Store) latestListed(ctx context.Context) (uint64, error) {
	infos, err := s.store.List(ctx, prefix)
	if err != nil && !errors.Is(err, objstore.ErrNotFound) {
		return 0, fmt.Errorf("access: listing the role catalog: %w", err)
	}
	var latest uint64
	for _, in := range infos {
		name := strings.TrimPrefix(in.Key, prefix)
		digits, ok := strings.CutPrefix(strings.TrimSuffix(name, ".json"), "v")
		if !ok || !strings.HasSuffix(name, ".json") {
			continue
		}
		if v, err := strconv.ParseUint(digits, 10, 64); err == nil && v > latest {
			latest = v
		}
	}
	return latest, nil
}

func (s *Store) read(ctx context.Context, v uint64) (*Catalog, error) {
	b, err := s.store.Get(ctx, versionKey(v))
	if err != nil {
		return nil, fmt.Errorf("access: reading role catalog version %d: %w", v, err)
	}
	c := &Catalog{}
	if err := json.Unmarshal(b, c); err != nil {
		return nil, fmt.Errorf("access: role catalog version %d is not valid: %w", v, err)
	}
	c.Version = v
	return c, nil
}

// Update applies change to a copy of the newest catalog and publishes the
// result as the next version. If another writer published first, change
// runs again on the version that won. An error from change publishes
// nothing and is returned as is. seed runs first when the root has no
// catalog yet (see the package doc). The returned catalog is the one
// published.
func (s *Store) Update(ctx context.Context, seed, change func(*Catalog) error) (*Catalog, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range maxPublishAttempts {
		cur, err := s.refresh(ctx)
		if err != nil {
			return nil, err
		}
		next := cur.clone()
		if cur.Bootstrap() && seed != nil {
			if err := seed(next); err != nil {
				return nil, err
			}
		}
		if err := change(next); errors.Is(err, ErrNoChange) {
			return cur, nil
		} else if err != nil {
			return nil, err
		}
		next.Version = cur.Version + 1
		b, err := json.Marshal(next)
		if err != nil {
			return nil, err
		}
		err = s.store.PutIfAbsent(ctx, versionKey(next.Version), b)
		if errors.Is(err, objstore.ErrExists) {
			continue // another writer won: recompute on its version
		}
		if err != nil {
			return nil, fmt.Errorf("access: publishing the role catalog: %w", err)
		}
		s.cur = next
		s.seen.Store(next.Version)
		return next, nil
	}
	return nil, fmt.Errorf("access: the role catalog changed %d times while publishing a change", maxPublishAttempts)
}

// Seed creates the catalog with seed when the root has none; a root that
// has one is left as it is (seeded reports whether this call created it).
func (s *Store) Seed(ctx context.Context, seed func(*Catalog) error) (seeded bool, err error) {
	cur, err := s.Current(ctx)
	if err != nil || !cur.Bootstrap() {
		return false, err
	}
	seeded = true
	_, err = s.Update(ctx, seed, func(c *Catalog) error {
		if c.Version != 0 { // another process seeded it first
			seeded = false
			return ErrNoChange
		}
		return nil
	})
	return seeded && err == nil, err
}

// SeedUsers creates the catalog from a users file's (name, secret)
// entries when the root has none: each becomes a superuser that may log
// in with its secret, the first the bootstrap superuser (OID 10). A root
// that has a catalog keeps it (seeded=false): from then on the catalog
// decides.
func (s *Store) SeedUsers(ctx context.Context, users [][2]string) (seeded bool, err error) {
	if len(users) == 0 {
		return false, nil
	}
	return s.Seed(ctx, func(c *Catalog) error {
		for _, u := range users {
			r := NewSuperuser(u[0])
			r.Password = u[1]
			c.AddRole(r)
		}
		return nil
	})
}
