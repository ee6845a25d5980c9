package objstore

import (
	"bytes"
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// s3PartWorkers bounds the parts of one upload in flight at once.
const s3PartWorkers = 4

// putMultipart uploads data in parts of s.partSize and completes the
// upload; the object appears whole at completion, never before. With
// ifAbsent the completion carries If-None-Match: * (AWS S3 honours it;
// some S3-compatible servers do not, see docs/operations.md), retried as
// putIfAbsent is, and a HeadObject before completing answers ErrExists
// early when the key is already taken. A failed upload is aborted so no
// parts are left billed.
func (s *S3) putMultipart(ctx context.Context, key string, data []byte, ifAbsent bool) (err error) {
	okey := s.objectKey(key)
	created, err := s.client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(s.bucket), Key: aws.String(okey)})
	if err != nil {
		return mapS3Error(err)
	}
	uploadID := created.UploadId
	defer func() {
		if err != nil {
			// best effort, even when ctx ended: the parts are garbage
			_, _ = s.client.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{
				Bucket: aws.String(s.bucket), Key: aws.String(okey), UploadId: uploadID})
		}
	}()
	var nparts int
	for off := int64(0); off < int64(len(data)); off += s.partSize {
		nparts++
	}
	parts := make([]types.CompletedPart, nparts)
	errs := make([]error, nparts)
	sem := make(chan struct{}, s3PartWorkers)
	var wg sync.WaitGroup
	for i := range nparts {
		lo := int64(i) * s.partSize
		hi := min(lo+s.partSize, int64(len(data)))
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			num := int32(i + 1)
			out, perr := s.client.UploadPart(ctx, &s3.UploadPartInput{
				Bucket: aws.String(s.bucket), Key: aws.String(okey), UploadId: uploadID,
				PartNumber: aws.Int32(num), Body: bytes.NewReader(data[lo:hi]), ContentLength: aws.Int64(hi - lo),
			})
			if perr != nil {
				errs[i] = perr
				return
			}
			parts[i] = types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)}
		})
	}
	wg.Wait()
	for _, perr := range errs {
		if perr != nil {
			return mapS3Error(perr)
		}
	}
	complete := func(ctx context.Context, cond bool) error {
		in := &s3.CompleteMultipartUploadInput{
			Bucket: aws.String(s.bucket), Key: aws.String(okey), UploadId: uploadID,
			MultipartUpload: &types.CompletedMultipartUpload{Parts: parts},
		}
		if cond {
			in.IfNoneMatch = aws.String("*")
			_, err := s.client.CompleteMultipartUpload(ctx, in, noSDKRetries)
			return err
		}
		_, err := s.client.CompleteMultipartUpload(ctx, in)
		return err
	}
	if !ifAbsent {
		return mapS3Error(complete(ctx, false))
	}
	if _, err := s.stat(ctx, key); err == nil {
		return ErrExists
	} else if !IsNotFound(err) {
		return err
	}
	return s.createOnce(ctx, key, data, func(ctx context.Context) error { return complete(ctx, true) })
}
