package objstore

import (
	"errors"
	"fmt"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
)

// mapS3Error turns an S3 error into the store's typed errors: a missing
// object (404 NoSuchKey, or a HEAD's bodiless 404) is ErrNotFound, a
// failed If-None-Match (412) is ErrExists. A missing bucket stays an
// error of its own: a misconfigured root must not read as an empty one.
func mapS3Error(err error) error {
	if err == nil {
		return nil
	}
	switch httpStatus(err) {
	case http.StatusNotFound:
		if errorCode(err) == "NoSuchBucket" {
			return err
		}
		return fmt.Errorf("%w (%v)", ErrNotFound, err)
	case http.StatusPreconditionFailed:
		return fmt.Errorf("%w (%v)", ErrExists, err)
	}
	return err
}

// httpStatus is the HTTP status of a failed request (0 when it never got
// a response).
func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// errorCode is S3's error code ("NoSuchKey", "SlowDown", …) or "".
func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}
