package main

import (
	"context"
	"fmt"
	"time"

	"github.com/pggraph/pggraph/objstore"
)

// runBenchS3 is the objstore suite on an s3://bucket/prefix location:
// the store's primitives on S3 (or an S3-compatible server) under a
// scratch prefix that is removed afterwards. There is no filesystem
// floor to compare with; the floor is an unconditional Put, so the
// ratios show what a condition, a read or a delete costs next to it.
func runBenchS3(ctx context.Context, env *runEnv, c benchConfig) error {
	store, err := openS3Store(ctx, c.dir, c.s3)
	if err != nil {
		return err
	}
	scratch := fmt.Sprintf(".pgproxy-bench-%d/", time.Now().UnixNano())
	defer func() {
		// best effort, also after a failure or an interrupt
		ctx := context.WithoutCancel(ctx)
		objs, err := store.List(ctx, scratch)
		if err != nil {
			fmt.Fprintf(env.stderr, "bench: scratch prefix %s left behind: %v\n", scratch, err)
			return
		}
		for _, o := range objs {
			_ = store.Delete(ctx, o.Key)
		}
	}()
	payload := make([]byte, c.size)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	round := 0
	key := func(kind string, i int) string { return fmt.Sprintf("%s%s/r%d/%06d", scratch, kind, round, i) }
	prims := []primitive{
		{name: "s3 Put", about: "PutObject (floor)",
			op: func(ctx context.Context, i int) error { return store.Put(ctx, key("put", i), payload) }},
		{name: "s3 PutIfAbsent", about: "PutObject If-None-Match: * (the CAS), new key",
			op: func(ctx context.Context, i int) error { return store.PutIfAbsent(ctx, key("pia", i), payload) }},
		{name: "s3 PutIfAbsent lost", about: "the CAS losing: 412",
			setup: func(ctx context.Context, i int) error {
				if i == 0 {
					return store.Put(ctx, key("lost", 0), payload)
				}
				return nil
			},
			op: func(ctx context.Context, i int) error {
				if err := store.PutIfAbsent(ctx, key("lost", 0), payload); !objstore.IsExists(err) {
					return fmt.Errorf("expected ErrExists, got %v", err)
				}
				return nil
			}},
		{name: "s3 Get", about: "GetObject of a written key",
			op: func(ctx context.Context, i int) error { _, err := store.Get(ctx, key("put", i)); return err }},
		{name: "s3 GetRange", about: "GetObject with a Range header (first 64 bytes)",
			op: func(ctx context.Context, i int) error {
				_, err := store.GetRange(ctx, key("put", i), 0, 64)
				return err
			}},
		{name: "s3 Stat", about: "HeadObject (the per-statement manifest probe)",
			op: func(ctx context.Context, i int) error { _, err := store.Stat(ctx, key("put", i)); return err }},
		{name: "s3 Delete", about: "HeadObject + DeleteObject",
			setup: func(ctx context.Context, i int) error { return store.Put(ctx, key("del", i), payload) },
			op:    func(ctx context.Context, i int) error { return store.Delete(ctx, key("del", i)) }},
	}
	return runPrimitives(ctx, env, c, "objstore-primitives-s3", prims, func(r int) { round = r })
}
