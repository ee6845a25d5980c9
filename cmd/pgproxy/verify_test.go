package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

func TestInitVerifyRecover(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g")
	code, out, errOut := runCmd(t, nil, "init", "--data", dir)
	if code != 0 || !strings.Contains(out, "initialized graph root") {
		t.Fatalf("init: %d %q %q", code, out, errOut)
	}
	code, out, _ = runCmd(t, map[string]string{"PGGRAPH_DATA": dir}, "init")
	if code != 0 || !strings.Contains(out, "already initialized") {
		t.Fatalf("second init via env: %d %q", code, out)
	}
	code, out, _ = runCmd(t, nil, "verify", "--data", dir)
	if code != 0 || !strings.Contains(out, "stamp ok") {
		t.Fatalf("verify: %d %q", code, out)
	}
	code, out, _ = runCmd(t, nil, "recover", "--data", dir)
	if code != 0 || !strings.Contains(out, "nothing to recover") {
		t.Fatalf("recover: %d %q", code, out)
	}
	// An unreadable sidecar makes verify fail and recover refuse, untouched.
	side := filepath.Join(dir, "__recovery", "01J.json")
	_ = os.MkdirAll(filepath.Dir(side), 0o755)
	_ = os.WriteFile(side, []byte("{}"), 0o644)
	if code, out, e := runCmd(t, nil, "verify", "--data", dir); code != 1 || !strings.Contains(out, "unreadable") {
		t.Fatalf("verify with sidecar: %d %q %q", code, out, e)
	}
	if code, _, e := runCmd(t, nil, "recover", "--data", dir); code != 1 || !strings.Contains(e, "left untouched") {
		t.Fatalf("recover with sidecar: %d %q", code, e)
	}
	if _, err := os.Stat(side); err != nil {
		t.Fatal("recover removed a sidecar it could not resolve")
	}
}

var idSchema = arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)

func idRows(ids ...int64) adapters.Source {
	return func(ctx context.Context) (array.RecordReader, error) {
		b := array.NewRecordBuilder(memory.DefaultAllocator, idSchema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
		r := b.NewRecordBatch()
		defer r.Release()
		return array.NewRecordReader(idSchema, []arrow.RecordBatch{r})
	}
}

func TestVerifyAndRecoverAnInterruptedWrite(t *testing.T) {
	ctx := context.Background()
	dir, store, g := rootWithTableA(t)
	if _, err := g.CreateBranch(ctx, "dev", ""); err != nil {
		t.Fatal(err)
	}
	g.Close()
	// A branch's first touch of a table arms a sidecar (the one write
	// shape that still does): crash right after its third durable write,
	// with the sidecar armed.
	f := objstore.NewFaulty(store)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 3, Mode: objstore.CrashAfter})
	g, err := adapters.Open(ctx, f, adapters.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, werr := g.Write(ctx, adapters.WriteOptions{Branch: "dev"}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("a", idRows(1)) })
	g.Close()
	if werr == nil {
		t.Fatal("write survived the crash")
	}
	code, out, _ := runCmd(t, nil, "verify", "--data", dir)
	if code != 1 || !strings.Contains(out, "pending recovery") || !strings.Contains(out, "owner gone") {
		t.Fatalf("verify: %d %q", code, out)
	}
	code, out, e := runCmd(t, nil, "recover", "--data", dir)
	if code != 0 || !(strings.Contains(out, "rolled_back") || strings.Contains(out, "empty_intent_finalized")) {
		t.Fatalf("recover: %d %q %q", code, out, e)
	}
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code != 0 {
		t.Fatalf("verify after recover: %d %q", code, out)
	}
	// A main-branch write publishes before its table version is written
	// (commit path v2): crashed right after the manifest CAS, it is
	// committed, verify reports the version as not materialized yet (no
	// problem), and the first open materializes it.
	for n := 1; ; n++ {
		f := objstore.NewFaulty(store)
		f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: int64(n), Mode: objstore.CrashAfter})
		g, err := adapters.Open(ctx, f, adapters.Options{SyncFinalize: true})
		if err != nil {
			t.Fatal(err)
		}
		_, werr := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error { return s.Insert("a", idRows(int64(100+n))) })
		g.Close()
		if werr == nil {
			t.Fatalf("a crash after durable write %d did not stop the write", n)
		}
		code, out, _ := runCmd(t, nil, "verify", "--data", dir)
		if code != 0 || strings.Contains(out, "\npending recovery") {
			t.Fatalf("verify after a crash at write %d: %d %q", n, code, out)
		}
		if strings.Contains(out, "not materialized yet") {
			break
		}
		if n > 12 {
			t.Fatalf("no crash point left a published, unmaterialized version:\n%s", out)
		}
	}
	g, err = adapters.Open(ctx, store, adapters.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sn, _ := g.Head(ctx, "")
	if ds, _, err := g.Table(ctx, sn, "a"); err != nil || ds.CountRows() != 1 {
		t.Fatalf("reading the published version: %v", err)
	}
	g.Close()
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code != 0 || strings.Contains(out, "not materialized") {
		t.Fatalf("verify after the first read: %d %q", code, out)
	}
	// a branch with a first-touch fork verifies too
	g, err = adapters.Open(ctx, store, adapters.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Write(ctx, adapters.WriteOptions{Branch: "dev"}, func(ctx context.Context, s *adapters.Stage) error {
		return s.Insert("a", idRows(3))
	}); err != nil {
		t.Fatal(err)
	}
	g.Close()
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code != 0 || !strings.Contains(out, "branch dev: manifest version") {
		t.Fatalf("verify with a branch: %d %q", code, out)
	}
	// a commit that bypasses the protocol is uncovered drift
	g, err = adapters.Open(ctx, store, adapters.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sn, _ = g.Head(ctx, "")
	ds, _, err := g.Table(ctx, sn, "a")
	if err != nil {
		t.Fatal(err)
	}
	g.Close()
	rdr, _ := idRows(7)(context.Background())
	st, err := ds.StageAppend(ctx, rdr, lance.StageOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Commit(ctx, lance.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, nil, "verify", "--data", dir); code != 1 || !strings.Contains(out, "uncovered drift") {
		t.Fatalf("verify with drift: %d %q", code, out)
	}
}
