package adapters

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkCommitLatencyAB compares a 1-row autocommit insert on the
// commit path as it was ("baseline": sidecar delete before returning,
// confirmation before staging the manifest, every table manifest read
// back from storage, staged files written inside Prepare, Lance version
// hints written durably), the path before commit path v2 ("legacy":
// Options.LegacyCommitPath, sidecar and table commits before the CAS)
// and the default one ("v2": publish first, materialize after), interleaved in
// one run on the local backend so machine noise hits both alike. It reports p50/p99 and, per commit,
// durable ops, fsyncs and storage rounds seen by the caller.
//
//	go test -run xxx -bench CommitLatencyAB -benchtime 200x ./adapters/
func BenchmarkCommitLatencyAB(b *testing.B) {
	ctx := context.Background()
	type side struct {
		name  string
		g     *Graph
		cnt   *objstore.Counting
		lat   []time.Duration
		stats objstore.IOStats
	}
	var sides []*side
	for _, name := range []string{"baseline", "legacy", "v2"} {
		syncFin := name == "baseline"
		local, err := objstore.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		cnt := objstore.NewCounting(local)
		var store objstore.Store = cnt
		if syncFin {
			store = durableHints{cnt} // the baseline's version hints are durable Puts
		}
		g, err := Open(ctx, store, Options{Create: true, Actor: "bench", Location: "/bench", SyncFinalize: syncFin,
			LegacyCommitPath: name != "v2"})
		if err != nil {
			b.Fatal(err)
		}
		createTables(b, g, "a")
		if syncFin {
			g.coord.ParallelConfirm = false
			g.coord.NoRetryTurns = true
			g.baseline = true
		}
		sides = append(sides, &side{name: name, g: g, cnt: cnt, stats: objstore.IOStats{Ops: map[objstore.Op]int64{}}})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range sides {
			s.cnt.Reset()
			t0 := time.Now()
			if err := insert(ctx, s.g, WriteOptions{}, map[string][]int64{"a": {int64(i)}}); err != nil {
				b.Fatal(err)
			}
			s.lat = append(s.lat, time.Since(t0))
			st := s.cnt.Stats() // what the caller waited for
			s.stats.Fsyncs += st.Fsyncs
			s.stats.Rounds += st.Rounds
			for op, n := range st.Ops {
				s.stats.Ops[op] += n
			}
			s.g.coord.WaitFinalized() // the next sample starts quiet
		}
	}
	b.StopTimer()
	for _, s := range sides {
		s.g.Close()
		sort.Slice(s.lat, func(i, j int) bool { return s.lat[i] < s.lat[j] })
		n := float64(len(s.lat))
		p := func(q float64) float64 { return float64(s.lat[int(q*(n-1))].Microseconds()) / 1000 }
		b.Logf("%-8s p50 %.3f ms  p99 %.3f ms  durable ops %.1f  fsyncs %.1f  rounds %.1f (per commit, until acknowledged)",
			s.name, p(0.5), p(0.99), float64(s.stats.Total(objstore.MaskWrites))/n, float64(s.stats.Fsyncs)/n, float64(s.stats.Rounds)/n)
	}
}

// durableHints hides objstore.VolatilePutter (and Fsyncs stays the
// inner's), so Lance writes its version hints with a durable Put.
type durableHints struct{ objstore.Store }

func (d durableHints) Fsyncs() int64 { return d.Store.(*objstore.Counting).Fsyncs() }

