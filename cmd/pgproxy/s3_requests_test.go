package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/jackc/pgx/v5"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
	"github.com/pggraph/pggraph/planner"
	"github.com/pggraph/pggraph/wire"
)

// requestCost is the storage work of one operation, averaged: store
// calls by kind (Counting) and, on S3, HTTP requests by kind.
type requestCost struct {
	calls  map[string]float64
	http   map[string]float64
	listed []string // distinct prefixes listed
	// accessProbes: Stats of role catalog versions, per operation
	accessProbes float64
}

func (c requestCost) String() string {
	return fmt.Sprintf("%s  |  HTTP: %s", fmtCounts(c.calls), fmtCounts(c.http))
}

// listSpy records the prefixes a store is asked to list, and counts the
// Stats of role catalog versions (the probe every statement makes).
type listSpy struct {
	objstore.Store
	mu           sync.Mutex
	prefixes     map[string]bool
	accessProbes int
}

func (l *listSpy) Stat(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	if strings.HasPrefix(key, "__access/") {
		l.mu.Lock()
		l.accessProbes++
		l.mu.Unlock()
	}
	return l.Store.Stat(ctx, key)
}

// takeAccessProbes returns the role catalog probes since the last call.
func (l *listSpy) takeAccessProbes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.accessProbes
	l.accessProbes = 0
	return n
}

func (l *listSpy) List(ctx context.Context, prefix string) ([]objstore.ObjectInfo, error) {
	l.mu.Lock()
	if l.prefixes == nil {
		l.prefixes = map[string]bool{}
	}
	l.prefixes[prefix] = true
	l.mu.Unlock()
	return l.Store.List(ctx, prefix)
}

func (l *listSpy) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for p := range l.prefixes {
		out = append(out, p)
	}
	sort.Strings(out)
	l.prefixes = nil
	return out
}

func fmtCounts(m map[string]float64) string {
	if len(m) == 0 {
		return "-"
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%.2f", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// costMeter measures a store's calls and HTTP requests over a span.
type costMeter struct {
	counting *objstore.Counting
	requests func() map[string]int64 // nil for Local
	before   map[string]int64
	spy      *listSpy
}

func (m *costMeter) start() {
	m.counting.Reset()
	m.spy.take()
	m.spy.takeAccessProbes()
	if m.requests != nil {
		m.before = m.requests()
	}
}

func (m *costMeter) stop(n int) requestCost {
	st := m.counting.Stats()
	c := requestCost{calls: map[string]float64{}, http: map[string]float64{}, listed: m.spy.take(),
		accessProbes: float64(m.spy.takeAccessProbes()) / float64(n)}
	for op, k := range st.Ops {
		c.calls[op.String()] = float64(k) / float64(n)
	}
	if m.requests != nil {
		for kind, k := range m.requests() {
			if d := k - m.before[kind]; d > 0 {
				c.http[kind] = float64(d) / float64(n)
			}
		}
	}
	return c
}

// serveInProcess opens a graph root on store as serve does and serves
// it on a loopback port; stop closes both.
func serveInProcess(ctx context.Context, t testing.TB, store objstore.Store, location string) (addr string, stop func()) {
	t.Helper()
	g, err := adapters.Open(ctx, store, adapters.Options{Create: true, Actor: "requests-test", Location: location})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := wire.NewServer(wire.Config{Backend: planner.NewBackend(g)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), ln) }()
	return ln.Addr().String(), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
		if err := <-done; err != nil && !errors.Is(err, wire.ErrServerClosed) {
			t.Error(err)
		}
		g.Close()
	}
}

// delayedClient sends each request after a fixed delay.
type delayedClient struct{ d time.Duration }

func (c delayedClient) Do(r *http.Request) (*http.Response, error) {
	time.Sleep(c.d)
	return http.DefaultClient.Do(r)
}

