package graph

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Property keys of a __manifest version's Lance transaction. The commit
// row is the graph lineage of that version; the state is the complete
// current-state table (one row per registered table plus the schema row),
// kept inline in the manifest file so reading a snapshot costs the one
// manifest read Lance does anyway, never a scan of history.
const (
	PropCommit = "pggraph.commit"
	PropState  = "pggraph.state"
	// PropFormat names the state encoding; a newer one is refused.
	PropFormat = "pggraph.manifest_format"
	// ManifestFormat is the state encoding this build writes and reads.
	ManifestFormat = "1"
)

// TableState says whether a registered table is live or tombstoned.
type TableState string

// Table states.
const (
	Live    TableState = "live"
	Dropped TableState = "dropped"
)

// TableKind is the graph role of a table.
type TableKind string

// Table kinds.
const (
	NodeTable     TableKind = "node"
	EdgeTable     TableKind = "edge"
	RelationTable TableKind = "relation"
)

// TableEntry is one row of the manifest: where one table incarnation's
// pinned version lives.
type TableEntry struct {
	ID          uint64     `json:"id"`          // stable table id, never reused
	Incarnation uint64     `json:"incarnation"` // changes on drop/re-create
	Name        string     `json:"name"`        // SQL name
	Kind        TableKind  `json:"kind"`
	Def         TableDef   `json:"def"`
	Location    string     `json:"location"` // dataset root key
	Version     uint64     `json:"version"`  // pinned Lance version
	Branch      string     `json:"branch"`   // Lance branch holding Version ("" = main)
	RowCount    uint64     `json:"row_count"`
	State       TableState `json:"state"`
	// Epoch is bumped by a recovery fence: a writer that prepared against
	// an older epoch can no longer publish (its read-set member changed).
	Epoch uint64 `json:"epoch,omitempty"`
	// OID, when set, is the relation's PostgreSQL OID (pg_class.oid);
	// unset, it is FirstUserOID + ID. A table created off main has a
	// random ID (BranchID) and an OID from the allocator; a merge gives a
	// registered table whose OID another live table of the target has a
	// fresh one (docs/architecture.md, merges). The OID is a display
	// attribute of one catalog, never an identity: merges match tables by
	// ID.
	OID uint32 `json:"oid,omitempty"`
	// Txn, when set, is the commit record of a pin published before its
	// Lance version existed (commit path v2, docs/architecture.md): the
	// UUID of the transaction staged against Version-1 whose application
	// yields Version. Version may not be materialized yet; open it with
	// Root.OpenTable or Root.Materialize, which materialize it first.
	Txn string `json:"txn,omitempty"`
}

// FirstUserOID is where PostgreSQL starts user object OIDs.
const FirstUserOID = 16384

// BranchID marks a table id drawn at random (bit 62 and 62 random bits)
// rather than from the allocator: a table created on a branch other than
// main. Each branch's allocator is a copy of its parent's, so counter ids
// two branches draw collide, and a random id keeps every table created on
// either side of a fork distinct when they merge.
const BranchID uint64 = 1 << 62

// RelOID is the entry's relation OID (0 for an entry not yet published,
// whose ID is 0).
func (e TableEntry) RelOID() uint32 {
	if e.OID != 0 {
		return e.OID
	}
	if e.ID == 0 {
		return 0
	}
	return uint32(FirstUserOID + e.ID)
}

// Key is the identity pair of the entry.
func (e TableEntry) Key() TableKey { return TableKey{ID: e.ID, Incarnation: e.Incarnation} }

// TableKey identifies one table incarnation.
type TableKey struct {
	ID          uint64 `json:"id"`
	Incarnation uint64 `json:"incarnation"`
}

func (k TableKey) String() string { return fmt.Sprintf("%016x-%016x", k.ID, k.Incarnation) }

// TableLocation is the dataset root of a table incarnation.
func TableLocation(k TableKey) string { return "tables/" + k.String() + ".lance" }

// SchemaRow is the schema identity: a content hash plus a monotonic
// counter, and the stable id allocator.
type SchemaRow struct {
	Hash    string `json:"hash"`
	Counter uint64 `json:"counter"`
	NextID  uint64 `json:"next_id"`
}

// Identity is what a read set compares.
func (s SchemaRow) Identity() string { return fmt.Sprintf("%d:%s", s.Counter, s.Hash) }

// CommitTime is t at the precision commit times are stored, shown and
// compared at: PostgreSQL's timestamptz precision, microseconds. A commit
// time finer than what graph.commits displays would make `SET graph.as_of`
// to the displayed time miss the commit it shows (the display truncates).
func CommitTime(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.Truncate(time.Microsecond)
}

// Commit is the lineage of one manifest version.
type Commit struct {
	ID           string `json:"id"`
	Parent       string `json:"parent,omitempty"`
	MergedParent string `json:"merged_parent,omitempty"`
	// Actor is who made the commit: the SQL role for commits made by
	// SQL sessions, else the process or component (pggraph:recovery).
	Actor string `json:"actor"`
	// Application and Client are the committing session's
	// application_name and client address; Process the serving process
	// (empty when Actor names it).
	Application string    `json:"application,omitempty"`
	Client      string    `json:"client,omitempty"`
	Process     string    `json:"process,omitempty"`
	Message     string    `json:"message,omitempty"`
	Time        time.Time `json:"time"`
	OperationID string    `json:"operation_id,omitempty"`
	WriterKind  string    `json:"writer_kind,omitempty"`
	// Recovery names the recovery outcome when recovery published it.
	Recovery string `json:"recovery,omitempty"`
	// Members are the member transactions of a group commit (several
	// sessions' statements published by one manifest version), each with
	// its own id and attribution, in the order they were applied; the
	// commit's own ID and attribution are the first member's. Empty for
	// an ordinary commit.
	Members []CommitMember `json:"members,omitempty"`
}

