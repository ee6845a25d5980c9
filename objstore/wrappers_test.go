package objstore_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/objstore"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestFaultyRules(t *testing.T) {
	ctx := context.Background()
	type step struct {
		put     bool // Put "k<i>" if true, else Get "k0"
		wantErr error
	}
	cases := []struct {
		name  string
		rule  objstore.FaultRule
		steps []step
	}{
		{"fail 2nd write once", objstore.FaultRule{Ops: objstore.MaskWrites, N: 2, Mode: objstore.FailOnce},
			[]step{{true, nil}, {true, objstore.ErrInjected}, {true, nil}, {false, nil}}},
		{"fail 2nd write persistently", objstore.FaultRule{Ops: objstore.MaskWrites, N: 2, Mode: objstore.FailPersistent},
			[]step{{true, nil}, {true, objstore.ErrInjected}, {true, objstore.ErrInjected}, {false, nil}}},
		{"crash at 2nd write", objstore.FaultRule{Ops: objstore.MaskWrites, N: 2, Mode: objstore.Crash},
			[]step{{true, nil}, {true, objstore.ErrCrashed}, {false, objstore.ErrCrashed}, {true, objstore.ErrCrashed}}},
		{"crash after 1st write", objstore.FaultRule{Ops: objstore.MaskWrites, N: 1, Mode: objstore.CrashAfter},
			[]step{{true, objstore.ErrCrashed}, {false, objstore.ErrCrashed}}},
		{"fail 1st read once", objstore.FaultRule{Ops: objstore.MaskReads, N: 1, Mode: objstore.FailOnce},
			[]step{{true, nil}, {false, objstore.ErrInjected}, {false, nil}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := objstore.NewMem()
			f := objstore.NewFaulty(mem)
			f.SetRule(&c.rule)
			for i, s := range c.steps {
				var err error
				if s.put {
					err = f.Put(ctx, fmt.Sprintf("k%d", i), []byte("v"))
				} else {
					_, err = f.Get(ctx, "k0")
				}
				if (s.wantErr == nil) != (err == nil) || (s.wantErr != nil && !errors.Is(err, s.wantErr)) {
					t.Fatalf("step %d: err = %v, want %v", i, err, s.wantErr)
				}
				if err != nil && !objstore.IsInjected(err) {
					t.Fatalf("step %d: IsInjected(%v) = false", i, err)
				}
			}
			if !f.Tripped() {
				t.Fatal("rule never fired")
			}
		})
	}
	// CrashAfter performs the write before failing: it is durable.
	mem := objstore.NewMem()
	f := objstore.NewFaulty(mem)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1, Mode: objstore.CrashAfter})
	_ = f.Put(ctx, "done", []byte("x"))
	if _, err := mem.Get(ctx, "done"); err != nil {
		t.Fatalf("CrashAfter did not perform the operation: %v", err)
	}
	// Crash does not perform it.
	mem = objstore.NewMem()
	f = objstore.NewFaulty(mem)
	f.SetRule(&objstore.FaultRule{Ops: objstore.MaskWrites, N: 1, Mode: objstore.Crash})
	_ = f.Put(ctx, "never", []byte("x"))
	if _, err := mem.Get(ctx, "never"); !objstore.IsNotFound(err) {
		t.Fatalf("Crash performed the operation: %v", err)
	}
	// SetRule revives a crashed store; with no rule it counts writes.
	f.SetRule(nil)
	for i := range 3 {
		if err := f.Put(ctx, fmt.Sprint(i), nil); err != nil {
			t.Fatal(err)
		}
	}
	_, _ = f.Get(ctx, "0")
	if f.Count() != 3 || f.Crashed() {
		t.Fatalf("Count = %d (want 3 writes), crashed = %v", f.Count(), f.Crashed())
	}
}

