package objstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// PutNew implements NewPutter: the file is created exclusively under its
// final name (O_EXCL: a taken key is ErrExists, atomically, as with
// PutIfAbsent's link), written, and then its fsync and its directory's
// fsync run at the same time — the directory entry exists before the
// directory fsync starts, so the one round of both makes the object
// durable. Nothing may reference the key before PutNew returns (see
// NewPutter); on failure the file is removed.
func (l *Local) PutNew(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("putifabsent", key, err)
	}
	defer l.dropHandle(key) // after the write: a handle opened meanwhile is stale too
	cur := cursor(ctx)
	final := l.keyPath(key)
	dir := filepath.Dir(final)
	if err := l.ensureDir(dir, &cur); err != nil {
		return opErr("putifabsent", key, err)
	}
	f, err := os.OpenFile(final, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			if st, serr := os.Lstat(final); serr == nil && st.IsDir() {
				return opErr("putifabsent", key, mapWriteError(syscall.EISDIR))
			}
			return opErr("putifabsent", key, ErrExists)
		}
		return opErr("putifabsent", key, mapWriteError(err))
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(final)
		return opErr("putifabsent", key, err)
	}
	dirDone := make(chan error, 1)
	go func() { dirDone <- l.syncDirShared(dir) }()
	err = l.syncFile(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if derr := <-dirDone; err == nil {
		err = derr
	}
	if err != nil {
		os.Remove(final)
		return opErr("putifabsent", key, err)
	}
	cur.synced()
	return nil
}
