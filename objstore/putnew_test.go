package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// Concurrent writes into one directory share its fsyncs: while one runs,
// every later write waits for the one next fsync, which starts only
// after the running one finished (never joining an fsync that may have
// begun before the write's entry existed).
func TestDirSyncsCoalesce(t *testing.T) {
	ctx := context.Background()
	l, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := objstore.PutNew(ctx, l, "d/first", []byte("x")); err != nil {
		t.Fatal(err) // creates the directory
	}
	var syncs atomic.Int64
	entered, release := make(chan struct{}), make(chan struct{})
	l.SetBeforeDirSync(func(string) {
		if syncs.Add(1) == 1 {
			close(entered)
			<-release
		}
	})
	var wg sync.WaitGroup
	errs := make(chan error, 6)
	wg.Go(func() { errs <- objstore.PutNew(ctx, l, "d/k0", []byte("0")) })
	<-entered
	const joiners = 5
	for i := range joiners {
		wg.Go(func() { errs <- objstore.PutNew(ctx, l, "d/j"+string(rune('a'+i)), []byte("j")) })
	}
	for deadline := time.Now().Add(30 * time.Second); l.DirSyncJoined("d/x") < joiners; {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes joined the next fsync, want %d", l.DirSyncJoined("d/x"), joiners)
		}
		time.Sleep(time.Millisecond)
	}
	if n := syncs.Load(); n != 1 {
		t.Fatalf("%d directory fsyncs started while the first was held, want 1", n)
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := syncs.Load(); n != 2 {
		t.Fatalf("%d directory fsyncs for 6 concurrent writes, want 2 (the held one, then one for the 5 that waited)", n)
	}
}

// DurableRounds counts a write's sequential durability waits along the
// longest chain of the context's writes.
func TestDurableRounds(t *testing.T) {
	type store interface {
		objstore.Store
		objstore.NewPutter
	}
	backends := map[string]func(t *testing.T) store{
		"local": func(t *testing.T) store {
			l, err := objstore.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return l
		},
		"mem": func(*testing.T) store { return objstore.NewMem() },
	}
	cases := []struct {
		name string
		run  func(ctx context.Context, s store) error
		want map[string]int64
	}{
		{"put: staging fsync, then the directory's", func(ctx context.Context, s store) error {
			return s.Put(ctx, "d/a", []byte("a"))
		}, map[string]int64{"local": 2, "mem": 2}},
		{"putnew: file and directory at once", func(ctx context.Context, s store) error {
			return s.PutNew(ctx, "d/a", []byte("a"))
		}, map[string]int64{"local": 1, "mem": 1}},
		{"putnew into new directories: each parent's fsync first", func(ctx context.Context, s store) error {
			return s.PutNew(ctx, "x/y/z/a", []byte("a"))
		}, map[string]int64{"local": 4, "mem": 1}},
		{"two putnews in sequence", func(ctx context.Context, s store) error {
			if err := s.PutNew(ctx, "d/a", []byte("a")); err != nil {
				return err
			}
			return s.PutNew(ctx, "d/b", []byte("b"))
		}, map[string]int64{"local": 2, "mem": 2}},
		{"delete", func(ctx context.Context, s store) error {
			return s.Delete(ctx, "d/pre")
		}, map[string]int64{"local": 1, "mem": 1}},
		{"a failed write counts nothing", func(ctx context.Context, s store) error {
			if err := s.PutNew(ctx, "d/pre", nil); !objstore.IsExists(err) {
				return errors.New("PutNew over an object succeeded")
			}
			return nil
		}, map[string]int64{"local": 0, "mem": 0}},
	}
	for _, c := range cases {
		for name, open := range backends {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				s := open(t)
				bg := context.Background()
				if err := s.PutIfAbsent(bg, "d/pre", []byte("p")); err != nil {
					t.Fatal(err)
				}
				ctx, r := objstore.WithDurableRounds(bg)
				if err := c.run(ctx, s); err != nil {
					t.Fatal(err)
				}
				if got := r.Count(); got != c.want[name] {
					t.Fatalf("%d durable rounds, want %d", got, c.want[name])
				}
			})
		}
	}
}

// Writes that overlap in time are one round: the first's directory
// fsync is held until the second has started.
func TestDurableRoundsOverlap(t *testing.T) {
	l, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.PutNew(context.Background(), "d/pre", nil); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	l.SetBeforeDirSync(func(string) {
		once.Do(func() {
			for deadline := time.Now().Add(30 * time.Second); l.DirSyncJoined("d/x") < 1 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		})
	})
	ctx, r := objstore.WithDurableRounds(context.Background())
	keys := []string{"d/a", "d/b"}
	if err := objstore.Parallel(ctx, len(keys), 0, func(ctx context.Context, i int) error {
		return l.PutNew(ctx, keys[i], []byte(keys[i]))
	}); err != nil {
		t.Fatal(err)
	}
	if got := r.Count(); got != 1 {
		t.Fatalf("%d durable rounds for two overlapping PutNews, want 1", got)
	}
}

// A put-if-absent whose publication waited for other work (a fence)
// continues the chain from that work: staging fsync (1), the awaited
// write (2), the link's directory fsync (3).
func TestDurableRoundsAfterWait(t *testing.T) {
	l, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := l.PutNew(context.Background(), "d/pre", nil); err != nil {
		t.Fatal(err)
	}
	ctx, r := objstore.WithDurableRounds(context.Background())
	other, _ := objstore.WithDurableRounds(context.Background())
	err = l.PutIfAbsentAfter(ctx, "d/v", []byte("v"), func() error {
		if err := l.PutNew(other, "d/elsewhere", nil); err != nil { // not this chain
			return err
		}
		return l.PutNew(ctx, "d/a", []byte("a"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Count(); got != 3 {
		t.Fatalf("%d durable rounds, want 3", got)
	}
}

// A PutNew interrupted before its sync may leave, after a power loss,
// nothing or any prefix of its bytes under the key — never other bytes —
// and a completed one survives whole.
func TestMemPutNewPowerLoss(t *testing.T) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 10)
	sawPrefix, sawMissing := false, false
	for seed := range uint64(64) {
		m := objstore.NewMem()
		if err := m.PutNew(ctx, "d/done", data); err != nil {
			t.Fatal(err)
		}
		m.SetStepHook(func(op, key string, s objstore.Step) error {
			if op == "putnew" && s == objstore.StepSyncDir {
				return objstore.ErrCrashed
			}
			return nil
		})
		if err := m.PutNew(ctx, "d/cut", data); !errors.Is(err, objstore.ErrCrashed) {
			t.Fatalf("interrupted PutNew = %v", err)
		}
		m.SetStepHook(nil)
		m.PowerLoss(rand.New(rand.NewPCG(seed, 7)))
		if got, err := m.Get(ctx, "d/done"); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("synced PutNew after power loss: %q, %v", got, err)
		}
		got, err := m.Get(ctx, "d/cut")
		switch {
		case objstore.IsNotFound(err):
			sawMissing = true
		case err != nil:
			t.Fatal(err)
		case !bytes.HasPrefix(data, got):
			t.Fatalf("interrupted PutNew left %q, not a prefix", got)
		case len(got) < len(data):
			sawPrefix = true
		}
	}
	if !sawPrefix || !sawMissing {
		t.Fatalf("64 power losses: partial object seen %v, missing seen %v; want both", sawPrefix, sawMissing)
	}
}
