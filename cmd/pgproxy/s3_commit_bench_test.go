package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/pggraph/pggraph/internal/s3test"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// BenchmarkS3Commits measures 1-row autocommit INSERTs on a graph root
// in an in-process S3 server, with and without 30 ms added to every
// request (S3 Standard's order of magnitude), for 1, 16 and 64 clients:
// commits/s, latency p50/p99 and HTTP requests per commit. Each case
// runs for 5 s whatever b.N is:
//
//	go test ./cmd/pgproxy -run '^$' -bench S3Commits -benchtime 1x
func BenchmarkS3Commits(b *testing.B) {
	fake := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	defer fake.Close()
	benchS3Commits(b, fake.URL, credentials.NewStaticCredentialsProvider("k", "s", ""))
}

// BenchmarkS3CommitsServer is BenchmarkS3Commits on a real S3-compatible
// server process (versitygw on its posix backend, which writes every
// object to the local disk):
//
//	go test ./cmd/pgproxy -run '^$' -bench S3CommitsServer -benchtime 1x
func BenchmarkS3CommitsServer(b *testing.B) {
	srv, err := s3test.Start(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Stop()
	benchS3Commits(b, srv.Endpoint, credentials.NewStaticCredentialsProvider(s3test.AccessKey, s3test.SecretKey, ""))
}

func benchS3Commits(b *testing.B, endpoint string, creds aws.CredentialsProvider) {
	ctx := context.Background()
	n := 0
	for _, delay := range []time.Duration{0, 30 * time.Millisecond} {
		for _, clients := range []int{1, 16, 64} {
			b.Run(fmt.Sprintf("delay=%v/clients=%d", delay, clients), func(b *testing.B) {
				n++
				var client aws.HTTPClient
				if delay > 0 {
					client = delayedClient{delay}
				}
				s3, err := objstore.NewS3(ctx, objstore.S3Options{Bucket: "graphs", Prefix: fmt.Sprintf("bench%d", n), Endpoint: endpoint,
					PathStyle: true, Region: "us-east-1", Credentials: creds, HTTPClient: client})
				if err != nil {
					b.Fatal(err)
				}
				if err := s3.CreateBucket(ctx); err != nil {
					b.Fatal(err)
				}
				s3.CacheImmutableReads(lance.IsDataFileKey, 0) // as serve does
				s3.CacheOwnWrites(lance.IsTransactionFileKey)
				addr, stop := serveInProcess(ctx, b, s3, s3.Root())
				defer stop()
				url := "postgres://bench@" + addr + "/main?sslmode=disable"
				c0, err := pgx.Connect(ctx, url)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c0.Exec(ctx, "CREATE TABLE t (k int8, c int4)"); err != nil {
					b.Fatal(err)
				}
				c0.Close(ctx)
				const dur = 5 * time.Second
				var mu sync.Mutex
				var lat []time.Duration
				failed := 0
				before := s3.Requests()
				b.ResetTimer()
				end := time.Now().Add(dur)
				var wg sync.WaitGroup
				for c := range clients {
					wg.Go(func() {
						cn, err := pgx.Connect(ctx, url)
						if err != nil {
							mu.Lock()
							failed++
							mu.Unlock()
							return
						}
						defer cn.Close(ctx)
						for i := 0; time.Now().Before(end); i++ {
							t0 := time.Now()
							_, err := cn.Exec(ctx, "INSERT INTO t VALUES ($1, 1)", c*1_000_000+i)
							mu.Lock()
							if err == nil {
								lat = append(lat, time.Since(t0))
							} else {
								failed++
							}
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				var reqs int64
				for k, v := range s3.Requests() {
					reqs += v - before[k]
				}
				if len(lat) == 0 {
					b.Fatalf("no commit succeeded (%d failed)", failed)
				}
				sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
				b.ReportMetric(float64(len(lat))/dur.Seconds(), "commits/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(reqs)/float64(len(lat)), "requests/commit")
				b.ReportMetric(float64(failed), "failed")
			})
		}
	}
}
