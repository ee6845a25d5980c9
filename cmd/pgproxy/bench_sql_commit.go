package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/objstore"
)

// The sql suite's commit-path part: what one small commit costs in
// durable work, and whether its latency depends on history.
//
// Durable rounds and fsyncs per commit: PostgreSQL's come from
// pg_stat_wal (wal_sync per commit over the single-client latency run;
// one WAL flush per commit is its floor). pgproxy's are counted in
// process on an objstore.Counting over the same filesystem, running the
// exact write the SQL layer runs for a 1-row INSERT (Stage.InsertBatches
// on one table), since the serving process's store is not instrumented:
// durable objects, fsyncs (files and directories) and ordered storage
// rounds the commit waited for before returning, each commit started
// after the previous one's materialization (so that background work is
// not counted as the commit's). Rounds are the longest chain of durable
// writes each started after another finished, so writes of one round
// issued from different goroutines may count as more than one. The
// physical floor of a durable commit is one round of one fsynced write.
//
// History: the 1-row INSERT p50 after 10 and after N prior commits to
// the same table (N = PGGRAPH_BENCH_SQL_HISTORY, default 10,000; the
// prior commits are loaded with 16 clients).

const sqlBenchHistory = 10_000 // PGGRAPH_BENCH_SQL_HISTORY

// sqlCommitCost is pgproxy's in-process count per 1-row commit.
type sqlCommitCost struct {
	Commits       int     `json:"commits"`
	DurableOps    float64 `json:"durable_ops_per_commit"`
	Fsyncs        float64 `json:"fsyncs_per_commit"`
	Rounds        float64 `json:"storage_rounds_per_commit"`
	DurableRounds float64 `json:"ordered_durable_rounds_per_commit"`
	FloorRounds   int     `json:"floor_durable_rounds"`
	// FsyncRounds is the commits' own count of the durability waits
	// they made in sequence (protocol.Receipt.DurableRounds: fsyncs,
	// not store calls — a put through a staging name is two), median
	// and maximum.
	FsyncRoundsP50 int64 `json:"fsync_rounds_p50"`
	FsyncRoundsMax int64 `json:"fsync_rounds_max"`
}

// pgWALSyncs reads PostgreSQL's WAL sync count (pg_stat_wal, 14+).
func pgWALSyncs(ctx context.Context, dsn string) (int64, error) {
	conn, err := sqlConnect(ctx, dsn)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	var n int64
	err = conn.QueryRow(ctx, "SELECT wal_sync FROM pg_stat_wal").Scan(&n)
	return n, err
}

// pgproxyCommitCost runs n 1-row commits in process on a counting store
// under dir and returns the per-commit averages.
func pgproxyCommitCost(ctx context.Context, dir string, n int) (sqlCommitCost, error) {
	tmp, err := os.MkdirTemp(dir, ".pgproxy-bench-commit-")
	if err != nil {
		return sqlCommitCost{}, err
	}
	defer os.RemoveAll(tmp)
	local, err := objstore.NewLocal(tmp)
	if err != nil {
		return sqlCommitCost{}, err
	}
	all := objstore.NewCounting(local)
	cnt := objstore.NewCounting(all) // writes are counted by both
	g, err := adapters.Open(ctx, durableCounted{Store: all, writes: cnt}, adapters.Options{Create: true, Actor: "bench", Location: tmp})
	if err != nil {
		return sqlCommitCost{}, err
	}
	defer g.Close()
	cols := []graph.ColumnSpec{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.BinaryTypes.String}}
	if _, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
		return s.CreateTable(adapters.TableSpec{Name: "kv", Kind: graph.RelationTable, Columns: cols, PrimaryKey: []string{"id"}})
	}); err != nil {
		return sqlCommitCost{}, err
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.BinaryTypes.String}}, nil)
	var st objstore.IOStats
	var own []int64
	for i := range n + 5 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("value")
		rec := b.NewRecordBatch()
		b.Release()
		// the previous commit's materialization (after its
		// acknowledgement) must not be counted as this commit's work
		if err := g.Quiesce(ctx); err != nil {
			rec.Release()
			return sqlCommitCost{}, err
		}
		cnt.Reset()
		all.Reset()
		rc, err := g.Write(ctx, adapters.WriteOptions{}, func(ctx context.Context, s *adapters.Stage) error {
			return s.InsertBatches("kv", schema, rec)
		})
		rec.Release()
		if err != nil {
			return sqlCommitCost{}, err
		}
		if i < 5 {
			continue // warm up
		}
		own = append(own, rc.DurableRounds)
		s := cnt.Stats()
		st.Fsyncs += s.Fsyncs
		st.Rounds += s.Rounds
		st.BytesRead += all.Stats().Rounds // every storage round, reads included
		for op, k := range s.Ops {
			if st.Ops == nil {
				st.Ops = map[objstore.Op]int64{}
			}
			st.Ops[op] += k
		}
	}
	f := float64(n)
	sort.Slice(own, func(i, j int) bool { return own[i] < own[j] })
	return sqlCommitCost{FsyncRoundsP50: own[len(own)/2], FsyncRoundsMax: own[len(own)-1], Commits: n, DurableOps: round3(float64(st.Total(objstore.MaskWrites)) / f),
		Fsyncs: round3(float64(st.Fsyncs) / f), DurableRounds: round3(float64(st.Rounds) / f),
		Rounds: round3(float64(st.BytesRead) / f), FloorRounds: 1}, nil
}

