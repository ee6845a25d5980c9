package objstore

import (
	"fmt"
	"net/url"
	"strings"
)

// IsS3URL reports whether a data location names an S3 bucket
// ("s3://bucket/prefix") rather than a local directory.
func IsS3URL(loc string) bool { return strings.HasPrefix(loc, "s3://") }

// ParseS3URL splits "s3://bucket/prefix" into S3Options with Bucket and
// Prefix set. The prefix may be empty (the whole bucket) and must be a
// valid key otherwise.
func ParseS3URL(loc string) (S3Options, error) {
	if !IsS3URL(loc) {
		return S3Options{}, fmt.Errorf("objstore: %q is not an s3://bucket/prefix URL", loc)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return S3Options{}, fmt.Errorf("objstore: %q: %w", loc, err)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Port() != "" {
		return S3Options{}, fmt.Errorf("objstore: %q: want s3://bucket/prefix", loc)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix != "" {
		if err := ValidateKey(prefix); err != nil {
			return S3Options{}, fmt.Errorf("objstore: %q: prefix: %w", loc, err)
		}
	}
	return S3Options{Bucket: u.Host, Prefix: prefix}, nil
}
