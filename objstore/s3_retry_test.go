package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/iotest"

	"github.com/pggraph/pggraph/objstore"
)

// faultClient sends requests to the server unless its hook answers one
// itself; forward=true with a response sends the request first and then
// replaces the server's answer (a response lost after the write landed).
type faultClient struct {
	mu   sync.Mutex
	seen map[string]int
	hook func(kind string, n int, r *http.Request) (resp *http.Response, forward bool)
}

func (c *faultClient) Do(r *http.Request) (*http.Response, error) {
	kind := r.Method
	if r.Method == http.MethodPut && r.Header.Get("If-None-Match") != "" {
		kind = "PUT-if-absent"
	}
	c.mu.Lock()
	if c.seen == nil {
		c.seen = map[string]int{}
	}
	c.seen[kind]++
	n := c.seen[kind]
	c.mu.Unlock()
	resp, forward := c.hook(kind, n, r)
	if resp == nil || forward {
		real, err := http.DefaultClient.Do(r)
		if resp == nil || err != nil {
			return real, err
		}
		io.Copy(io.Discard, real.Body)
		real.Body.Close()
	}
	return resp, nil
}

func s3ErrorResponse(r *http.Request, status int, code string) *http.Response {
	body := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code><Message>injected</Message></Error>`, code)
	return &http.Response{
		StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/xml"}},
		Body:          io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: r,
	}
}

// TestS3Retries: transient failures are retried, and a conditional
// write's retry tells its own landed write from a lost race.
func TestS3Retries(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name string
		// hook injects faults; other writes through the second store
		hook func(other *objstore.S3) func(kind string, n int, r *http.Request) (*http.Response, bool)
		run  func(s *objstore.S3) error
		// want: nil, or the typed error
		want     error
		wantData string
		wantReqs map[string]int64
	}{
		{
			name: "get after 5xx and SlowDown",
			hook: func(*objstore.S3) func(string, int, *http.Request) (*http.Response, bool) {
				return func(kind string, n int, r *http.Request) (*http.Response, bool) {
					switch {
					case kind == "GET" && n == 1:
						return s3ErrorResponse(r, 500, "InternalError"), false
					case kind == "GET" && n == 2:
						return s3ErrorResponse(r, 503, "SlowDown"), false
					}
					return nil, false
				}
			},
			run:      func(s *objstore.S3) error { _, err := s.Get(ctx, "seed"); return err },
			wantData: "seed",
			wantReqs: map[string]int64{"GET": 3},
		},
		{
			name: "get whose body is cut off",
			hook: func(*objstore.S3) func(string, int, *http.Request) (*http.Response, bool) {
				return func(kind string, n int, r *http.Request) (*http.Response, bool) {
					if kind == "GET" && n == 1 {
						return &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
							Header: http.Header{"Content-Length": {"4"}}, ContentLength: 4, Request: r,
							Body: io.NopCloser(io.MultiReader(strings.NewReader("se"), iotest.ErrReader(io.ErrUnexpectedEOF)))}, false
					}
					return nil, false
				}
			},
			run:      func(s *objstore.S3) error { _, err := s.Get(ctx, "seed"); return err },
			wantData: "seed",
			wantReqs: map[string]int64{"GET": 2},
		},
		{
			name: "put-if-absent whose response was lost",
			hook: func(*objstore.S3) func(string, int, *http.Request) (*http.Response, bool) {
				return func(kind string, n int, r *http.Request) (*http.Response, bool) {
					if kind == "PUT-if-absent" && n == 1 {
						return s3ErrorResponse(r, 500, "InternalError"), true // landed, answer lost
					}
					return nil, false
				}
			},
			run:      func(s *objstore.S3) error { return s.PutIfAbsent(ctx, "k", []byte("mine")) },
			wantData: "mine",
			wantReqs: map[string]int64{"PUT-if-absent": 2, "GET": 1},
		},
		{
			name: "put-if-absent that failed while another writer won",
			hook: func(other *objstore.S3) func(string, int, *http.Request) (*http.Response, bool) {
				return func(kind string, n int, r *http.Request) (*http.Response, bool) {
					if kind == "PUT-if-absent" && n == 1 {
						if err := other.PutIfAbsent(ctx, "k", []byte("theirs")); err != nil {
							panic(err)
						}
						return s3ErrorResponse(r, 503, "ServiceUnavailable"), false
					}
					return nil, false
				}
			},
			run:      func(s *objstore.S3) error { return s.PutIfAbsent(ctx, "k", []byte("mine")) },
			want:     objstore.ErrExists,
			wantData: "theirs",
			wantReqs: map[string]int64{"PUT-if-absent": 2, "GET": 1},
		},
		{
			name: "put-if-absent after 409 ConditionalRequestConflict",
			hook: func(*objstore.S3) func(string, int, *http.Request) (*http.Response, bool) {
				return func(kind string, n int, r *http.Request) (*http.Response, bool) {
					if kind == "PUT-if-absent" && n == 1 {
						return s3ErrorResponse(r, 409, "ConditionalRequestConflict"), false
					}
					return nil, false
				}
			},
			run:      func(s *objstore.S3) error { return s.PutIfAbsent(ctx, "k", []byte("mine")) },
			wantData: "mine",
			wantReqs: map[string]int64{"PUT-if-absent": 2},
		},
		{
			name: "put-if-absent lost plainly",
			hook: func(other *objstore.S3) func(string, int, *http.Request) (*http.Response, bool) {
				if err := other.Put(ctx, "k", []byte("theirs")); err != nil {
					panic(err)
				}
				return func(string, int, *http.Request) (*http.Response, bool) { return nil, false }
			},
			run:      func(s *objstore.S3) error { return s.PutIfAbsent(ctx, "k", []byte("mine")) },
			want:     objstore.ErrExists,
			wantData: "theirs",
			wantReqs: map[string]int64{"PUT-if-absent": 1},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ep := fakeS3(t)
			other := newFakeS3Store(t, ep, "p", nil)
			if err := other.Put(ctx, "seed", []byte("seed")); err != nil {
				t.Fatal(err)
			}
			fc := &faultClient{hook: c.hook(other)}
			s := newFakeS3Store(t, ep, "p", func(o *objstore.S3Options) { o.HTTPClient = fc })
			before := s.Requests()
			err := c.run(s)
			if c.want == nil && err != nil || c.want != nil && !errors.Is(err, c.want) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			key := "k"
			if c.wantData == "seed" {
				key = "seed"
			}
			got, gerr := other.Get(ctx, key)
			if gerr != nil || !bytes.Equal(got, []byte(c.wantData)) {
				t.Fatalf("stored %q, %v; want %q", got, gerr, c.wantData)
			}
			after := s.Requests()
			for kind, n := range c.wantReqs {
				if d := after[kind] - before[kind]; d != n {
					t.Errorf("%s requests = %d, want %d (all: %v)", kind, d, n, after)
				}
			}
		})
	}
}

// stripCondition sends requests without If-None-Match: a server (or a
// proxy in front of one) that ignores the condition.
type stripCondition struct{}

func (stripCondition) Do(r *http.Request) (*http.Response, error) {
	r.Header.Del("If-None-Match")
	return http.DefaultClient.Do(r)
}

// TestS3CheckConditionalWrites: the probe passes on a server that
// honours If-None-Match and refuses one that ignores it, leaving no
// object behind either way.
func TestS3CheckConditionalWrites(t *testing.T) {
	ctx := context.Background()
	ep := fakeS3(t)
	good := newFakeS3Store(t, ep, "g", nil)
	if err := good.CheckConditionalWrites(ctx, "probe/1.tmp"); err != nil {
		t.Fatalf("a conforming server: %v", err)
	}
	bad := newFakeS3Store(t, ep, "g", func(o *objstore.S3Options) { o.HTTPClient = stripCondition{} })
	if err := bad.CheckConditionalWrites(ctx, "probe/2.tmp"); !errors.Is(err, objstore.ErrNoConditionalWrites) {
		t.Fatalf("a server ignoring If-None-Match: %v, want ErrNoConditionalWrites", err)
	}
	if left, err := good.List(ctx, "probe/"); err != nil || len(left) != 0 {
		t.Fatalf("probe objects left behind: %v %v", left, err)
	}
}