// durableCounted routes durable writes through a second counter, so
// its rounds are the ordered durable rounds alone (reads and volatile
// hints are not counted there); the inner counter sees everything.
type durableCounted struct {
	objstore.Store
	writes *objstore.Counting
}

func (d durableCounted) Put(ctx context.Context, key string, data []byte) error {
	return d.writes.Put(ctx, key, data)
}

func (d durableCounted) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	return d.writes.PutIfAbsent(ctx, key, data)
}

func (d durableCounted) PutNew(ctx context.Context, key string, data []byte) error {
	return d.writes.PutNew(ctx, key, data)
}

func (d durableCounted) Delete(ctx context.Context, key string) error {
	return d.writes.Delete(ctx, key)
}

func (d durableCounted) PutVolatile(ctx context.Context, key string, data []byte) error {
	return objstore.PutVolatile(ctx, d.Store, key, data)
}

// sqlHistoryLatency measures the 1-row INSERT p50 into a fresh table
// after 10 prior commits and after history prior commits.
func sqlHistoryLatency(ctx context.Context, dsn string, history int64, samples int) (after10, afterN time.Duration, err error) {
	if err := sqlExec(ctx, dsn, "CREATE TABLE bench_hist (id int8 PRIMARY KEY, v text NOT NULL)"); err != nil {
		return 0, 0, err
	}
	conn, err := sqlConnect(ctx, dsn)
	if err != nil {
		return 0, 0, err
	}
	defer conn.Close(ctx)
	var next atomic.Int64
	ins := func(c *pgx.Conn) error {
		_, err := insertOneInto(ctx, c, "bench_hist", next.Add(1))
		return err
	}
	for range 10 {
		if err := ins(conn); err != nil {
			return 0, 0, err
		}
	}
	measure := func() (time.Duration, error) {
		lat := make([]time.Duration, 0, samples)
		for range samples {
			t0 := time.Now()
			if err := ins(conn); err != nil {
				return 0, err
			}
			lat = append(lat, time.Since(t0))
		}
		return percentile(lat, 0.5), nil
	}
	if after10, err = measure(); err != nil {
		return 0, 0, err
	}
	// load the history with 16 clients
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			c, err := sqlConnect(ctx, dsn)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(ctx)
			for next.Load() < history {
				if err := ins(c); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return 0, 0, err
	}
	afterN, err = measure()
	return after10, afterN, err
}

// insertOneInto is insertOne on another table with the same columns.
func insertOneInto(ctx context.Context, conn *pgx.Conn, table string, id int64) (int64, error) {
	var retries int64
	for {
		_, err := conn.Exec(ctx, "INSERT INTO "+table+" (id, v) VALUES ($1, $2)", id, "value")
		if err == nil || !isSerialization(err) || retries >= 20 {
			return retries, err
		}
		retries++
	}
}

func fmtCommitCost(c sqlCommitCost) string {
	return fmt.Sprintf("%.1f ordered durable rounds (floor %d), fsync rounds p50 %d (max %d), %.1f durable objects, %.1f fsyncs, %.1f storage rounds with reads per commit",
		c.DurableRounds, c.FloorRounds, c.FsyncRoundsP50, c.FsyncRoundsMax, c.DurableOps, c.Fsyncs, c.Rounds)
}
