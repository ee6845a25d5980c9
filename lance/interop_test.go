package lance

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/pggraph/pggraph/internal/oracle"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/objstore"
)

// oracleRows converts an oracle dump into scannedRows (addr unset).
func oracleRows(t *testing.T, d oracle.Dump) []scannedRow {
	t.Helper()
	var out []scannedRow
	for _, r := range d.Rows {
		id, err := strconv.ParseInt(fmt.Sprint(r["id"]), 10, 64)
		if err != nil {
			t.Fatalf("oracle id %v: %v", r["id"], err)
		}
		sr := scannedRow{id: id}
		if n, ok := r["name"].(string); ok {
			sr.name = &n
		} else if r["name"] != nil {
			t.Fatalf("oracle name %v", r["name"])
		}
		if s, ok := r["score"].(float64); ok {
			sr.score = s
		} else {
			t.Fatalf("oracle score %v", r["score"])
		}
		out = append(out, sr)
	}
	return out
}

func oracleRowsFor(ids []int64) []oracle.Row {
	var rows []oracle.Row
	for _, id := range ids {
		r := oracle.Row{"id": strconv.FormatInt(id, 10), "score": float64(id) / 2, "name": nil}
		if n := rowName(id); n != nil {
			r["name"] = *n
		}
		rows = append(rows, r)
	}
	return rows
}

func localStore(t *testing.T) (*objstore.Local, string) {
	t.Helper()
	dir := t.TempDir()
	st, err := objstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st, dir
}

// TestInteropGoWritesLanceReads: a dataset created, appended, deleted,
// updated and tagged by our code is read by the official Lance value by
// value, at every version and tag; then Lance appends on top and we read
// its commit, and we commit over Lance's.
func TestInteropGoWritesLanceReads(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)

	ds, err := Create(ctx, store, "t.lance", rowsReader(t, 0, 50, 20), Options{})
	if err != nil {
		t.Fatal(err)
	}
	st, err := ds.StageAppend(ctx, rowsReader(t, 50, 120, 30), StageOptions{MaxRowsPerFile: 40})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	addr := map[int64]uint64{}
	for _, r := range scanAll(t, ds, ScanOptions{}) {
		addr[r.id] = r.addr
	}
	st, err = ds.StageDelete(ctx, []uint64{addr[1], addr[2], addr[60], addr[119]}, StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err = ds.StageUpdate(ctx, []uint64{addr[10], addr[70]}, rowsReaderIDs(t, 10, 70), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ds.CreateTag(ctx, "after-append", 2); err != nil {
		t.Fatal(err)
	}
	want := idRange(0, 120, 1, 2, 60, 119)

	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), want)
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t", oracle.AtVersion(1))), idRange(0, 50))
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t", oracle.AtTag("after-append"))), idRange(0, 120))
	if vs := oracle.Versions(t, dir, "t"); len(vs) != 4 || vs[3].Version != 4 {
		t.Fatalf("oracle versions %+v", vs)
	}
	v2, _ := ds.Checkout(ctx, 2)
	if tags := oracle.Tags(t, dir, "t"); tags["after-append"].Version != 2 || int64(tags["after-append"].ManifestSize) != v2.ManifestSize() {
		t.Fatalf("oracle tags %+v", tags)
	}

	// Lance appends on top of our versions; we read its commit.
	oracle.Append(t, dir, "t", oracleRowsFor(idRange(500, 510)))
	ds, err = ds.Latest(ctx)
	if err != nil || ds.Version() != 5 {
		t.Fatalf("latest after Lance append: %v %v", ds, err)
	}
	want = append(want, idRange(500, 510)...)
	checkRows(t, scanAll(t, ds, ScanOptions{}), want)

	// A stale Go stager (read version 4) rebases over Lance's commit.
	v4, _ := ds.Checkout(ctx, 4)
	st, err = v4.StageAppend(ctx, rowsReader(t, 600, 605, 5), StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lanceTxn, err := ds.Transaction(ctx, 5)
	if err != nil || lanceTxn.Op.Kind().String() != "Append" {
		t.Fatalf("Lance's transaction: %v %v", lanceTxn, err)
	}
	_, err = st.Commit(ctx, CommitOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Kind != ConflictLost || ce.WinnerUUID() != lanceTxn.UUID {
		t.Fatalf("exact commit over Lance's v5: want conflict with %s, got %v", lanceTxn.UUID, err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{Mode: CommitRebase}); err != nil {
		t.Fatal(err)
	}
	want = append(want, idRange(600, 605)...)
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), want)
	checkRows(t, scanAll(t, ds, ScanOptions{}), want)

	// Restore version 2, then overwrite: Lance follows both.
	if st, err = ds.StageRestore(ctx, 2, StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), idRange(0, 120))
	if st, err = ds.StageOverwrite(ctx, rowsReader(t, 900, 930, 30), StageOptions{}); err != nil {
		t.Fatal(err)
	}
	if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "t")), idRange(900, 930))
	ours, err := ds.ListVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameVersions(t, ours, oracle.Versions(t, dir, "t"))
}

