package main

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/pggraph/pggraph/objstore"
)

// countingStore is pgproxy's objstore.Local with a count of every
// operation, so the bench can show what one served lookup asks of the
// data directory (the read path should need no fsync, no listing and no
// whole-file read per statement). Embedding keeps Local's optional
// methods (Root, Fsyncs, SweepStaging) available to the layers above.
type countingStore struct {
	*objstore.Local
	ops storeOps
}

// storeOps are operation counters; storeOpsSnapshot a reading of them.
type storeOps struct {
	get, getRange, stat, list, put, putIfAbsent, putVolatile, del atomic.Int64
	rangeBytes                                                    atomic.Int64
}

type storeOpsSnapshot struct {
	Get, GetRange, Stat, List, Put, PutIfAbsent, PutVolatile, Delete, RangeBytes, Fsyncs int64
}

func (s *countingStore) read() storeOpsSnapshot {
	return storeOpsSnapshot{Get: s.ops.get.Load(), GetRange: s.ops.getRange.Load(), Stat: s.ops.stat.Load(), List: s.ops.list.Load(),
		Put: s.ops.put.Load(), PutIfAbsent: s.ops.putIfAbsent.Load(), PutVolatile: s.ops.putVolatile.Load(), Delete: s.ops.del.Load(),
		RangeBytes: s.ops.rangeBytes.Load(), Fsyncs: s.Fsyncs()}
}

func (a storeOpsSnapshot) minus(b storeOpsSnapshot) storeOpsSnapshot {
	return storeOpsSnapshot{a.Get - b.Get, a.GetRange - b.GetRange, a.Stat - b.Stat, a.List - b.List, a.Put - b.Put,
		a.PutIfAbsent - b.PutIfAbsent, a.PutVolatile - b.PutVolatile, a.Delete - b.Delete, a.RangeBytes - b.RangeBytes, a.Fsyncs - b.Fsyncs}
}

// perOp formats the counts divided by n (lookups).
func (a storeOpsSnapshot) perOp(n int) string {
	f := func(x int64) float64 { return float64(x) / float64(n) }
	return fmt.Sprintf("Get %.2f, GetRange %.2f (%.0f bytes), Stat %.2f, List %.2f, writes %.2f, fsync %.2f",
		f(a.Get), f(a.GetRange), f(a.RangeBytes), f(a.Stat), f(a.List), f(a.Put+a.PutIfAbsent+a.PutVolatile+a.Delete), f(a.Fsyncs))
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.ops.get.Add(1)
	return s.Local.Get(ctx, key)
}

func (s *countingStore) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	s.ops.getRange.Add(1)
	b, err := s.Local.GetRange(ctx, key, off, length)
	s.ops.rangeBytes.Add(int64(len(b)))
	return b, err
}

func (s *countingStore) Stat(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	s.ops.stat.Add(1)
	return s.Local.Stat(ctx, key)
}

func (s *countingStore) List(ctx context.Context, prefix string) ([]objstore.ObjectInfo, error) {
	s.ops.list.Add(1)
	return s.Local.List(ctx, prefix)
}

func (s *countingStore) Put(ctx context.Context, key string, data []byte) error {
	s.ops.put.Add(1)
	return s.Local.Put(ctx, key, data)
}

func (s *countingStore) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	s.ops.putIfAbsent.Add(1)
	return s.Local.PutIfAbsent(ctx, key, data)
}

func (s *countingStore) PutVolatile(ctx context.Context, key string, data []byte) error {
	s.ops.putVolatile.Add(1)
	return s.Local.PutVolatile(ctx, key, data)
}

func (s *countingStore) Delete(ctx context.Context, key string) error {
	s.ops.del.Add(1)
	return s.Local.Delete(ctx, key)
}
