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
	"time"

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
	// pending changes (pending.go): who decides them, this Store's
	// owner id, and the effective catalogs of the newest pending version
	// (eff: its own content once landed; prev: the version before it).
	resolver  atomic.Pointer[Resolver]
	instance  string
	eff, prev *Catalog
}

// Seen is the version of the newest effective catalog this process has
// read or published, without any I/O (plans bound with another one are
// bound again). While the newest version is pending it is the version
// before it, until the pending one's commit lands.
func (s *Store) Seen() uint64 { return s.seen.Load() }

// Open returns the role catalog of the root stored in store.
func Open(store objstore.Store) *Store { return &Store{store: store, instance: newInstance()} }

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
// published. A pending newest version (pending.go) is decided first:
// change applies to its decided content.
func (s *Store) Update(ctx context.Context, seed, change func(*Catalog) error) (*Catalog, error) {
	return s.update(ctx, seed, change, nil)
}

// update is Update publishing a version marked pending (p != nil), or
// the decision of a pending version the caller owns (known).
func (s *Store) update(ctx context.Context, seed, change func(*Catalog) error, p *Pending, known ...settle) (*Catalog, error) {
	var k *settle
	if len(known) > 0 {
		k = &known[0]
	}
	deadline := time.Now().Add(pendingWait)
	for attempt := 0; attempt < maxPublishAttempts; {
		next, cur, err := s.tryUpdate(ctx, seed, change, p, k)
		switch {
		case errors.Is(err, errOwnerLive):
			if time.Now().After(deadline) {
				return nil, ErrPendingBusy
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(10 * time.Millisecond):
			}
			continue
		case errors.Is(err, objstore.ErrExists):
			attempt++
			continue // another writer won: recompute on its version
		case errors.Is(err, ErrNoChange):
			return cur, nil
		case err != nil:
			return nil, err
		}
		return next, nil
	}
	return nil, fmt.Errorf("access: the role catalog changed %d times while publishing a change", maxPublishAttempts)
}

// tryUpdate is one attempt of update: the published version, or the
// current effective one with ErrNoChange.
func (s *Store) tryUpdate(ctx context.Context, seed, change func(*Catalog) error, p *Pending, k *settle) (next, cur *Catalog, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	raw, err := s.refresh(ctx)
	if err != nil {
		return nil, nil, err
	}
	base := raw
	if raw.Pending != nil {
		if k != nil && k.commitID != raw.Pending.CommitID {
			return nil, s.current(ctx, raw), ErrNoChange // decided by someone else already
		}
		if base, err = s.decided(ctx, raw, true, k); err != nil {
			return nil, nil, err
		}
	} else if k != nil {
		return nil, raw, ErrNoChange
	}
	next = base.clone()
	next.Pending = p
	if base.Bootstrap() && seed != nil {
		if err := seed(next); err != nil {
			return nil, nil, err
		}
	}
	if err := change(next); errors.Is(err, ErrNoChange) && raw.Pending == nil {
		return nil, raw, ErrNoChange
	} else if err != nil && !errors.Is(err, ErrNoChange) {
		return nil, nil, err
	}
	// a decided pending version is published even without a change
	next.Version = raw.Version + 1
	b, err := json.Marshal(next)
	if err != nil {
		return nil, nil, err
	}
	if err := s.store.PutIfAbsent(ctx, versionKey(next.Version), b); errors.Is(err, objstore.ErrExists) {
		return nil, nil, err
	} else if err != nil {
		return nil, nil, fmt.Errorf("access: publishing the role catalog: %w", err)
	}
	s.cur = next
	eff := s.current(ctx, next)
	return eff, eff, nil
}

// current is raw's effective catalog for readers, and what Seen says:
// raw itself, or for a pending version what the graph has decided so far
// (the version before it when that cannot be read).
func (s *Store) current(ctx context.Context, raw *Catalog) *Catalog {
	eff := raw
	if raw.Pending != nil {
		var err error
		if eff, err = s.decided(ctx, raw, false, nil); err != nil {
			if eff, err = s.previous(ctx, raw); err != nil {
				eff = raw // cannot happen for a chain that was read
			}
		}
	}
	s.seen.Store(eff.Version)
	return eff
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