// sameVersions checks that Lance lists the same versions with the same
// timestamps (to its millisecond precision) as we do.
func sameVersions(t *testing.T, ours []VersionInfo, theirs []oracle.Version) {
	t.Helper()
	if len(ours) != len(theirs) {
		t.Fatalf("we list %d versions, Lance %d", len(ours), len(theirs))
	}
	for i := range ours {
		ts, err := time.Parse(time.RFC3339Nano, theirs[i].Timestamp)
		if err != nil {
			t.Fatal(err)
		}
		if d := ours[i].Timestamp.Sub(ts); uint64(theirs[i].Version) != ours[i].Version || d <= -time.Millisecond || d >= time.Millisecond {
			t.Fatalf("version %d: Lance says v%d at %s, we say %s", i, theirs[i].Version, ts, ours[i].Timestamp)
		}
	}
}

// TestInteropGoV1Naming: a dataset we create with V1 manifest names is
// read by Lance, and Lance's next commit keeps V1 names.
func TestInteropGoV1Naming(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "v.lance", rowsReader(t, 0, 10, 10), Options{Naming: NamingV1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Stat(ctx, "v.lance/_versions/1.manifest"); err != nil {
		t.Fatal(err)
	}
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "v")), idRange(0, 10))
	oracle.Append(t, dir, "v", oracleRowsFor(idRange(10, 12)))
	if _, err := store.Stat(ctx, "v.lance/_versions/2.manifest"); err != nil {
		t.Fatalf("Lance did not keep V1 naming: %v", err)
	}
	if ds, err = ds.Latest(ctx); err != nil || ds.Version() != 2 {
		t.Fatalf("latest %v %v", ds, err)
	}
	checkRows(t, scanAll(t, ds, ScanOptions{}), idRange(0, 12))
	if _, err := ds.ListVersions(ctx); err != nil {
		t.Fatal(err)
	}
}

func oracleColumns() []oracle.Column {
	md := schema.PlainEncodingMetadata()
	return []oracle.Column{
		{Name: "id", Type: "int64", Metadata: md},
		{Name: "name", Type: "string", Nullable: true, Metadata: md},
		{Name: "score", Type: "double", Nullable: true, Metadata: md},
	}
}

