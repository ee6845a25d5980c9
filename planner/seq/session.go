package seq

import (
	"context"
	"sync"

	"github.com/pggraph/pggraph/pgerr"
)

// Session holds one connection's currval/lastval state.
type Session struct {
	mu      sync.Mutex
	last    map[string]int64 // by sequence key
	lastKey string
	lastSet bool
}

// NewSession starts a session with no values yet.
func NewSession() *Session { return &Session{last: map[string]int64{}} }

// Nextval is nextval(s): the next value, remembered for currval/lastval.
func (ss *Session) Nextval(ctx context.Context, a *Allocator, s Spec) (int64, error) {
	v, err := a.Next(ctx, s)
	if err != nil {
		return 0, err
	}
	ss.remember(s.Key, v)
	return v, nil
}

func (ss *Session) remember(key string, v int64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.last[key] = v
	ss.lastKey, ss.lastSet = key, true
}

// Currval is currval(s): the value nextval last returned for s in this
// session (55000 before any).
func (ss *Session) Currval(s Spec) (int64, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	v, ok := ss.last[s.Key]
	if !ok {
		return 0, pgerr.Errorf(CodeNotInState, "currval of sequence \"%s\" is not yet defined in this session", s.Name)
	}
	return v, nil
}

// Lastval is lastval(): the value of the most recent nextval in this
// session, whatever the sequence (55000 before any).
func (ss *Session) Lastval() (int64, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if !ss.lastSet {
		return 0, pgerr.Errorf(CodeNotInState, "lastval is not yet defined in this session")
	}
	return ss.last[ss.lastKey], nil
}

// LastKey is the key of the sequence lastval() reads (ok false before
// any), so the caller can check the privileges lastval needs on it.
func (ss *Session) LastKey() (key string, ok bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.lastKey, ss.lastSet
}

// Setval is setval(s, v, isCalled); it returns v. With isCalled the
// session's currval becomes v, as in PostgreSQL.
func (ss *Session) Setval(ctx context.Context, a *Allocator, s Spec, v int64, isCalled bool) (int64, error) {
	if err := a.SetVal(ctx, s, v, isCalled); err != nil {
		return 0, err
	}
	if isCalled {
		ss.remember(s.Key, v)
	}
	return v, nil
}

// Forget drops the session's values of a dropped sequence.
func (ss *Session) Forget(key string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.last, key)
	if ss.lastKey == key {
		ss.lastSet = false
	}
}
