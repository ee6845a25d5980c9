package graph

import (
	"context"
	"testing"
	"time"

	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

func TestInitCreatesManifestAndOpenReadsIt(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	r, created, err := Init(ctx, store, "tester")
	if err != nil || !created {
		t.Fatalf("init: %v %v", created, err)
	}
	sn, err := r.Head(ctx, MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	if sn.Version != 1 || sn.Commit.ID != r.Stamp().GraphID || len(sn.State.Tables) != 0 || sn.State.Schema.NextID != 1 {
		t.Fatalf("initial snapshot %+v", sn)
	}
	r2, created, err := Init(ctx, store, "again")
	if err != nil || created || r2.Stamp().GraphID != r.Stamp().GraphID {
		t.Fatalf("second init: %v %v", created, err)
	}
	if sn2, _ := r2.Head(ctx, ""); sn2.Version != 1 {
		t.Fatalf("second init made version %d", sn2.Version)
	}
}

func TestInterruptedInitIsCompleted(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"stamp only", "stamp and staged manifest files"} {
		t.Run(name, func(t *testing.T) {
			store := objstore.NewMem()
			st, _, err := InitStamp(ctx, store, "crashed-init")
			if err != nil {
				t.Fatal(err)
			}
			if name != "stamp only" {
				// a crashed init may leave uncommitted manifest files
				if err := store.Put(ctx, ManifestRoot+"/data/garbage.lance", []byte("x")); err != nil {
					t.Fatal(err)
				}
			}
			r, err := Open(ctx, store)
			if err != nil {
				t.Fatalf("open of an interrupted init: %v", err)
			}
			sn, err := r.Head(ctx, "")
			if err != nil || sn.Version != 1 || sn.Commit.ID != st.GraphID {
				t.Fatalf("completed init: %+v %v", sn, err)
			}
		})
	}
	// an empty location is refused, not silently initialized
	if _, err := Open(ctx, objstore.NewMem()); !IsNotInitialized(err) {
		t.Fatalf("open of an empty store: %v", err)
	}
}

func TestPublishIsCASAndSnapshotsTimeTravel(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	r, _, err := Init(ctx, store, "t")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := r.Head(ctx, "")
	var ids []string
	var times []time.Time
	cur := base
	for i := 0; i < 3; i++ {
		st := cur.State.Clone()
		k := TableKey{ID: st.Schema.Allocate(), Incarnation: st.Schema.Allocate()}
		st.Put(TableEntry{ID: k.ID, Incarnation: k.Incarnation, Name: string(rune('a' + i)), Kind: NodeTable, Location: TableLocation(k), State: Live})
		c := Commit{ID: NewID(), Parent: cur.Commit.ID, Actor: "t", Time: time.Now().UTC()}
		time.Sleep(2 * time.Millisecond)
		next, err := r.Publish(ctx, cur, st, c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, c.ID)
		times = append(times, c.Time)
		cur = next
	}
	// a publish on a stale base loses the slot
	if _, err := r.Publish(ctx, base, base.State, Commit{ID: NewID()}); !lance.IsConflict(err) {
		t.Fatalf("stale publish: %v", err)
	}
	sn, err := r.SnapshotByCommit(ctx, "", ids[1])
	if err != nil || sn.Version != 3 || len(sn.State.Tables) != 2 {
		t.Fatalf("by commit: %+v %v", sn, err)
	}
	sn, err = r.SnapshotAsOf(ctx, "", times[0].Add(time.Millisecond))
	if err != nil || sn.Commit.ID != ids[0] {
		t.Fatalf("as of: %+v %v", sn, err)
	}
	if _, err := r.SnapshotAsOf(ctx, "", time.Unix(0, 0)); err == nil {
		t.Fatal("as of the epoch found a snapshot")
	}
	sn, err = r.SnapshotAt(ctx, "", 2)
	if err != nil || len(sn.State.Tables) != 1 || sn.Catalog().Tables()[0].Name != "a" {
		t.Fatalf("at version: %+v %v", sn, err)
	}
	// a fresh handle reads the same head (cold open)
	r2, err := Open(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := r2.Head(ctx, "")
	if h2.Version != 4 || h2.Commit.ID != ids[2] {
		t.Fatalf("cold head %+v", h2)
	}
	if _, err := r2.Head(ctx, "nope"); !IsUnknownBranch(err) {
		t.Fatalf("unknown branch: %v", err)
	}
	// every version (init, the publishes, the lost one) kept its
	// transaction inline only: no transaction file was written
	// (docs/write-protocol.md §7.6), and the cold reads above decoded
	// the state from the inline section
	if objs, err := store.List(ctx, ManifestRoot+"/_transactions/"); err != nil || len(objs) != 0 {
		t.Fatalf("__manifest transaction files %v %v", objs, err)
	}
}

func TestStateValidate(t *testing.T) {
	ok := State{Schema: SchemaRow{NextID: 10}, Tables: []TableEntry{{ID: 1, Incarnation: 2, Name: "a", State: Live}}}
	cases := map[string]State{
		"duplicate live name":                    {Schema: SchemaRow{NextID: 10}, Tables: []TableEntry{{ID: 1, Incarnation: 2, Name: "a", State: Live}, {ID: 3, Incarnation: 4, Name: "a", State: Live}}},
		"unsorted":                               {Schema: SchemaRow{NextID: 10}, Tables: []TableEntry{{ID: 3, Incarnation: 4, Name: "b", State: Live}, {ID: 1, Incarnation: 2, Name: "a", State: Live}}},
		"bad state":                              {Schema: SchemaRow{NextID: 10}, Tables: []TableEntry{{ID: 1, Incarnation: 2, Name: "a", State: "zombie"}}},
		"id above allocator":                     {Schema: SchemaRow{NextID: 2}, Tables: []TableEntry{{ID: 1, Incarnation: 2, Name: "a", State: Live}}},
		"branch id, incarnation above allocator": {Schema: SchemaRow{NextID: 2}, Tables: []TableEntry{{ID: BranchID | 7, Incarnation: 2, Name: "a", State: Live}}},
	}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, st := range cases {
		if err := st.Validate(); !IsCorruptManifest(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
	// a table created off main has a random id above the allocator
	// (BranchID) and its OID in its entry
	br := State{Schema: SchemaRow{NextID: 10}, Tables: []TableEntry{{ID: 1, Incarnation: 2, Name: "a", State: Live}, {ID: BranchID | 12345, Incarnation: 3, OID: FirstUserOID + 3, Name: "b", State: Live}}}
	if err := br.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := br.Tables[0].RelOID(); got != FirstUserOID+1 {
		t.Errorf("counter id's OID %d", got)
	}
	if got := br.Tables[1].RelOID(); got != FirstUserOID+3 {
		t.Errorf("branch id's OID %d", got)
	}
	if got := (TableEntry{}).RelOID(); got != 0 {
		t.Errorf("unpublished entry's OID %d", got)
	}
	// a dropped table frees its name
	d := State{Schema: SchemaRow{NextID: 10}, Tables: []TableEntry{{ID: 1, Incarnation: 2, Name: "a", State: Dropped}, {ID: 3, Incarnation: 4, Name: "a", State: Live}}}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptManifestStateRefused(t *testing.T) {
	for name, props := range map[string]map[string]string{
		"newer format": {PropFormat: "9", PropState: "{}", PropCommit: `{"id":"x"}`},
		"bad state":    {PropFormat: ManifestFormat, PropState: "{", PropCommit: `{"id":"x"}`},
		"no commit id": {PropFormat: ManifestFormat, PropState: "{}", PropCommit: `{}`},
	} {
		if _, _, err := decodeState(props); !IsCorruptManifest(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzDecodeState(f *testing.F) {
	f.Add(`{"schema":{"hash":"h","counter":1,"next_id":5},"tables":[{"id":1,"incarnation":2,"name":"a","state":"live"}]}`, `{"id":"c"}`)
	f.Add(`{}`, `{}`)
	f.Add(`{"tables":[{"id":1,"incarnation":2,"name":"a","state":"zombie"}]}`, `{"id":"c"}`)
	f.Fuzz(func(t *testing.T, state, commit string) {
		st, c, err := decodeState(map[string]string{PropFormat: ManifestFormat, PropState: state, PropCommit: commit})
		if err != nil {
			if !IsCorruptManifest(err) {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if c.ID == "" || st.Validate() != nil {
			t.Fatalf("accepted an invalid state")
		}
	})
}

func TestResolveAsOf(t *testing.T) {
	ctx := context.Background()
	r, _, err := Init(ctx, objstore.NewMem(), "t")
	if err != nil {
		t.Fatal(err)
	}
	base, _ := r.Head(ctx, "")
	c := Commit{ID: NewID(), Parent: base.Commit.ID, Time: time.Now().UTC().Add(time.Hour)}
	if _, err := r.Publish(ctx, base, base.State, c); err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]uint64{
		"1": 1, "2": 2, c.ID: 2, base.Commit.ID: 1,
		time.Now().UTC().Format(time.RFC3339Nano):                       1,
		c.Time.Add(time.Minute).Format("2006-01-02 15:04:05.999999Z07"): 2,
	} {
		sn, err := r.Resolve(ctx, "", spec)
		if err != nil || sn.Version != want {
			t.Errorf("%q: %v %v, want version %d", spec, sn, err, want)
		}
	}
	for _, bad := range []string{"", "nope", "1999-01-01"} {
		if _, err := r.Resolve(ctx, "", bad); err == nil {
			t.Errorf("%q resolved", bad)
		}
	}
}
