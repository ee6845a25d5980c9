package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// S3Options configure an S3 store. Credentials and, unless Region is
// set, the region come from the standard AWS sources: the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
// AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL_S3 …), the shared config and
// credentials files, and instance or container roles.
type S3Options struct {
	// Bucket holds the objects (required).
	Bucket string
	// Prefix is the key prefix of the store inside the bucket, without
	// leading or trailing slashes ("" = the whole bucket).
	Prefix string
	// Endpoint overrides the S3 endpoint (an S3-compatible server:
	// "http://127.0.0.1:7070"). "" = AWS, or AWS_ENDPOINT_URL_S3.
	Endpoint string
	// PathStyle addresses buckets as endpoint/bucket/key instead of
	// bucket.endpoint/key, as most S3-compatible servers need.
	PathStyle bool
	// Region overrides the configured region. With an Endpoint and no
	// region configured anywhere, us-east-1 is used (servers that ignore
	// regions still need one to sign requests).
	Region string
	// MaxAttempts bounds the attempts per request for retryable failures
	// (5xx, SlowDown and other throttling, connection errors, 409
	// ConditionalRequestConflict). 0 = DefaultS3MaxAttempts.
	MaxAttempts int
	// MultipartThreshold: objects at least this large are uploaded in
	// parts of PartSize. 0 = DefaultS3MultipartThreshold.
	MultipartThreshold int64
	// PartSize of multipart uploads (S3's minimum is 5 MiB except for
	// the last part). 0 = DefaultS3PartSize.
	PartSize int64
	// Credentials override the standard credential sources (tests give
	// a server's static keys).
	Credentials aws.CredentialsProvider
	// HTTPClient replaces the HTTP client (tests inject delays or
	// faults). Requests are counted whichever client sends them.
	HTTPClient aws.HTTPClient
}

// Defaults of S3Options.
const (
	DefaultS3MaxAttempts        = 8
	DefaultS3MultipartThreshold = 64 << 20
	DefaultS3PartSize           = 16 << 20
)

// S3 is a Store in an S3 bucket (AWS or an S3-compatible server), on the
// AWS SDK for Go v2 (it signs requests, knows every endpoint and
// credential source, and retries transient failures with backoff).
//
// Mapping. Key k is the object Prefix + "/" + k. Get and GetRange are
// GetObject (GetRange with a Range header), Put is PutObject,
// PutIfAbsent is PutObject with If-None-Match: * (412 → ErrExists, 409
// ConditionalRequestConflict → retried), List is ListObjectsV2 paginated,
// Stat is HeadObject and Delete is HeadObject then DeleteObject (S3
// deletes a missing key silently; the contract reports ErrNotFound).
// Objects of MultipartThreshold bytes or more are multipart uploads,
// completed with the same condition for PutIfAbsent.
//
// Durability and atomicity are S3's: an acknowledged write is durable
// and readers see an object whole or not at all. There is no staging
// object. The key space is flat: unlike Local, an object and a "directory"
// of the same name can coexist (see the package doc).
type S3 struct {
	client    *s3.Client
	retryer   *retry.Standard
	bucket    string
	prefix    string // "" or "p/" (with the slash)
	location  string
	threshold int64
	partSize  int64
	requests  *requestCounter
	cache     *rangeCache // nil unless CacheImmutableReads
	disk      *diskCache  // nil unless CacheImmutableReadsOnDisk
	endpoint  string      // S3Options.Endpoint: part of the disk cache's namespace
}

// NewS3 builds an S3 store. It sends no request: CheckBucket verifies
// the bucket is reachable.
func NewS3(ctx context.Context, o S3Options) (*S3, error) {
	if o.Bucket == "" {
		return nil, errors.New("objstore: s3: bucket name is required")
	}
	prefix := strings.Trim(o.Prefix, "/")
	if prefix != "" {
		if err := ValidateKey(prefix); err != nil {
			return nil, fmt.Errorf("objstore: s3 prefix %q: %w", o.Prefix, err)
		}
	}
	attempts := o.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultS3MaxAttempts
	}
	retryer := retry.NewStandard(func(so *retry.StandardOptions) {
		so.MaxAttempts = attempts
		so.MaxBackoff = 5 * time.Second
		// A burst of throttling must slow requests down, not fail them:
		// the client-side retry quota would turn SlowDown into errors.
		so.RateLimiter = ratelimit.None
		so.Retryables = append(so.Retryables, retry.RetryableErrorCode{
			Codes: map[string]struct{}{"ConditionalRequestConflict": {}},
		})
	})
	var loadOpts []func(*config.LoadOptions) error
	if o.Region != "" {
		loadOpts = append(loadOpts, config.WithRegion(o.Region))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		return nil, fmt.Errorf("objstore: s3: loading AWS configuration: %w", err)
	}
	if cfg.Region == "" && (o.Endpoint != "" || cfg.BaseEndpoint != nil) {
		cfg.Region = "us-east-1"
	}
	counter := newRequestCounter()
	inner := o.HTTPClient
	if inner == nil {
		inner = defaultS3HTTPClient()
	}
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		if o.Credentials != nil {
			so.Credentials = o.Credentials
		}
		so.UsePathStyle = o.PathStyle
		so.Retryer = retryer
		so.HTTPClient = &countingHTTPClient{inner: inner, counter: counter}
		// Checksums only where S3 requires them: S3-compatible servers
		// differ in their support of trailing checksums, and SigV4
		// already signs the payload hash of every write.
		so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	threshold := o.MultipartThreshold
	if threshold <= 0 {
		threshold = DefaultS3MultipartThreshold
	}
	part := o.PartSize
	if part <= 0 {
		part = DefaultS3PartSize
	}
	s := &S3{client: client, retryer: retryer, bucket: o.Bucket, threshold: threshold, partSize: part, requests: counter}
	s.endpoint = o.Endpoint
	s.location = "s3://" + o.Bucket
	if prefix != "" {
		s.prefix = prefix + "/"
		s.location += "/" + prefix
	}
	return s, nil
}

