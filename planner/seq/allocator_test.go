package seq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

func spec(key string, o Options) Spec { return Spec{Key: key, Name: key, Options: o} }

func opts(start, inc, min, max int64, cycle bool) Options {
	return Options{Start: start, Increment: inc, Min: min, Max: max, Cache: 1, Cycle: cycle}
}

func TestNextSequences(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		o    Options
		n    int
		want []int64
		err  string // SQLSTATE after the n values, "" = none
	}{
		{"default", DefaultOptions(), 5, []int64{1, 2, 3, 4, 5}, ""},
		{"step", opts(10, 5, 1, 100, false), 4, []int64{10, 15, 20, 25}, ""},
		{"down", opts(-1, -2, -9, -1, false), 5, []int64{-1, -3, -5, -7, -9}, CodeSequenceLimit},
		{"exhaust", opts(1, 1, 1, 3, false), 3, []int64{1, 2, 3}, CodeSequenceLimit},
		{"cycle", opts(2, 1, 1, 3, true), 6, []int64{2, 3, 1, 2, 3, 1}, ""},
		{"cycle down", opts(2, -1, 1, 3, true), 5, []int64{2, 1, 3, 2, 1}, ""},
		{"near max", opts(math.MaxInt64-1, 1, 1, math.MaxInt64, false), 2, []int64{math.MaxInt64 - 1, math.MaxInt64}, CodeSequenceLimit},
		{"near min", opts(math.MinInt64+1, -1, math.MinInt64, 0, false), 2, []int64{math.MinInt64 + 1, math.MinInt64}, CodeSequenceLimit},
		{"huge step", opts(0, math.MaxInt64, math.MinInt64, math.MaxInt64, false), 2, []int64{0, math.MaxInt64}, CodeSequenceLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := Open(objstore.NewMem())
			s := spec("k", c.o)
			var got []int64
			for i := 0; i < c.n; i++ {
				v, err := a.Next(ctx, s)
				if err != nil {
					t.Fatalf("value %d: %v", i, err)
				}
				got = append(got, v)
			}
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			_, err := a.Next(ctx, s)
			if code(err) != c.err {
				t.Fatalf("after %d values: err %v, want SQLSTATE %q", c.n, err, c.err)
			}
		})
	}
}

