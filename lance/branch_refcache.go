package lance

import (
	"crypto/md5"
	"encoding/hex"
	"sync"
)

// Branch ref bodies by content hash. Deciding whether a branch may be
// deleted needs every other ref's parent, and on object storage each
// ref read is a GET: a delete would cost one request per branch of the
// graph. A listing already carries each ref's entity tag, which S3 sets
// to the MD5 of a single-part object's bytes; a ref body this process
// wrote or read before, whose MD5 equals the listed tag, is that ref's
// current content exactly — a deleted and re-created ref has another
// identifier, so other bytes and another tag. A tag that is not an MD5
// of the bytes (KMS encryption, a server that tags otherwise) never
// matches, and the ref is read as before.
var refBodies = struct {
	sync.Mutex
	m map[string][]byte
}{m: map[string][]byte{}}

// maxCachedRefs bounds the cache (a ref is a few hundred bytes); past it
// the cache starts over.
const maxCachedRefs = 4096

// rememberRef caches a ref body under its MD5.
func rememberRef(body []byte) {
	sum := md5.Sum(body)
	k := hex.EncodeToString(sum[:])
	refBodies.Lock()
	defer refBodies.Unlock()
	if len(refBodies.m) >= maxCachedRefs {
		refBodies.m = map[string][]byte{}
	}
	refBodies.m[k] = append([]byte(nil), body...)
}

// cachedRef returns the body whose MD5 is etag, if cached.
func cachedRef(etag string) ([]byte, bool) {
	if etag == "" {
		return nil, false
	}
	refBodies.Lock()
	defer refBodies.Unlock()
	b, ok := refBodies.m[etag]
	return b, ok
}
