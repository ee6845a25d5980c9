package graph

import "github.com/pggraph/pggraph/lance"

// The decoded-snapshot cache. A manifest version's state is immutable,
// so the decoded state of one (branch, branch incarnation, manifest
// version) never changes: Head of an unchanged branch reuses it instead
// of decoding the state JSON again (which dominated a `SELECT 1` through
// pgproxy). The incarnation is part of the key because a deleted and
// re-created branch restarts its version numbers.
//
// Sharing. The cached State is never handed out itself: every snapshot
// gets its own copy of the Tables slice (one allocation, O(tables)
// memcpy), so State.Put, assigning to Tables[i] or to Schema on a
// snapshot cannot reach the cache or another caller's snapshot. The
// entries' definitions (Def.Columns, Def.PrimaryKey, Def.Extra) are
// shared read-only, with their capacity clipped so an append reallocates
// instead of writing into the shared array; code that edits a definition
// in place must start from State.Clone() (every writer in the module
// does: TestHeadSnapshotsDoNotShareMutations).

// decodedHead is the decoded state of a branch's latest known head.
type decodedHead struct {
	inc     string
	version uint64
	st      State
	c       Commit
}

// remember caches st (owned by the cache from now on) as the state of
// (branch, inc, version) unless a newer version is cached already.
func (r *Root) remember(branch, inc string, version uint64, st State, c Commit) {
	for i := range st.Tables {
		d := &st.Tables[i].Def
		d.Columns = d.Columns[:len(d.Columns):len(d.Columns)]
		d.PrimaryKey = d.PrimaryKey[:len(d.PrimaryKey):len(d.PrimaryKey)]
		d.Extra = d.Extra[:len(d.Extra):len(d.Extra)]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur := r.decoded[branch]; cur != nil && cur.inc == inc && cur.version > version {
		return
	}
	r.decoded[branch] = &decodedHead{inc: inc, version: version, st: st, c: c}
}

// cachedHead returns the snapshot of ds (the head of branch, incarnation
// inc) from the cache, or nil.
func (r *Root) cachedHead(branch, inc string, ds *lance.Dataset) *Snapshot {
	r.mu.Lock()
	d := r.decoded[branch]
	r.mu.Unlock()
	if d == nil || d.inc != inc || d.version != ds.Version() {
		return nil
	}
	return &Snapshot{Branch: branch, Incarnation: inc, Version: d.version, Commit: d.c, State: d.st.share(), ds: ds}
}

// cachedState returns a shared view of the cached state of (branch, inc,
// version), or fallback when another version replaced it meanwhile.
func (r *Root) cachedState(branch, inc string, version uint64, fallback State) State {
	r.mu.Lock()
	d := r.decoded[branch]
	r.mu.Unlock()
	if d == nil || d.inc != inc || d.version != version {
		return fallback
	}
	return d.st.share()
}

// share is a copy of s whose Tables slice is private and whose entries'
// definitions are shared read-only (see above).
func (s State) share() State {
	return State{Schema: s.Schema, Tables: append([]TableEntry(nil), s.Tables...)}
}