func TestExhaustedMessage(t *testing.T) {
	a := Open(objstore.NewMem())
	s := Spec{Key: "k", Name: "t_id_seq", Options: opts(1, 1, 1, 2, false)}
	for i := 0; i < 2; i++ {
		if _, err := a.Next(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.Next(context.Background(), s)
	if !IsExhausted(err) || err.Error() != `ERROR: nextval: reached maximum value of sequence "t_id_seq" (2) (SQLSTATE 2200H)` {
		t.Fatalf("got %v", err)
	}
}

func TestInvalidSpec(t *testing.T) {
	a := Open(objstore.NewMem())
	for _, s := range []Spec{
		{Key: "", Options: DefaultOptions()},
		{Key: "a/b", Options: DefaultOptions()},
		{Key: "..", Options: DefaultOptions()},
		{Key: "k", Options: opts(1, 0, 1, 9, false)},
		{Key: "k", Options: opts(0, 1, 1, 9, false)},
		{Key: "k", Options: opts(1, 1, 9, 1, false)},
	} {
		if _, err := a.Next(context.Background(), s); !errors.Is(err, ErrInvalidKey) && !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("%+v: got %v", s, err)
		}
	}
}

// Two allocators over one store stand for two processes: their values
// never overlap, and the second starts after the first's block.
func TestAllocatorsShareStore(t *testing.T) {
	ctx := context.Background()
	st := objstore.NewMem()
	a, b := Open(st), Open(st)
	s := spec("k", DefaultOptions())
	va, _ := a.Next(ctx, s)
	vb, _ := b.Next(ctx, s)
	if va != 1 || vb != minBlock+1 {
		t.Fatalf("a=%d b=%d, want 1 and %d", va, vb, minBlock+1)
	}
	va2, _ := a.Next(ctx, s)
	if va2 != 2 {
		t.Fatalf("a's second value %d, want 2 (from its cached block)", va2)
	}
}

// A restarted process continues after the last claimed block (a gap,
// never a repeat), whether it finds the tail by hint or by listing.
func TestRestartContinuesAfterTail(t *testing.T) {
	ctx := context.Background()
	for _, dropHint := range []bool{false, true} {
		t.Run(fmt.Sprintf("dropHint=%v", dropHint), func(t *testing.T) {
			st, err := objstore.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			s := spec("k", DefaultOptions())
			a := Open(st)
			a.now = fixedClock() // blocks stay at the base size
			var last int64
			for i := 0; i < minBlock*hintEvery*2+5; i++ {
				if last, err = a.Next(ctx, s); err != nil {
					t.Fatal(err)
				}
			}
			if dropHint {
				if err := st.Delete(ctx, hintKey("k")); err != nil {
					t.Fatal(err)
				}
			}
			b := Open(st)
			v, err := b.Next(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			blocks := (last + minBlock - 1) / minBlock
			if want := blocks*minBlock + 1; v != want {
				t.Fatalf("restart gave %d after %d, want %d (first value of the next block)", v, last, want)
			}
		})
	}
}

// fixedClock makes every claim look slow, so block sizes do not grow.
func fixedClock() func() time.Time {
	t0 := time.Unix(0, 0)
	n := 0
	return func() time.Time { n++; return t0.Add(time.Duration(n) * time.Hour) }
}

func TestBlocksGrowUnderLoad(t *testing.T) {
	ctx := context.Background()
	c := objstore.NewCounting(objstore.NewMem())
	a := Open(c)
	s := spec("k", DefaultOptions())
	const n = 200000
	for i := 0; i < n; i++ {
		if v, err := a.Next(ctx, s); err != nil || v != int64(i+1) {
			t.Fatalf("value %d: %d %v", i, v, err)
		}
	}
	claims := c.Stats().Ops[objstore.OpPutIfAbsent]
	if claims > 20 {
		t.Fatalf("%d block claims for %d values; blocks should grow under load", claims, n)
	}
}

func TestSetVal(t *testing.T) {
	ctx := context.Background()
	st := objstore.NewMem()
	a, other := Open(st), Open(st)
	s := spec("k", opts(1, 1, 1, 1000, false))
	if v, _ := other.Next(ctx, s); v != 1 {
		t.Fatalf("other: %d", v)
	}
	if err := a.SetVal(ctx, s, 100, false); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Next(ctx, s); v != 100 {
		t.Fatalf("after setval(100,false): %d", v)
	}
	if err := a.SetVal(ctx, s, 500, true); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Next(ctx, s); v != 501 {
		t.Fatalf("after setval(500,true): %d", v)
	}
	// other keeps its cached block (PostgreSQL's behaviour with CACHE > 1)
	if v, _ := other.Next(ctx, s); v != 2 {
		t.Fatalf("other after setval: %d, want its cached 2", v)
	}
	err := a.SetVal(ctx, s, 1001, false)
	if code(err) != CodeNumericOutOfRng || !strings.Contains(err.Error(), `setval: value 1001 is out of bounds for sequence "k" (1..1000)`) {
		t.Fatalf("out of bounds: %v", err)
	}
	// setval(max, true) exhausts; setval revives
	if err := a.SetVal(ctx, s, 1000, true); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Next(ctx, s); !IsExhausted(err) {
		t.Fatalf("after setval(max,true): %v", err)
	}
	if err := a.SetVal(ctx, s, 7, false); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Next(ctx, s); v != 7 {
		t.Fatalf("revived: %d", v)
	}
}

func TestSession(t *testing.T) {
	ctx := context.Background()
	a := Open(objstore.NewMem())
	ss := NewSession()
	s1, s2 := Spec{Key: "a", Name: "s1", Options: DefaultOptions()}, Spec{Key: "b", Name: "s2", Options: opts(10, 10, 1, 1000, false)}
	if _, err := ss.Currval(s1); !IsNotYetDefined(err) || !strings.Contains(err.Error(), `currval of sequence "s1" is not yet defined in this session`) {
		t.Fatalf("currval before nextval: %v", err)
	}
	if _, err := ss.Lastval(); !IsNotYetDefined(err) || !strings.Contains(err.Error(), "lastval is not yet defined in this session") {
		t.Fatalf("lastval before nextval: %v", err)
	}
	ss.Nextval(ctx, a, s1)
	ss.Nextval(ctx, a, s1)
	ss.Nextval(ctx, a, s2)
	if v, _ := ss.Currval(s1); v != 2 {
		t.Fatalf("currval s1 = %d", v)
	}
	if v, _ := ss.Lastval(); v != 10 {
		t.Fatalf("lastval = %d", v)
	}
	// another session's nextval does not move ours
	NewSession().Nextval(ctx, a, s1)
	if v, _ := ss.Currval(s1); v != 2 {
		t.Fatalf("currval s1 after other session = %d", v)
	}
	if v, _ := ss.Setval(ctx, a, s1, 50, true); v != 50 {
		t.Fatal(v)
	}
	if v, _ := ss.Currval(s1); v != 50 {
		t.Fatalf("currval after setval(…, true) = %d", v)
	}
	ss.Forget("a")
	if _, err := ss.Currval(s1); !IsNotYetDefined(err) {
		t.Fatalf("currval after forget: %v", err)
	}
}

func TestCorruptBlock(t *testing.T) {
	ctx := context.Background()
	st := objstore.NewMem()
	if err := st.Put(ctx, blockKey("k", 0), []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	_, err := Open(st).Next(ctx, spec("k", DefaultOptions()))
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v", err)
	}
}

// N goroutines on M allocators (processes) sharing one store never see
// a duplicate.
func TestConcurrentGoroutinesNoDuplicates(t *testing.T) {
	ctx := context.Background()
	st := objstore.NewMem()
	allocs := []*Allocator{Open(st), Open(st), Open(st)}
	s := spec("k", DefaultOptions())
	const workers, per = 12, 400
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			a := allocs[w%len(allocs)]
			for i := 0; i < per; i++ {
				v, err := a.Next(ctx, s)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				seen[v]++
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	if len(seen) != workers*per {
		t.Fatalf("%d distinct values for %d calls", len(seen), workers*per)
	}
}

const childEnv = "PGGRAPH_SEQ_CHILD_DIR"

// TestMain lets the test binary act as a child process allocating values.
func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(childAllocate(dir))
	}
	os.Exit(m.Run())
}

func childAllocate(dir string) int {
	st, err := objstore.NewLocal(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	n, _ := strconv.Atoi(os.Getenv("PGGRAPH_SEQ_N"))
	a := Open(st)
	s := spec("shared", DefaultOptions())
	var out strings.Builder
	for i := 0; i < n; i++ {
		// A fresh allocator every few values forces many cross-process claims.
		if i%40 == 0 {
			a = Open(st)
		}
		v, err := a.Next(context.Background(), s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 3
		}
		fmt.Fprintln(&out, v)
	}
	os.Stdout.WriteString(out.String())
	return 0
}

// N OS processes allocating from one directory never see a duplicate.
func TestProcessesNoDuplicates(t *testing.T) {
	dir := t.TempDir()
	const procs, per = 4, 400
	outs := make([]string, procs)
	var wg sync.WaitGroup
	for p := 0; p < procs; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+dir, "PGGRAPH_SEQ_N="+strconv.Itoa(per))
			b, err := cmd.Output()
			if err != nil {
				t.Errorf("child %d: %v", p, err)
			}
			outs[p] = string(b)
		}(p)
	}
	wg.Wait()
	var all []int64
	for _, o := range outs {
		for _, f := range strings.Fields(o) {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, v)
		}
	}
	if len(all) != procs*per {
		t.Fatalf("%d values, want %d", len(all), procs*per)
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i := 1; i < len(all); i++ {
		if all[i] == all[i-1] {
			t.Fatalf("value %d handed out twice", all[i])
		}
	}
}

// A hint pointing past the tail (or garbage) does not stop allocation.
func TestBadHint(t *testing.T) {
	ctx := context.Background()
	for _, hint := range []string{"99", "garbage", "-3"} {
		st := objstore.NewMem()
		s := spec("k", DefaultOptions())
		a := Open(st)
		v1, err := a.Next(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Put(ctx, hintKey("k"), []byte(hint)); err != nil {
			t.Fatal(err)
		}
		v2, err := Open(st).Next(ctx, s)
		if err != nil || v2 <= v1 {
			t.Fatalf("hint %q: next %d after %d, %v", hint, v2, v1, err)
		}
	}
}
