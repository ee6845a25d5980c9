package objstore

import (
	"context"
	"time"
)

// Store is the storage seam. Keys are slash-separated relative paths
// ("a/b/c.bin"); they never start with '/', never contain "." or ".."
// segments and never contain empty segments.
//
// Every method is safe for concurrent use. A write that returns nil is
// durable: it survives a crash or power loss. The slices Get and GetRange
// return are fresh and owned by the caller, who may modify them (the
// Lance scanner decodes in place inside them): a caching backend must
// hand out copies.
type Store interface {
	// Get returns the whole object. Missing → ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// GetRange returns length bytes starting at off. A range that runs
	// past the end is truncated to the object's end; off beyond the end
	// is ErrInvalidRange. length < 0 means "to the end".
	GetRange(ctx context.Context, key string, off, length int64) ([]byte, error)
	// Put atomically replaces (or creates) the object: a concurrent
	// reader sees the old or the new content, never a mix.
	Put(ctx context.Context, key string, data []byte) error
	// PutIfAbsent creates the object only if no object with that key
	// exists; otherwise it returns ErrExists and changes nothing. It is
	// the only compare-and-swap primitive.
	PutIfAbsent(ctx context.Context, key string, data []byte) error
	// List returns every object whose key starts with prefix, sorted by
	// key. Staging objects are never listed.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Delete removes the object durably. Missing → ErrNotFound.
	Delete(ctx context.Context, key string) error
	// Stat returns the object's metadata. Missing → ErrNotFound.
	Stat(ctx context.Context, key string) (ObjectInfo, error)
}

// ObjectInfo describes one stored object.
type ObjectInfo struct {
	Key     string
	Size    int64
	ModTime time.Time
	// ETag is the server's entity tag, unquoted, where the backend has
	// one (S3: the MD5 of a single-part object's bytes without KMS
	// encryption); "" otherwise. It validates content caches
	// (lance's branch ref cache).
	ETag string
}