// TestInteropLanceWritesGoReads: datasets the official Lance creates,
// appends to and tags (V2 and V1 manifest naming) are read exactly by our
// code; our appends keep the dataset's naming and Lance reads them.
func TestInteropLanceWritesGoReads(t *testing.T) {
	for _, naming := range []Naming{NamingV2, NamingV1} {
		t.Run(naming.String(), func(t *testing.T) {
			ctx := context.Background()
			store, dir := localStore(t)
			var extra []string
			if naming == NamingV1 {
				extra = []string{"--v1-manifest-paths"}
			}
			oracle.Create(t, dir, "o", oracleColumns(), oracleRowsFor(idRange(0, 40)), extra...)
			oracle.Append(t, dir, "o", oracleRowsFor(idRange(40, 45)))
			oracle.CreateTag(t, dir, "o", "first", 1)

			ds, err := Open(ctx, store, "o.lance", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if ds.Version() != 2 || ds.Naming() != naming {
				t.Fatalf("version %d naming %v", ds.Version(), ds.Naming())
			}
			checkRows(t, scanAll(t, ds, ScanOptions{}), idRange(0, 45))
			tagged, err := ds.CheckoutTag(ctx, "first")
			if err != nil || tagged.Version() != 1 {
				t.Fatalf("tag: %v %v", tagged, err)
			}
			checkRows(t, scanAll(t, tagged, ScanOptions{}), idRange(0, 40))
			vs, err := ds.ListVersions(ctx)
			if err != nil || len(vs) != 2 || vs[0].Timestamp.IsZero() || vs[1].Operation != "Append" {
				t.Fatalf("versions %+v %v", vs, err)
			}
			sameVersions(t, vs, oracle.Versions(t, dir, "o"))

			st, err := ds.StageAppend(ctx, rowsReader(t, 45, 50, 5), StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := store.Stat(ctx, "o.lance/_versions/"+manifestName(naming, 3)); err != nil {
				t.Fatalf("our commit did not keep %v naming: %v", naming, err)
			}
			if _, err := ds.ListVersions(ctx); err != nil {
				t.Fatal(err)
			}
			checkRows(t, oracleRows(t, oracle.Read(t, dir, "o")), idRange(0, 50))

			// Lance deletes (arrow deletion files); we read the result.
			oracle.Delete(t, dir, "o", "id IN (3, 41) OR id >= 48")
			if ds, err = ds.Latest(ctx); err != nil || ds.Version() != 4 {
				t.Fatalf("latest after Lance delete: %v %v", ds, err)
			}
			rows := scanAll(t, ds, ScanOptions{})
			checkRows(t, rows, idRange(0, 48, 3, 41))
			// We delete more rows of the same fragments (merging Lance's
			// vector into our .bin); Lance reads the result.
			addr := map[int64]uint64{}
			for _, r := range rows {
				addr[r.id] = r.addr
			}
			st, err = ds.StageDelete(ctx, []uint64{addr[4], addr[40], addr[45]}, StageOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			want := idRange(0, 48, 3, 4, 40, 41, 45)
			checkRows(t, scanAll(t, ds, ScanOptions{}), want)
			checkRows(t, oracleRows(t, oracle.Read(t, dir, "o")), want)
			checkRows(t, oracleRows(t, oracle.Read(t, dir, "o", oracle.AtVersion(4))), idRange(0, 48, 3, 41))
		})
	}
}

// TestInteropConcurrentRebase: writers racing from one read version all
// land through rebasing commits, and Lance reads every row.
func TestInteropConcurrentRebase(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "c.lance", rowsReader(t, 0, 10, 10), Options{})
	if err != nil {
		t.Fatal(err)
	}
	const writers = 4
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		lo := int64(100 * (w + 1))
		rdr := rowsReader(t, lo, lo+10, 5) // built here: t.Fatal only on the test goroutine
		go func() {
			st, err := ds.StageAppend(ctx, rdr, StageOptions{})
			if err == nil {
				_, err = st.Commit(ctx, CommitOptions{Mode: CommitRebase, MaxRetries: 50})
			}
			errs <- err
		}()
	}
	want := idRange(0, 10)
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		lo := int64(100 * (w + 1))
		want = append(want, idRange(lo, lo+10)...)
	}
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	checkRows(t, oracleRows(t, oracle.Read(t, dir, "c")), want)
	latest, err := ds.Latest(ctx)
	if err != nil || latest.Version() != writers+1 {
		t.Fatalf("latest %v %v", latest, err)
	}
	checkRows(t, scanAll(t, latest, ScanOptions{}), want)
}

// TestInteropEveryVersion: after a history of alternating appends and
// deletes written by us, Lance's checkout of every version returns
// exactly what our scan of that version returns.
func TestInteropEveryVersion(t *testing.T) {
	ctx := context.Background()
	store, dir := localStore(t)
	ds, err := Create(ctx, store, "h.lance", rowsReader(t, 0, 20, 20), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i <= 7; i++ {
		var st *Staged
		if i%2 == 1 {
			st, err = ds.StageAppend(ctx, rowsReader(t, 20*i, 20*i+20, 7), StageOptions{})
		} else {
			rows := scanAll(t, ds, ScanOptions{})
			st, err = ds.StageDelete(ctx, []uint64{rows[0].addr, rows[len(rows)/2].addr, rows[len(rows)-1].addr}, StageOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = st.Commit(ctx, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for v := uint64(1); v <= ds.Version(); v++ {
		at, err := ds.Checkout(ctx, v)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for _, r := range scanAll(t, at, ScanOptions{}) {
			want = append(want, r.id)
		}
		sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
		if uint64(len(want)) != at.CountRows() {
			t.Fatalf("v%d: scan %d rows, manifest counts %d", v, len(want), at.CountRows())
		}
		checkRows(t, oracleRows(t, oracle.Read(t, dir, "h", oracle.AtVersion(int(v)))), want)
	}
}