// TestRequestsPerOperation measures the storage requests of a 1-row
// commit, a point read and an open, on Local and on S3 (an in-process
// S3 server), and holds the hot path to no LIST at all: object storage
// lists slowly, costs more per LIST and is rate-limited per prefix.
func TestRequestsPerOperation(t *testing.T) {
	ctx := context.Background()
	type backend struct {
		name     string
		store    objstore.Store
		location string
		requests func() map[string]int64
		// fresh opens the same root as another process would: a store
		// with nothing cached
		fresh func() (objstore.Store, func() map[string]int64)
	}
	local, err := objstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	local.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultReadHandles) // as serve does
	fake := httptest.NewServer(gofakes3.New(s3mem.New(), gofakes3.WithAutoBucket(true)).Server())
	defer fake.Close()
	newS3 := func(prefix string, client aws.HTTPClient) *objstore.S3 {
		return fakeS3Store(ctx, t, fake.URL, prefix, client)
	}
	s3, slow := newS3("g", nil), newS3("slow", delayedClient{30 * time.Millisecond})
	freshS3 := func(prefix string, client aws.HTTPClient) func() (objstore.Store, func() map[string]int64) {
		return func() (objstore.Store, func() map[string]int64) { s := newS3(prefix, client); return s, s.Requests }
	}
	backends := []backend{
		{"Local", local, local.Root(), nil, func() (objstore.Store, func() map[string]int64) {
			l, err := objstore.NewLocal(local.Root())
			if err != nil {
				t.Fatal(err)
			}
			l.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultReadHandles)
			return l, nil
		}},
		{"S3", s3, s3.Root(), s3.Requests, freshS3("g", nil)},
		// every request 30 ms late, as S3 Standard answers
		{"S3+30ms", slow, slow.Root(), slow.Requests, freshS3("slow", delayedClient{30 * time.Millisecond})},
	}
	for _, b := range backends {
		n := 20
		if b.name == "S3+30ms" {
			n = 5
		}
		t.Run(b.name, func(t *testing.T) {
			spy := &listSpy{Store: b.store}
			m := &costMeter{counting: objstore.NewCounting(spy), requests: b.requests, spy: spy}
			addr, stop := serveInProcess(ctx, t, m.counting, b.location)
			conn, err := pgx.Connect(ctx, "postgres://tester@"+addr+"/main?sslmode=disable")
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"CREATE TABLE t (id int8 PRIMARY KEY, v text)", "INSERT INTO t VALUES (0, 'warm')", "SELECT v FROM t WHERE id = 0"} {
				if _, err := conn.Exec(ctx, q); err != nil {
					t.Fatal(err)
				}
			}
			m.start()
			t0 := time.Now()
			for i := 1; i <= n; i++ {
				if _, err := conn.Exec(ctx, "INSERT INTO t VALUES ($1, 'x')", i); err != nil {
					t.Fatal(err)
				}
			}
			commit := m.stop(n)
			commitTime := time.Since(t0) / time.Duration(n)
			m.start()
			t0 = time.Now()
			for i := 1; i <= n; i++ {
				var v string
				if err := conn.QueryRow(ctx, "SELECT v FROM t WHERE id = $1", i).Scan(&v); err != nil || v != "x" {
					t.Fatalf("point read %d: %q, %v", i, v, err)
				}
			}
			read := m.stop(n)
			readTime := time.Since(t0) / time.Duration(n)
			m.start()
			for i := 1; i <= n; i++ { // the same rows again: immutable pages are cached
				var v string
				if err := conn.QueryRow(ctx, "SELECT v FROM t WHERE id = $1", i).Scan(&v); err != nil || v != "x" {
					t.Fatalf("point read %d: %q, %v", i, v, err)
				}
			}
			reread := m.stop(n)
			conn.Close(ctx)
			stop()
			m.start()
			g, err := adapters.Open(ctx, m.counting, adapters.Options{Actor: "requests-test", Location: b.location})
			if err != nil {
				t.Fatal(err)
			}
			open := m.stop(1)
			g.Close()

			// rows another process wrote, read by a process with nothing
			// cached yet
			other, otherRequests := b.fresh()
			ospy := &listSpy{Store: other}
			om := &costMeter{counting: objstore.NewCounting(ospy), requests: otherRequests, spy: ospy}
			oaddr, ostop := serveInProcess(ctx, t, om.counting, b.location)
			oconn, err := pgx.Connect(ctx, "postgres://tester@"+oaddr+"/main?sslmode=disable")
			if err != nil {
				t.Fatal(err)
			}
			var warm string
			if err := oconn.QueryRow(ctx, "SELECT v FROM t WHERE id = 0").Scan(&warm); err != nil {
				t.Fatal(err)
			}
			om.start()
			t0 = time.Now()
			for i := 1; i <= n; i++ {
				var v string
				if err := oconn.QueryRow(ctx, "SELECT v FROM t WHERE id = $1", i).Scan(&v); err != nil || v != "x" {
					t.Fatalf("cold point read %d: %q, %v", i, v, err)
				}
			}
			cold := om.stop(n)
			coldTime := time.Since(t0) / time.Duration(n)
			oconn.Close(ctx)
			ostop()
			t.Logf("%s 1-row commit (mean %v): %s", b.name, commitTime, commit)
			t.Logf("%s point read of rows this process wrote (mean %v):   %s", b.name, readTime, read)
			t.Logf("%s point read of rows another process wrote (mean %v):   %s", b.name, coldTime, cold)
			t.Logf("%s point re-read:   %s", b.name, reread)
			t.Logf("%s open:         %s", b.name, open)
			// Neither a point read nor a commit lists anything: the
			// recovery barrier resolves the intents this process knows
			// of and lists __recovery/ only on its first run and every
			// RescanInterval (recovery/doc.go, "Finding intents").
			// rows read before: their data file ranges are cached (S3) or
			// their files open (Local); only the manifest probe is left
			if b.requests != nil && reread.http["GET-range"]+reread.http["GET"] != 0 {
				t.Errorf("re-reading rows on %s fetched data again: %s", b.name, reread)
			}
			// the data files this process wrote are cached as written
			if b.requests != nil && read.http["GET-range"] != 0 {
				t.Errorf("reading rows this process wrote on %s fetched data files: %s", b.name, read)
			}
			// a statement checks its privileges against one role catalog,
			// probed once (a HEAD on S3), however many checks it makes
			for what, c := range map[string]requestCost{"1-row commit": commit, "point read": read} {
				if c.accessProbes > 1 {
					t.Errorf("a %s on %s probes the role catalog %.2f times: %s", what, b.name, c.accessProbes, c)
				}
			}
			if cold.calls["list"] != 0 || cold.http["LIST"] != 0 || len(cold.listed) != 0 {
				t.Errorf("a cold point read on %s lists %v: %s", b.name, cold.listed, cold)
			}
			if read.calls["list"] != 0 || read.http["LIST"] != 0 || len(read.listed) != 0 {
				t.Errorf("a point read on %s lists %v: %s", b.name, read.listed, read)
			}
			if commit.calls["list"] != 0 || commit.http["LIST"] != 0 || len(commit.listed) != 0 {
				t.Errorf("a 1-row commit on %s lists %v: %s", b.name, commit.listed, commit)
			}
		})
	}
}

// fakeS3Store opens prefix of bucket "graphs" on the in-process S3
// server at url, with serve's read caches; client may add delays.
func fakeS3Store(ctx context.Context, t testing.TB, url, prefix string, client aws.HTTPClient) *objstore.S3 {
	t.Helper()
	s3, err := objstore.NewS3(ctx, objstore.S3Options{Bucket: "graphs", Prefix: prefix, Endpoint: url, PathStyle: true, Region: "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""), HTTPClient: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := s3.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	s3.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultS3CacheBytes) // as serve does
	s3.CacheOwnWrites(lance.IsTransactionFileKey)
	return s3
}
