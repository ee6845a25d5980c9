package objstore

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// putIfAbsent is PutObject with If-None-Match: *, retried here rather
// than by the SDK because a retry changes what a 412 means.
//
// A 412 on the first attempt is a lost race: ErrExists. But when an
// earlier attempt failed in a way that may have written the object (a
// 5xx, a reset connection, a timeout after the body was sent), a 412 on
// the retry may be our own write answering. Reporting ErrExists then
// would tell a committer it lost a commit that is in fact published, so
// the retry reads the object back: the same bytes mean the write was
// ours. (Commit points carry unique identifiers — transaction UUIDs,
// commit ids — so two different writers never produce identical
// bytes for one key.) A 409 ConditionalRequestConflict means a
// concurrent conditional write was in progress and ours was not
// applied: retried without making the outcome ambiguous.
func (s *S3) putIfAbsent(ctx context.Context, key string, data []byte) error {
	return s.createOnce(ctx, key, data, func(ctx context.Context) error {
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: aws.String(s.bucket), Key: aws.String(s.objectKey(key)),
			Body: bytes.NewReader(data), ContentLength: aws.Int64(int64(len(data))),
			IfNoneMatch: aws.String("*"),
		}, noSDKRetries)
		return err
	})
}

// noSDKRetries turns the SDK's retries off for one call (createOnce
// retries itself).
func noSDKRetries(o *s3.Options) { o.Retryer = aws.NopRetryer{} }

// createOnce runs send, a conditional create of key with data, until it
// succeeds, loses (ErrExists) or fails for good, with the retryer's
// backoff between attempts.
func (s *S3) createOnce(ctx context.Context, key string, data []byte, send func(context.Context) error) error {
	ambiguous := false
	for attempt := 1; ; attempt++ {
		err := send(ctx)
		if err == nil {
			return nil
		}
		status := httpStatus(err)
		if status == http.StatusPreconditionFailed {
			if ambiguous {
				if got, gerr := s.get(ctx, key, ""); gerr == nil && bytes.Equal(got, data) {
					return nil // our earlier attempt landed
				}
			}
			return mapS3Error(err)
		}
		if ctx.Err() != nil || attempt >= s.retryer.MaxAttempts() || !s.retryer.IsErrorRetryable(err) {
			return mapS3Error(err)
		}
		if status != http.StatusConflict {
			ambiguous = true
		}
		delay, derr := s.retryer.RetryDelay(attempt, err)
		if derr != nil {
			return mapS3Error(err)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
