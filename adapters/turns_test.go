package adapters

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/protocol"
)

// TestRetryWaitsForTheTablesTurn: an autocommit write whose read set
// changed before its effects re-prepares only once it holds the retry
// turn of the table it writes (protocol/turns.go), and releases it when
// it returns; with turns off it re-prepares at once.
func TestRetryWaitsForTheTablesTurn(t *testing.T) {
	for _, turns := range []bool{true, false} {
		name := map[bool]string{true: "turns", false: "no turns"}[turns]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			g := openGraph(t, objstore.NewMem(), true)
			defer g.Close()
			g.coord.NoRetryTurns = !turns
			createTables(t, g, "a")
			e, _ := head(t, g).State.TableByName("a")
			turn := []protocol.GateKey{protocol.TurnGate(graph.MainBranch, e.Key())}
			// another retrier of table a holds its turn
			release, err := g.coord.Gates.Acquire(ctx, turn)
			if err != nil {
				t.Fatal(err)
			}
			var calls atomic.Int64
			done := make(chan error, 1)
			go func() {
				_, err := g.Write(ctx, WriteOptions{}, func(ctx context.Context, s *Stage) error {
					n := calls.Add(1)
					if n == 1 {
						// a concurrent commit to a after this attempt's base
						if err := insert(ctx, g, WriteOptions{}, map[string][]int64{"a": {100}}); err != nil {
							return err
						}
					}
					return s.Insert("a", rowsOf(n))
				})
				done <- err
			}()
			time.Sleep(300 * time.Millisecond)
			early := calls.Load()
			release()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if turns && early != 1 {
				t.Fatalf("re-prepared (%d staging calls) while another retrier held the table's turn", early)
			}
			if !turns && early != 2 {
				t.Fatalf("without turns the retry should not wait: %d staging calls", early)
			}
			if got, _ := readIDs(t, g, head(t, g), "a"); !slices.Equal(got, []int64{2, 100}) {
				t.Fatalf("a = %v", got)
			}
			// the writer released every turn it took
			tctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			rel, err := g.coord.Gates.Acquire(tctx, turn)
			if err != nil {
				t.Fatalf("turn still held after the write returned: %v", err)
			}
			rel()
		})
	}
}
