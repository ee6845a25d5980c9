package objstore

import (
	"net/http"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// requestCounter tallies the HTTP requests an S3 store sends, by kind:
// the unit object storage bills and rate-limits, below the Store calls
// that Counting sees (a Delete is two requests, a retry is another).
type requestCounter struct {
	mu sync.Mutex
	n  map[string]int64
}

func newRequestCounter() *requestCounter { return &requestCounter{n: map[string]int64{}} }

func (c *requestCounter) add(kind string) {
	c.mu.Lock()
	c.n[kind]++
	c.mu.Unlock()
}

func (c *requestCounter) snapshot() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.n))
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

// requestKind classifies one S3 request.
func requestKind(r *http.Request) string {
	q := r.URL.Query()
	_, upload := q["uploadId"]
	_, uploads := q["uploads"]
	switch r.Method {
	case http.MethodGet:
		if _, ok := q["list-type"]; ok {
			return "LIST"
		}
		if upload {
			return "MULTIPART"
		}
		if r.Header.Get("Range") != "" {
			return "GET-range"
		}
		return "GET"
	case http.MethodHead:
		return "HEAD"
	case http.MethodPut:
		if upload {
			return "MULTIPART"
		}
		if r.Header.Get("If-None-Match") != "" {
			return "PUT-if-absent"
		}
		return "PUT"
	case http.MethodPost:
		if upload || uploads {
			return "MULTIPART"
		}
		return "POST"
	case http.MethodDelete:
		if upload {
			return "MULTIPART"
		}
		return "DELETE"
	}
	return r.Method
}

// countingHTTPClient counts each request it sends.
type countingHTTPClient struct {
	inner   aws.HTTPClient
	counter *requestCounter
}

func (c *countingHTTPClient) Do(r *http.Request) (*http.Response, error) {
	c.counter.add(requestKind(r))
	return c.inner.Do(r)
}

// awsBuildableClient is the SDK's default HTTP client with transport
// options applied.
func awsBuildableClient(opt func(*http.Transport)) aws.HTTPClient {
	return awshttp.NewBuildableClient().WithTransportOptions(opt)
}
