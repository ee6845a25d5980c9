package access

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"
)

// A transaction that changes roles and writes the graph must become
// visible at one point, as PostgreSQL's single commit does. The role
// catalog is one put-if-absent chain for the whole root and a graph
// commit is another on one branch's manifest, so no single CAS covers
// both. The graph commit is therefore the visibility point, and the role
// catalog follows it:
//
//  1. the transaction's role changes are published as a pending version
//     N+1 that names the graph commit by its id, minted before the
//     commit is made (Pending.CommitID);
//  2. the graph commit is made with that id;
//  3. the writer publishes N+2, the decision: N+1's content without the
//     mark when the commit landed, N's when it did not.
//
// While N+1 is pending, every reader's catalog is decided by the
// branch's lineage: N+1's content once the commit is on the branch, N's
// until then, so a session sees the role changes exactly when it can
// see the commit. Role writers wait for the decision (the pending
// version holds the chain, so nothing is applied to N+1 that the
// commit's failure would take away). A writer whose owner is gone
// (crashed, or gave its commit up) is decided by its reader: first the
// write protocol's recovery barrier on the branch resolves the owner's
// unfinished graph write (rolled forward, it lands with the minted id),
// then the lineage decides, for good.

// Pending marks a catalog version whose changes take effect only with a
// graph commit.
type Pending struct {
	Branch      string `json:"branch"`
	Incarnation string `json:"incarnation,omitempty"`
	// After is the branch's manifest version when the version was
	// published: the commit lands above it.
	After    uint64 `json:"after"`
	CommitID string `json:"commit_id"`
	// The owner: the writer process and its Store.
	Host     string `json:"host"`
	Boot     string `json:"boot,omitempty"`
	PID      int    `json:"pid"`
	Instance string `json:"instance"`
	// Expires ends the owner's claim as seen from another machine (where
	// its process cannot be asked); the owner refuses to make its commit
	// past it (Store.LeaseHeld).
	Expires time.Time `json:"expires"`
}

// PendingLease is how long a pending change's owner may take to make
// its graph commit.
const PendingLease = 2 * time.Minute

// Resolver tells a Store what became of a pending change's graph commit
// (the SQL layer implements it over the graph root).
type Resolver interface {
	// Landed reports whether the commit p names is on p's branch (false
	// when the branch is gone).
	Landed(ctx context.Context, p *Pending) (bool, error)
	// Recover resolves the unfinished graph writes on branch whose
	// owners are gone (the write protocol's recovery barrier): after it,
	// a commit of a gone owner has landed or never will.
	Recover(ctx context.Context, branch string) error
}

// ErrPendingBusy: a role change waited for another transaction's
// pending role changes to be decided, and they still were not.
var ErrPendingBusy = errors.New("access: another transaction is committing role changes")

// pendingWait bounds how long a role change waits for a live owner's
// decision.
var pendingWait = 10 * time.Second

// errOwnerLive: a pending version's owner may still make its commit.
var errOwnerLive = errors.New("access: pending owner is live")

// SetResolver installs the resolver of pending changes (before use).
func (s *Store) SetResolver(r Resolver) { s.resolver.Store(&r) }

// resolve is the installed Resolver (nil: none).
func (s *Store) resolve() Resolver {
	if r := s.resolver.Load(); r != nil {
		return *r
	}
	return nil
}

// identity of this process, shared by its Stores.
var (
	hostOnce         sync.Once
	hostName, bootID string
)

func processIdentity() (host, boot string) {
	hostOnce.Do(func() {
		hostName, _ = os.Hostname()
		if b, err := os.ReadFile("/proc/sys/kernel/random/boot_id"); err == nil {
			bootID = strings.TrimSpace(string(b))
		}
	})
	return hostName, bootID
}

// live Stores of this process and the commits they have in flight
// (a Store is "an owner"; tests drop one to act as a crashed process).
var owners = struct {
	sync.Mutex
	inFlight map[string]map[string]bool // instance → commit ids
}{inFlight: map[string]map[string]bool{}}

func setInFlight(instance, commitID string, on bool) {
	owners.Lock()
	defer owners.Unlock()
	m := owners.inFlight[instance]
	if m == nil {
		m = map[string]bool{}
		owners.inFlight[instance] = m
	}
	if on {
		m[commitID] = true
	} else {
		delete(m, commitID)
	}
}

// forgetInstance drops a Store's in-flight commits, as the end of its
// process would.
func forgetInstance(instance string) {
	owners.Lock()
	defer owners.Unlock()
	delete(owners.inFlight, instance)
}

