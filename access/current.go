package access

import (
	"context"
	"sync"
	"time"
)

// probeGroup lets concurrent Current calls share probes of the catalog's
// next version. Every statement asks for the newest catalog (privilege
// checks), and on object storage the probe is a HEAD of tens of
// milliseconds: one probe at a time per process would make the probe
// the ceiling of the whole process's statement rate.
//
// Sharing must not weaken what Current promises: a change published
// before a call starts (by this process or another) is seen by it. So a
// caller never takes the answer of a probe that was already running when
// it arrived — that probe's Stat may have been answered before the
// change. It waits for the next probe, which starts after it arrived,
// and which every caller arriving meanwhile shares: at most two probes'
// time per call, and one probe per probe-time whatever the number of
// callers.
type probeGroup struct {
	mu      sync.Mutex
	cond    *sync.Cond // on mu; broadcast when a probe finishes
	running bool
	done    uint64 // probes finished
	cat     *Catalog
	err     error
	waiting int // callers waiting for a probe (tests)
}

// Current returns the newest catalog version: the cached one after one
// Stat, started after this call, showing no newer version exists (a
// Stat shared with concurrent callers, see probeGroup). Callers must not
// modify it.
func (s *Store) Current(ctx context.Context) (*Catalog, error) {
	g := &s.probes
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond == nil {
		g.cond = sync.NewCond(&g.mu)
	}
	for {
		// the first probe to start after now finishes as probe want
		want := g.done + 1
		if g.running {
			want++
		}
		for g.done < want {
			if g.running {
				g.waiting++
				g.cond.Wait()
				g.waiting--
				continue
			}
			g.running = true
			g.mu.Unlock()
			cat, err := s.probe(ctx)
			g.mu.Lock()
			g.running = false
			g.done++
			g.cat, g.err = cat, err
			g.cond.Broadcast()
			return cat, err // our own probe, started after we arrived
		}
		if g.err == nil {
			return g.cat, nil
		}
		// Another caller's probe failed (its context may have ended):
		// not our error; wait for, or run, a probe of our own.
	}
}

func (s *Store) probe(ctx context.Context) (*Catalog, error) {
	s.mu.Lock()
	raw, err := s.refresh(ctx)
	if err != nil || raw.Pending == nil {
		s.mu.Unlock()
		if err == nil {
			s.seen.Store(raw.Version)
		}
		return raw, err
	}
	eff := s.current(ctx, raw)
	gone := eff.Version != raw.Version && !ownerLive(raw.Pending, time.Now())
	s.mu.Unlock()
	if gone && s.resolve() != nil {
		// the owner ended without deciding (pending.go): decide for it
		// once, instead of asking the lineage at every statement
		if c, err := s.update(ctx, nil, func(*Catalog) error { return ErrNoChange }, nil); err == nil {
			return c, nil
		}
	}
	return eff, nil
}
