package objstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/pggraph/pggraph/internal/s3test"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/objstore/storetest"
)

// startServer runs a versitygw process on dir for the test.
func startServer(t *testing.T, dir string) *s3test.Server {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: needs the versitygw S3 server (built from the Go module proxy)")
	}
	srv, err := s3test.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv
}

func newServerStore(t *testing.T, srv *s3test.Server, bucket, prefix string) *objstore.S3 {
	t.Helper()
	s, err := objstore.NewS3(context.Background(), objstore.S3Options{
		Bucket: bucket, Prefix: prefix, Endpoint: srv.Endpoint, PathStyle: true, Region: s3test.Region,
		Credentials: credentials.NewStaticCredentialsProvider(s3test.AccessKey, s3test.SecretKey, ""),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBucket(context.Background()); err != nil {
		t.Fatalf("%v\nserver log:\n%s", err, srv.Log())
	}
	return s
}

// TestS3ContractServer runs the store contract against a real
// S3-compatible server process (versitygw, posix backend).
func TestS3ContractServer(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	srv := startServer(t, t.TempDir())
	var n atomic.Int64
	storetest.RunServerKeys(t, func(t *testing.T) objstore.Store {
		return newServerStore(t, srv, "contract", fmt.Sprintf("t%d", n.Add(1)))
	})
}

// TestS3ServerPutIfAbsentAcrossProcesses: two server processes on one
// directory, racing conditional PUTs of the same keys through both:
// exactly one winner per key, and every loser told ErrExists.
func TestS3ServerPutIfAbsentAcrossProcesses(t *testing.T) {
	t.Parallel() // own server, store and directory; mostly waits on requests and fsyncs
	dir := t.TempDir()
	srvs := []*s3test.Server{startServer(t, dir), startServer(t, dir)}
	stores := []*objstore.S3{newServerStore(t, srvs[0], "race", ""), newServerStore(t, srvs[1], "race", "")}
	const keys, racers = 100, 8
	wins := make([]atomic.Int32, keys)
	var wg sync.WaitGroup
	errs := make(chan error, racers)
	start := make(chan struct{})
	for r := range racers {
		wg.Go(func() {
			<-start
			s := stores[r%2]
			for k := range keys {
				err := s.PutIfAbsent(context.Background(), fmt.Sprintf("k/%03d", k), []byte(fmt.Sprint(r)))
				switch {
				case err == nil:
					wins[k].Add(1)
				case objstore.IsExists(err):
				default:
					errs <- err
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for k := range wins {
		if w := wins[k].Load(); w != 1 {
			t.Fatalf("key %d: %d winners across two server processes, want exactly 1", k, w)
		}
	}
}