// defaultS3HTTPClient is the SDK's client with room for many concurrent
// requests to one endpoint (Go's default keeps 2 idle connections per
// host, so a burst of parallel reads would reconnect each time).
func defaultS3HTTPClient() aws.HTTPClient {
	return awsBuildableClient(func(tr *http.Transport) {
		tr.MaxIdleConns = 512
		tr.MaxIdleConnsPerHost = 256
	})
}

// Root is the store's location, s3://bucket/prefix. Lance records it in
// the base paths of branches.
func (s *S3) Root() string { return s.location }

// Bucket returns the bucket name.
func (s *S3) Bucket() string { return s.bucket }

// CheckBucket verifies the bucket exists and the credentials reach it
// (one HeadBucket request).
func (s *S3) CheckBucket(ctx context.Context) error {
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)})
	if err != nil {
		if httpStatus(err) == http.StatusNotFound {
			return fmt.Errorf("objstore: s3 bucket %q does not exist", s.bucket)
		}
		return fmt.Errorf("objstore: s3 bucket %q: %w", s.bucket, err)
	}
	return nil
}

// CreateBucket creates the bucket (tests and first-time setup against
// S3-compatible servers); an existing bucket of ours is not an error.
func (s *S3) CreateBucket(ctx context.Context) error {
	_, err := s.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.bucket)})
	if err != nil {
		if code := errorCode(err); code == "BucketAlreadyOwnedByYou" || code == "BucketAlreadyExists" {
			return nil
		}
		return fmt.Errorf("objstore: s3 create bucket %q: %w", s.bucket, err)
	}
	return nil
}

// Requests returns the HTTP requests sent so far, by kind (GET,
// GET-range, HEAD, PUT, PUT-if-absent, LIST, DELETE, MULTIPART), retries
// included.
func (s *S3) Requests() map[string]int64 { return s.requests.snapshot() }

func (s *S3) objectKey(key string) string { return s.prefix + key }

// Get implements Store.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkCall(ctx, key); err != nil {
		return nil, opErr("get", key, err)
	}
	b, err := s.cachedRead(rangeKey{key, 0, -1}, func() ([]byte, error) { return s.get(ctx, key, "") })
	return b, opErr("get", key, err)
}

// get reads the object, or the HTTP range rng of it ("" = whole). The
// SDK retries a request that fails; a body cut off mid-stream (a reset
// connection) is retried here, a few times, with the same backoff.
func (s *S3) get(ctx context.Context, key, rng string) ([]byte, error) {
	for attempt := 1; ; attempt++ {
		b, bodyErr, err := s.getOnce(ctx, key, rng)
		if !bodyErr || ctx.Err() != nil || attempt >= min(3, s.retryer.MaxAttempts()) {
			return b, err
		}
		delay, derr := s.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return b, err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// getOnce is one GetObject; bodyErr reports a failure while reading the
// body after a successful response.
func (s *S3) getOnce(ctx context.Context, key, rng string) (_ []byte, bodyErr bool, _ error) {
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.objectKey(key))}
	if rng != "" {
		in.Range = aws.String(rng)
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		return nil, false, mapS3Error(err)
	}
	defer out.Body.Close()
	size := int64(512)
	if out.ContentLength != nil && *out.ContentLength >= 0 {
		size = *out.ContentLength
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if _, err := io.Copy(buf, out.Body); err != nil {
		return nil, true, fmt.Errorf("objstore: s3: reading the body: %w", err)
	}
	if out.ContentLength != nil && int64(buf.Len()) != *out.ContentLength {
		return nil, true, fmt.Errorf("objstore: s3: short read: %d of %d bytes", buf.Len(), *out.ContentLength)
	}
	return buf.Bytes(), false, nil
}

// GetRange implements Store: one ranged GET. Only the edge cases that S3
// answers 416 (an empty range, a range starting at the end, an empty
// object) cost a HeadObject to tell "at the end" from "past it".
func (s *S3) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	if err := checkCall(ctx, key); err != nil {
		return nil, opErr("getrange", key, err)
	}
	if off < 0 {
		return nil, opErr("getrange", key, fmt.Errorf("%w: negative offset %d", ErrInvalidRange, off))
	}
	b, err := s.cachedRead(rangeKey{key, off, length}, func() ([]byte, error) { return s.getRange(ctx, key, off, length) })
	return b, opErr("getrange", key, err)
}

