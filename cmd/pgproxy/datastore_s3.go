package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// rootedStore is a graph root's store: the local directory or the S3
// prefix, which both name their location (Root).
type rootedStore interface {
	objstore.Store
	Root() string
}

// s3Flags are the options of an s3://bucket/prefix --data location;
// credentials and region come from the standard AWS environment and
// config files.
type s3Flags struct {
	endpoint    string
	pathStyle   bool
	cacheMemory int64
	cacheDir    string
	cacheDisk   int64
}

func addS3Flags(fs *flag.FlagSet) *s3Flags {
	f := &s3Flags{}
	fs.StringVar(&f.endpoint, "s3-endpoint", "", "with --data s3://bucket/prefix: the S3 endpoint URL of an S3-compatible server (default: AWS, or AWS_ENDPOINT_URL_S3)")
	fs.BoolVar(&f.pathStyle, "s3-path-style", false, "with --data s3://…: address the bucket as endpoint/bucket (most S3-compatible servers need it)")
	fs.Int64Var(&f.cacheMemory, "s3-cache-memory", objstore.DefaultS3CacheBytes, "with --data s3://…: bytes of data-file ranges kept in memory")
	fs.StringVar(&f.cacheDir, "s3-cache-dir", "", "with --data s3://…: a local directory (one per process) keeping data-file ranges across restarts (default: none)")
	fs.Int64Var(&f.cacheDisk, "s3-cache-disk-bytes", objstore.DefaultS3DiskCacheBytes, "with --s3-cache-dir: bytes the directory may hold")
	return f
}

// openS3Store opens an s3://bucket/prefix location and checks the
// bucket is reachable with the configured credentials. The bucket must
// exist: pgproxy never creates buckets (their region, policy and
// lifecycle are the operator's choices); the prefix needs no creation.
func openS3Store(ctx context.Context, loc string, f *s3Flags) (*objstore.S3, error) {
	o, err := objstore.ParseS3URL(loc)
	if err != nil {
		return nil, usagef("--data: %v", err)
	}
	memBytes := int64(objstore.DefaultS3CacheBytes)
	if f != nil {
		o.Endpoint, o.PathStyle = f.endpoint, f.pathStyle
		if f.cacheMemory < 0 || f.cacheDisk < 0 {
			return nil, usagef("--s3-cache-memory and --s3-cache-disk-bytes must be >= 0")
		}
		if f.cacheMemory > 0 {
			memBytes = f.cacheMemory
		}
	}
	s, err := objstore.NewS3(ctx, o)
	if err != nil {
		return nil, &dataDirError{loc, err}
	}
	if err := s.CheckBucket(ctx); err != nil {
		return nil, &dataDirError{loc, err}
	}
	// Lance data files are written once under unique names: keep recent
	// ranges of them in memory so repeated point reads skip the GETs.
	s.CacheImmutableReads(lance.IsDataFileKey, memBytes)
	// A committer reads back the transaction file it has just written.
	s.CacheOwnWrites(lance.IsTransactionFileKey)
	// On local disk they also survive a restart (and a working set larger
	// than memory).
	if f != nil && f.cacheDir != "" {
		if err := s.CacheImmutableReadsOnDisk(f.cacheDir, f.cacheDisk); err != nil {
			return nil, &dataDirError{loc, err}
		}
	}
	return s, nil
}

// checkS3Only refuses S3 flags next to a local --data directory, where
// they would silently mean nothing.
func (f *s3Flags) checkS3Only(data string) error {
	if f == nil || objstore.IsS3URL(data) {
		return nil
	}
	if f.endpoint != "" || f.pathStyle || f.cacheDir != "" {
		return usagef("--s3-endpoint, --s3-path-style and --s3-cache-dir need --data s3://bucket/prefix (got %q)", data)
	}
	return nil
}

// checkS3ConditionalWrites refuses a server that ignores If-None-Match
// before this process writes anything (init, serve). The probe key lives
// under the root's recovery directory, where every reader looks only at
// *.json, so a probe left by a crash in its few milliseconds is inert.
func checkS3ConditionalWrites(ctx context.Context, s *objstore.S3) error {
	key := fmt.Sprintf("%sconditional-write-probe-%d-%d.tmp", graph.RecoveryDir, os.Getpid(), time.Now().UnixNano())
	return s.CheckConditionalWrites(ctx, key)
}
