package adapters

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// stagedNames is a local store as the commit path used it before
// docs/write-protocol.md §7.2: every new file goes through a staging
// name (no PutNew: file fsync, then directory fsync), and a put that
// waits for other work (the __manifest version after its files) starts
// only after it — the A side of BenchmarkCommitRoundsAB.
type stagedNames struct{ *objstore.Local }

func (s stagedNames) PutNew(ctx context.Context, key string, data []byte) error {
	return s.Local.PutIfAbsent(ctx, key, data)
}

func (s stagedNames) PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error {
	if wait != nil {
		if err := wait(); err != nil {
			return err
		}
	}
	return s.Local.PutIfAbsentAfter(ctx, key, data, nil)
}

// BenchmarkCommitRoundsAB runs 1-row autocommit inserts on two local
// graphs, alternating commit by commit so that load and disk drift hit
// both alike: "staged" creates files through staging names and stages
// the manifest put after its files (as before §7.2), "final" creates
// them under their final names and stages the manifest put meanwhile.
// It reports p50/p99 latency, durable rounds (Receipt.DurableRounds)
// and fsyncs per commit.
//
//	go test -run xxx -bench CommitRoundsAB -benchtime 300x ./adapters/
func BenchmarkCommitRoundsAB(b *testing.B) {
	ctx := context.Background()
	type side struct {
		name   string
		g      *Graph
		local  *objstore.Local
		lat    []time.Duration
		rounds []int64
		fsyncs int64
	}
	var sides []*side
	for _, name := range []string{"staged", "final"} {
		local, err := objstore.NewLocal(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		var store objstore.Store = local
		if name == "staged" {
			store = stagedNames{local}
		}
		g, err := Open(ctx, store, Options{Create: true, Actor: "bench", Location: "/bench"})
		if err != nil {
			b.Fatal(err)
		}
		defer g.Close()
		createTables(b, g, "a")
		sides = append(sides, &side{name: name, g: g, local: local})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, s := range sides {
			recs := batchOf(int64(i))
			f0 := s.local.Fsyncs()
			t0 := time.Now()
			rc, err := s.g.Write(ctx, WriteOptions{}, func(ctx context.Context, st *Stage) error {
				return st.InsertBatches("a", testSchema, recs)
			})
			lat := time.Since(t0)
			f1 := s.local.Fsyncs()
			recs.Release()
			if err != nil {
				b.Fatal(err)
			}
			s.g.coord.WaitFinalized() // the next sample starts quiet
			if i == 0 {
				continue
			}
			s.lat = append(s.lat, lat)
			s.rounds = append(s.rounds, rc.DurableRounds)
			s.fsyncs += f1 - f0
		}
	}
	b.StopTimer()
	for _, s := range sides {
		if len(s.lat) == 0 {
			continue
		}
		sort.Slice(s.lat, func(i, j int) bool { return s.lat[i] < s.lat[j] })
		sort.Slice(s.rounds, func(i, j int) bool { return s.rounds[i] < s.rounds[j] })
		n := len(s.lat)
		ms := func(q float64) float64 { return float64(s.lat[int(q*float64(n-1))].Microseconds()) / 1000 }
		b.Logf("%-6s p50 %.3f ms  p99 %.3f ms  durable rounds p50 %d (min %d, max %d)  fsyncs %.1f per commit",
			s.name, ms(0.5), ms(0.99), s.rounds[n/2], s.rounds[0], s.rounds[n-1], float64(s.fsyncs)/float64(n))
	}
}