// getRange is GetRange's request(s), errors unwrapped.
func (s *S3) getRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	if length != 0 {
		rng := fmt.Sprintf("bytes=%d-", off)
		if length > 0 {
			rng = fmt.Sprintf("bytes=%d-%d", off, off+length-1)
		}
		b, err := s.get(ctx, key, rng)
		if err == nil || httpStatus(err) != http.StatusRequestedRangeNotSatisfiable {
			return b, err
		}
	}
	info, err := s.stat(ctx, key)
	if err != nil {
		return nil, err
	}
	if _, err := clampRange(info.Size, off, length); err != nil {
		return nil, err
	}
	if length != 0 && off < info.Size {
		// 416 for a satisfiable range: the object changed under us.
		return nil, fmt.Errorf("objstore: s3: range %d+%d of a %d-byte object refused", off, length, info.Size)
	}
	return []byte{}, nil
}

// Put implements Store.
func (s *S3) Put(ctx context.Context, key string, data []byte) (err error) {
	if err := checkCall(ctx, key); err != nil {
		return opErr("put", key, err)
	}
	// after the write: a read that raced it is not cached
	cur := cursor(ctx)
	defer func() { s.afterWrite(key, data, err); s.durableRound(&cur, err) }()
	if int64(len(data)) >= s.threshold {
		return opErr("put", key, s.putMultipart(ctx, key, data, false))
	}
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String(s.bucket), Key: aws.String(s.objectKey(key)),
		Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
	})
	return opErr("put", key, mapS3Error(err))
}

// PutIfAbsent implements Store (s3_putifabsent.go has the retry rules).
func (s *S3) PutIfAbsent(ctx context.Context, key string, data []byte) (err error) {
	if err := checkCall(ctx, key); err != nil {
		return opErr("putifabsent", key, err)
	}
	cur := cursor(ctx)
	defer func() { s.afterWrite(key, data, err); s.durableRound(&cur, err) }()
	if int64(len(data)) >= s.threshold {
		return opErr("putifabsent", key, s.putMultipart(ctx, key, data, true))
	}
	return opErr("putifabsent", key, s.putIfAbsent(ctx, key, data))
}

// Delete implements Store. S3 answers 204 for a missing key, so a
// HeadObject first reports ErrNotFound as the contract wants; two racing
// deletes of one key may both succeed.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("delete", key, err)
	}
	defer s.dropCached(key)
	if _, err := s.stat(ctx, key); err != nil {
		return opErr("delete", key, err)
	}
	cur := cursor(ctx)
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.objectKey(key))})
	s.durableRound(&cur, err)
	return opErr("delete", key, mapS3Error(err))
}

// durableRound records a successful write as one durable round of the
// operation its context belongs to (DurableRounds): an acknowledged S3
// write is durable. A multipart put (large objects only) counts as one
// too.
func (s *S3) durableRound(cur *roundCursor, err error) {
	if err == nil {
		cur.synced()
	}
}

// Stat implements Store.
func (s *S3) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	if err := checkCall(ctx, key); err != nil {
		return ObjectInfo{}, opErr("stat", key, err)
	}
	info, err := s.cachedStat(ctx, key)
	return info, opErr("stat", key, err)
}

func (s *S3) stat(ctx context.Context, key string) (ObjectInfo, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.objectKey(key))})
	if err != nil {
		return ObjectInfo{}, mapS3Error(err)
	}
	info := ObjectInfo{Key: key, Size: aws.ToInt64(out.ContentLength), ETag: strings.Trim(aws.ToString(out.ETag), `"`)}
	if out.LastModified != nil {
		info.ModTime = *out.LastModified
	}
	return info, nil
}

// List implements Store: ListObjectsV2 pages of up to 1000 keys, which
// S3 returns in UTF-8 byte order, the order of Go strings.
func (s *S3) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, opErr("list", prefix, err)
	}
	if err := validatePrefix(prefix); err != nil {
		return nil, opErr("list", prefix, err)
	}
	var out []ObjectInfo
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(s.bucket), Prefix: aws.String(s.prefix + prefix),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, opErr("list", prefix, mapS3Error(err))
		}
		for _, o := range page.Contents {
			k := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			info := ObjectInfo{Key: k, Size: aws.ToInt64(o.Size), ETag: strings.Trim(aws.ToString(o.ETag), `"`)}
			if o.LastModified != nil {
				info.ModTime = *o.LastModified
			}
			out = append(out, info)
		}
	}
	return out, nil
}