func TestCountingStatsAndRounds(t *testing.T) {
	ctx := context.Background()
	for _, backend := range []string{"Local", "Mem"} {
		t.Run(backend, func(t *testing.T) {
			var inner objstore.Store = objstore.NewMem()
			if backend == "Local" {
				inner = newLocal(t)
			}
			c := objstore.NewCounting(inner)
			// 3 sequential rounds: put, then 8 parallel gets, then delete.
			_ = c.Put(ctx, "a", []byte("12345"))
			err := objstore.Parallel(ctx, 8, 0, func(ctx context.Context, _ int) error {
				_, err := c.Get(ctx, "a")
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			_ = c.Delete(ctx, "a")
			st := c.Stats()
			if st.Ops[objstore.OpPut] != 1 || st.Ops[objstore.OpGet] != 8 || st.Ops[objstore.OpDelete] != 1 {
				t.Errorf("ops = %v", st.Ops)
			}
			if st.BytesWritten != 5 || st.BytesRead != 40 {
				t.Errorf("bytes written %d read %d, want 5 and 40", st.BytesWritten, st.BytesRead)
			}
			if st.Rounds != 3 {
				t.Errorf("rounds = %d, want 3", st.Rounds)
			}
			// Local: the put creates no directory (root exists): file+dir
			// fsync, delete: dir fsync. Mem models the same.
			if st.Fsyncs != 3 {
				t.Errorf("fsyncs = %d, want 3", st.Fsyncs)
			}
			if st.Total(objstore.MaskWrites) != 2 {
				t.Errorf("writes = %d", st.Total(objstore.MaskWrites))
			}
			c.Reset()
			for i := range 4 {
				_ = c.Put(ctx, fmt.Sprint(i), nil)
			}
			if got := c.Stats().Rounds; got != 4 {
				t.Errorf("4 sequential puts = %d rounds", got)
			}
			// Two calls per item: with one worker per item, two rounds;
			// with a single worker, every call waits for the previous one.
			for _, tc := range []struct{ limit, rounds int64 }{{0, 2}, {1, 10}} {
				c.Reset()
				_ = objstore.Parallel(ctx, 5, int(tc.limit), func(ctx context.Context, i int) error {
					_ = c.Put(ctx, fmt.Sprintf("p%d", i), nil)
					_, err := c.Get(ctx, fmt.Sprintf("p%d", i))
					return err
				})
				if got := c.Stats().Rounds; got != tc.rounds {
					t.Errorf("limit %d: parallel put+get = %d rounds, want %d", tc.limit, got, tc.rounds)
				}
			}
		})
	}
}

// A Parallel group issued from inside another group's item continues
// that item's chain: puts in a nested group are in the same round as
// their sibling's, and the item's next call is one round later.
func TestCountingNestedParallel(t *testing.T) {
	ctx := context.Background()
	c := objstore.NewCounting(objstore.NewMem())
	err := objstore.Parallel(ctx, 2, 0, func(ctx context.Context, i int) error {
		if i == 1 {
			return c.Put(ctx, "solo", nil)
		}
		if err := objstore.Parallel(ctx, 3, 0, func(ctx context.Context, j int) error {
			return c.Put(ctx, fmt.Sprintf("n%d", j), nil)
		}); err != nil {
			return err
		}
		_, err := c.Get(ctx, "n0")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Stats().Rounds; got != 2 {
		t.Fatalf("nested parallel puts then a get = %d rounds, want 2", got)
	}
}

// TestLocalFsyncsNewDirectories: creating a key in new directories
// fsyncs every parent that gained an entry.
func TestLocalFsyncsNewDirectories(t *testing.T) {
	s := newLocal(t)
	before := s.Fsyncs()
	if err := s.Put(context.Background(), "a/b/c", []byte("x")); err != nil {
		t.Fatal(err)
	}
	// root (gains a), a (gains b), file, b (gains c).
	if got := s.Fsyncs() - before; got != 4 {
		t.Fatalf("fsyncs = %d, want 4", got)
	}
}

func TestTracingGolden(t *testing.T) {
	ctx := context.Background()
	tr := objstore.NewTracing(objstore.NewMem())
	_ = tr.PutIfAbsent(ctx, "t.lance/_versions/1.manifest", []byte("m1"))
	_ = tr.PutIfAbsent(ctx, "t.lance/_versions/1.manifest", []byte("m1'"))
	_ = tr.Put(ctx, "t.lance/_versions/latest_version_hint.json", []byte(`{"version":1}`))
	_, _ = tr.Get(ctx, "t.lance/_versions/2.manifest")
	_, _ = tr.GetRange(ctx, "t.lance/_versions/1.manifest", 0, -1)
	_, _ = tr.GetRange(ctx, "t.lance/_versions/1.manifest", 9, 1)
	_, _ = tr.List(ctx, "t.lance/_versions/")
	_, _ = tr.Stat(ctx, "t.lance/_versions/1.manifest")
	_ = tr.Delete(ctx, "t.lance/_versions/latest_version_hint.json")
	_ = tr.Delete(ctx, "t.lance/_versions/latest_version_hint.json")
	_ = tr.Put(ctx, "../bad", nil)
	checkGolden(t, "trace.golden", tr.String())
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s mismatch:\n--- got\n%s--- want\n%s", name, got, want)
	}
	if strings.TrimSpace(got) == "" {
		t.Fatal("empty trace")
	}
}
