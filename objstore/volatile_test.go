package objstore_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

// Every backend and wrapper forwards PutVolatile, so a hint written
// through any stack skips the fsyncs; none of them syncs for it.
func TestPutVolatileIssuesNoFsync(t *testing.T) {
	ctx := context.Background()
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			s := b.make(t)
			if _, ok := s.(objstore.VolatilePutter); !ok {
				t.Fatalf("%T does not forward PutVolatile", s)
			}
			// the directory exists already (a hint's _versions/ does)
			if err := s.Put(ctx, "d/x", []byte("1")); err != nil {
				t.Fatal(err)
			}
			fc, ok := s.(interface{ Fsyncs() int64 })
			if !ok {
				t.Fatalf("%T does not count fsyncs", s)
			}
			before := fc.Fsyncs()
			if err := objstore.PutVolatile(ctx, s, "d/hint", []byte("2")); err != nil {
				t.Fatal(err)
			}
			if n := fc.Fsyncs() - before; n != 0 {
				t.Fatalf("PutVolatile issued %d fsyncs", n)
			}
			if err := s.Put(ctx, "d/durable", []byte("3")); err != nil {
				t.Fatal(err)
			}
			if n := fc.Fsyncs() - before; n != 2 {
				t.Fatalf("a durable Put after it issued %d fsyncs, want 2 (the count can fail)", n)
			}
		})
	}
}

// On Mem a volatile write is unsynced: a power loss drops it and keeps
// the durable writes around it, and the object's earlier durable content
// comes back.
func TestMemPowerLossDropsVolatileWrite(t *testing.T) {
	ctx := context.Background()
	m := objstore.NewMem()
	if err := m.Put(ctx, "h", []byte("old")); err != nil {
		t.Fatal(err)
	}
	if err := m.PutVolatile(ctx, "h", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := m.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if got := m.Unsynced(); len(got) != 1 || got[0] != "h" {
		t.Fatalf("Unsynced = %v, want [h]", got)
	}
	m.PowerLoss(nil)
	if b, err := m.Get(ctx, "h"); err != nil || string(b) != "old" {
		t.Fatalf("after power loss h = %q, %v; want the durable %q", b, err, "old")
	}
	if b, err := m.Get(ctx, "k"); err != nil || string(b) != "v" {
		t.Fatalf("durable k lost: %q, %v", b, err)
	}
}

// Faulty treats a volatile put as a put: sweeps can crash on it.
func TestFaultyCountsVolatilePut(t *testing.T) {
	ctx := context.Background()
	f := objstore.NewFaulty(objstore.NewMem())
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskOf(objstore.OpPut), N: 1, Mode: objstore.Crash})
	err := objstore.PutVolatile(ctx, f, "h", []byte("x"))
	if !strings.Contains(err.Error(), "crash") || !f.Crashed() {
		t.Fatalf("PutVolatile under a crash rule = %v, crashed %v", err, f.Crashed())
	}
}

// Tracing marks the write as volatile.
func TestTracingMarksVolatilePut(t *testing.T) {
	ctx := context.Background()
	tr := objstore.NewTracing(objstore.NewMem())
	if err := objstore.PutVolatile(ctx, tr, "h", []byte("xy")); err != nil {
		t.Fatal(err)
	}
	if got, want := tr.String(), "put h 2B volatile -> ok\n"; got != want {
		t.Fatalf("trace = %q, want %q", got, want)
	}
}