// BenchmarkConcurrentInsertsAB runs 1-row autocommit inserts into one
// table from 4 and 16 goroutines of one process, for a fixed time per
// round, with retry turns on and off (protocol/turns.go), the rounds of
// the two variants interleaved. It reports commits/s and re-prepares
// per commit of each.
//
//	go test -run xxx -bench ConcurrentInsertsAB -benchtime 1x ./adapters/
func BenchmarkConcurrentInsertsAB(b *testing.B) {
	ctx := context.Background()
	const rounds, per = 3, 2 * time.Second
	for _, clients := range []int{4, 16} {
		type side struct {
			name             string
			turns            bool
			commits, retries int64
			secs             float64
		}
		sides := []*side{{name: "turns", turns: true}, {name: "no turns"}}
		for r := 0; r < rounds; r++ {
			for _, s := range sides {
				local, err := objstore.NewLocal(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				g, err := Open(ctx, local, Options{Create: true, Actor: "bench", Location: "/bench"})
				if err != nil {
					b.Fatal(err)
				}
				g.coord.NoRetryTurns = !s.turns
				createTables(b, g, "a")
				var next atomic.Int64
				deadline := time.Now().Add(per)
				t0 := time.Now()
				var wg sync.WaitGroup
				for range clients {
					wg.Go(func() {
						for time.Now().Before(deadline) {
							id := next.Add(1)
							if err := insert(ctx, g, WriteOptions{MaxReprepare: 50}, map[string][]int64{"a": {id}}); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				s.secs += time.Since(t0).Seconds()
				st := g.Stats()
				s.commits += st.Commits
				s.retries += st.Reprepares + st.ContentionWaits
				g.Close()
			}
		}
		for _, s := range sides {
			b.Logf("%2d clients %-8s %.1f commits/s, %.2f re-prepares per commit", clients, s.name,
				float64(s.commits)/s.secs, float64(s.retries)/float64(max(s.commits, 1)))
		}
	}
}

// BenchmarkBackToBackInserts runs 1-row autocommit inserts into one
// table one after the other without waiting for the previous commit's
// materialization (as a client's autocommit loop does), on two graphs
// interleaved in batches: "wait" materializes the previous commit's
// version before staging on it (coordinator NoPublishedPreviews),
// "chained" stages on its published preview and materializes it in its
// own first round. It reports p50/p99 per commit.
//
//	go test -run xxx -bench BackToBackInserts -benchtime 300x ./adapters/
func BenchmarkBackToBackInserts(b *testing.B) {
	ctx := context.Background()
	type side struct {
		name string
		g    *Graph
		lat  []time.Duration
	}
	var sides []*side
	for _, name := range []string{"wait", "chained"} {
		// every durable write takes 2 ms, as a slow fsync or an object
		// store round would: the rounds a commit waits for dominate
		// this machine's CPU noise
		g, err := Open(ctx, slowWrites{objstore.NewMem(), 2 * time.Millisecond}, Options{Create: true, Actor: "bench", Location: "/bench"})
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close()
		g.coord.NoPublishedPreviews = name == "wait"
		createTables(b, g, "a")
		sides = append(sides, &side{name: name, g: g})
	}
	const batch = 10
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		for _, s := range sides {
			for j := i; j < min(i+batch, b.N); j++ {
				t0 := time.Now()
				if err := insert(ctx, s.g, WriteOptions{}, map[string][]int64{"a": {int64(j)}}); err != nil {
					b.Fatal(err)
				}
				s.lat = append(s.lat, time.Since(t0))
			}
		}
	}
	b.StopTimer()
	for _, s := range sides {
		lat := s.lat
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		n := float64(len(lat))
		p := func(q float64) float64 { return float64(lat[int(q*(n-1))].Microseconds()) / 1000 }
		b.Logf("%-8s back to back: p50 %.3f ms  p99 %.3f ms", s.name, p(0.5), p(0.99))
	}
}

// slowWrites delays every durable write by d (reads and volatile hints
// are not delayed).
type slowWrites struct {
	objstore.Store
	d time.Duration
}

func (s slowWrites) Put(ctx context.Context, key string, data []byte) error {
	time.Sleep(s.d)
	return s.Store.Put(ctx, key, data)
}

func (s slowWrites) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	time.Sleep(s.d)
	return s.Store.PutIfAbsent(ctx, key, data)
}

func (s slowWrites) PutVolatile(ctx context.Context, key string, data []byte) error {
	return objstore.PutVolatile(ctx, s.Store, key, data)
}