// ownerLive reports whether p's owner may still make its commit.
func ownerLive(p *Pending, now time.Time) bool {
	host, boot := processIdentity()
	if p.Host != host || p.Boot != boot {
		return now.Before(p.Expires) // another machine: its lease
	}
	if p.PID == os.Getpid() {
		owners.Lock()
		defer owners.Unlock()
		return owners.inFlight[p.Instance][p.CommitID]
	}
	return processAlive(p.PID) && now.Before(p.Expires)
}

func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// NewPending is the mark of a change that takes effect with the graph
// commit commitID on branch (incarnation inc, manifest version after at
// the time of the call), owned by s.
func (s *Store) NewPending(branch, inc string, after uint64, commitID string) *Pending {
	host, boot := processIdentity()
	return &Pending{Branch: branch, Incarnation: inc, After: after, CommitID: commitID,
		Host: host, Boot: boot, PID: os.Getpid(), Instance: s.instance, Expires: time.Now().Add(PendingLease)}
}

// LeaseHeld reports whether p's owner may still make its commit by its
// own clock (checked before the commit is staged).
func LeaseHeld(p *Pending) bool { return time.Now().Before(p.Expires) }

// Stage publishes change as a pending version marked p: it takes effect
// when p's graph commit lands. The caller then makes that commit and
// calls Settle, whatever happened.
func (s *Store) Stage(ctx context.Context, seed, change func(*Catalog) error, p *Pending) (*Catalog, error) {
	setInFlight(s.instance, p.CommitID, true)
	c, err := s.update(ctx, seed, change, p)
	if err != nil {
		setInFlight(s.instance, p.CommitID, false)
	}
	return c, err
}

// Settle publishes the decision of the pending version marked with
// commitID: committed when the caller knows its commit landed or that it
// made none (then the role changes stand alone); else the graph decides
// (recovery barrier, then lineage). A version already decided by
// someone else is left alone.
func (s *Store) Settle(ctx context.Context, commitID string, committed bool) error {
	setInFlight(s.instance, commitID, false)
	_, err := s.update(ctx, nil, func(*Catalog) error { return ErrNoChange }, nil, settle{commitID, committed})
	return err
}

// settle is what the writer itself knows of its pending version.
type settle struct {
	commitID  string
	committed bool
}

// decided is cur's effective content when cur is pending: its own
// content (without the mark, Version cur.Version) when its commit
// landed, the previous version's (Version cur.Version-1) when it did
// not or not yet. final: the answer must be for good — a live owner
// answers errOwnerLive, a gone one is recovered first. Called with s.mu
// held.
func (s *Store) decided(ctx context.Context, cur *Catalog, final bool, known *settle) (*Catalog, error) {
	p := cur.Pending
	if known != nil && known.commitID == p.CommitID && known.committed {
		return s.landed(cur), nil
	}
	if s.eff != nil && s.eff.Version == cur.Version {
		return s.eff, nil // landed before: for good
	}
	res := s.resolve()
	if res == nil {
		return nil, errors.New("access: a pending role change cannot be decided without the graph")
	}
	ok, err := res.Landed(ctx, p)
	if err != nil {
		return nil, err
	}
	if ok {
		return s.landed(cur), nil
	}
	if !final {
		return s.previous(ctx, cur) // not (yet) visible
	}
	if ownerLive(p, time.Now()) {
		return nil, errOwnerLive
	}
	if err := res.Recover(ctx, p.Branch); err != nil {
		return nil, err
	}
	if ok, err := res.Landed(ctx, p); err != nil {
		return nil, err
	} else if ok {
		return s.landed(cur), nil
	}
	return s.previous(ctx, cur)
}

// landed is cur's content taking effect.
func (s *Store) landed(cur *Catalog) *Catalog {
	if s.eff == nil || s.eff.Version != cur.Version {
		c := cur.clone()
		c.Pending = nil
		s.eff = c
	}
	return s.eff
}

// previous is the version before cur (cached).
func (s *Store) previous(ctx context.Context, cur *Catalog) (*Catalog, error) {
	v := cur.Version - 1
	if s.prev != nil && s.prev.Version == v {
		return s.prev, nil
	}
	c := &Catalog{}
	if v > 0 {
		var err error
		if c, err = s.read(ctx, v); err != nil {
			return nil, err
		}
	}
	s.prev = c
	return c, nil
}

// newInstance names a Store as a pending change's owner.
func newInstance() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