// CommitMember is one member transaction of a group commit.
type CommitMember struct {
	ID          string `json:"id"`
	Actor       string `json:"actor"`
	Application string `json:"application,omitempty"`
	Client      string `json:"client,omitempty"`
	Process     string `json:"process,omitempty"`
	Message     string `json:"message,omitempty"`
}

// Names reports whether id is the commit's id or one of its members'.
func (c Commit) Names(id string) bool {
	if strings.EqualFold(c.ID, id) {
		return true
	}
	for _, m := range c.Members {
		if strings.EqualFold(m.ID, id) {
			return true
		}
	}
	return false
}

// Rows returns the commit as graph.commits lists it: one row per member
// transaction of a group commit (its own id, attribution and message,
// the group's parent, time and operation), else the commit itself.
func (c Commit) Rows() []Commit {
	if len(c.Members) == 0 {
		return []Commit{c}
	}
	out := make([]Commit, len(c.Members))
	for i, m := range c.Members {
		r := c
		r.Members = nil
		r.ID, r.Actor, r.Application, r.Client, r.Process, r.Message = m.ID, m.Actor, m.Application, m.Client, m.Process, m.Message
		out[i] = r
	}
	return out
}

// State is the whole current state of one manifest version.
type State struct {
	Schema SchemaRow    `json:"schema"`
	Tables []TableEntry `json:"tables"` // sorted by (ID, Incarnation)
}

// Clone returns a deep-enough copy (entries are values).
func (s State) Clone() State {
	c := State{Schema: s.Schema, Tables: make([]TableEntry, len(s.Tables))}
	copy(c.Tables, s.Tables)
	for i := range c.Tables {
		c.Tables[i].Def = c.Tables[i].Def.clone()
	}
	return c
}

// Table returns the entry for k.
func (s State) Table(k TableKey) (TableEntry, bool) {
	i := sort.Search(len(s.Tables), func(i int) bool { return !keyLess(s.Tables[i].Key(), k) })
	if i < len(s.Tables) && s.Tables[i].Key() == k {
		return s.Tables[i], true
	}
	return TableEntry{}, false
}

// TableByName returns the live entry named name.
func (s State) TableByName(name string) (TableEntry, bool) {
	for _, t := range s.Tables {
		if t.State == Live && t.Name == name {
			return t, true
		}
	}
	return TableEntry{}, false
}

// Put inserts or replaces an entry, keeping the order.
func (s *State) Put(e TableEntry) {
	k := e.Key()
	i := sort.Search(len(s.Tables), func(i int) bool { return !keyLess(s.Tables[i].Key(), k) })
	if i < len(s.Tables) && s.Tables[i].Key() == k {
		s.Tables[i] = e
		return
	}
	s.Tables = append(s.Tables, TableEntry{})
	copy(s.Tables[i+1:], s.Tables[i:])
	s.Tables[i] = e
}

func keyLess(a, b TableKey) bool {
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Incarnation < b.Incarnation
}

// Validate checks the structural invariants of a state: sorted unique
// keys, one live table per name, ids below the allocator (random
// BranchID ids aside).
func (s State) Validate() error {
	names := map[string]bool{}
	for i, t := range s.Tables {
		if i > 0 && !keyLess(s.Tables[i-1].Key(), t.Key()) {
			return fmt.Errorf("%w: table entries not strictly sorted at %s", ErrCorruptManifest, t.Key())
		}
		if t.State != Live && t.State != Dropped {
			return fmt.Errorf("%w: table %s has state %q", ErrCorruptManifest, t.Key(), t.State)
		}
		if t.State == Live {
			if names[t.Name] {
				return fmt.Errorf("%w: two live tables named %q", ErrCorruptManifest, t.Name)
			}
			names[t.Name] = true
		}
		if t.ID >= s.Schema.NextID && t.ID&BranchID == 0 || t.Incarnation >= s.Schema.NextID {
			return fmt.Errorf("%w: table %s id not below the allocator %d", ErrCorruptManifest, t.Key(), s.Schema.NextID)
		}
	}
	return nil
}

func encodeState(s State) (string, error) {
	b, err := json.Marshal(s)
	return string(b), err
}

func decodeState(props map[string]string) (State, Commit, error) {
	if f := props[PropFormat]; f != ManifestFormat {
		return State{}, Commit{}, fmt.Errorf("%w: manifest format %q (this build reads %q)", ErrCorruptManifest, f, ManifestFormat)
	}
	var s State
	if err := json.Unmarshal([]byte(props[PropState]), &s); err != nil {
		return State{}, Commit{}, fmt.Errorf("%w: state: %v", ErrCorruptManifest, err)
	}
	var c Commit
	if err := json.Unmarshal([]byte(props[PropCommit]), &c); err != nil {
		return State{}, Commit{}, fmt.Errorf("%w: commit: %v", ErrCorruptManifest, err)
	}
	if c.ID == "" {
		return State{}, Commit{}, fmt.Errorf("%w: commit without id", ErrCorruptManifest)
	}
	c.Time = CommitTime(c.Time) // roots written before commit times were stored at µs
	if err := s.Validate(); err != nil {
		return State{}, Commit{}, err
	}
	return s, c, nil
}
