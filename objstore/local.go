package objstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
)

// Local is a Store on a local POSIX filesystem. Each key is a file under
// the root directory. Writes go to a staging file in the destination
// directory first, are fsynced, and are then published with link()
// (PutIfAbsent) or rename() (Put), followed by an fsync of the directory.
type Local struct {
	root   string
	fsyncs atomic.Int64
	// noSync disables every fsync. Only tests use it, to prove that the
	// crash tests can tell a store that skips fsync from one that does not.
	noSync bool
	// handles, when set (CacheImmutableReads), keeps open files of
	// immutable objects for GetRange.
	handles *readHandles
	// dirSyncs coalesces concurrent fsyncs of one directory.
	dirSyncs dirSyncs
}

// NewLocal opens root as a Local store. The directory must exist, be a
// directory, and be readable and writable by this process; nothing is
// created or modified by opening.
func NewLocal(root string) (*Local, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("objstore: data directory %q: %w", root, err)
	}
	if err := CheckDir(abs); err != nil {
		return nil, err
	}
	return &Local{root: abs}, nil
}

// Root returns the absolute root directory.
func (l *Local) Root() string { return l.root }

// Fsyncs returns how many fsync calls this store has issued (files and
// directories), for I/O accounting.
func (l *Local) Fsyncs() int64 { return l.fsyncs.Load() }

func (l *Local) path(key string) string { return filepath.Join(l.root, filepath.FromSlash(key)) }

// keyPath is path for a key ValidateKey accepted: such a key has no
// empty, "." or ".." segment, so joining is concatenation (no Clean),
// one allocation on every store call.
func (l *Local) keyPath(key string) string {
	if strings.HasSuffix(l.root, string(filepath.Separator)) {
		return l.root + filepath.FromSlash(key)
	}
	return l.root + string(filepath.Separator) + filepath.FromSlash(key)
}

// Get implements Store.
func (l *Local) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkCall(ctx, key); err != nil {
		return nil, opErr("get", key, err)
	}
	b, err := os.ReadFile(l.keyPath(key))
	if err != nil {
		return nil, opErr("get", key, mapFSError(err))
	}
	return b, nil
}

// GetRange implements Store.
func (l *Local) GetRange(ctx context.Context, key string, off, length int64) ([]byte, error) {
	if err := checkCall(ctx, key); err != nil {
		return nil, opErr("getrange", key, err)
	}
	if l.handles != nil {
		h, ok, err := l.handles.acquire(key, l.keyPath) // the path is built only to open a file
		if ok {
			if err != nil {
				return nil, opErr("getrange", key, err)
			}
			defer l.handles.release(h)
			b, err := h.readRange(off, length)
			return b, opErr("getrange", key, err)
		}
	}
	f, err := os.Open(l.keyPath(key))
	if err != nil {
		return nil, opErr("getrange", key, mapFSError(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, opErr("getrange", key, mapFSError(err))
	}
	if st.IsDir() {
		return nil, opErr("getrange", key, ErrNotFound)
	}
	n, err := clampRange(st.Size(), off, length)
	if err != nil {
		return nil, opErr("getrange", key, err)
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, opErr("getrange", key, err)
	}
	return buf, nil
}

// clampRange validates a range request against an object of the given
// size and returns the number of bytes to return.
func clampRange(size, off, length int64) (int64, error) {
	if off < 0 || off > size {
		return 0, fmt.Errorf("%w: offset %d of a %d-byte object", ErrInvalidRange, off, size)
	}
	n := size - off
	if length >= 0 && length < n {
		n = length
	}
	return n, nil
}

// Put implements Store: staging file + fsync + rename + directory fsync.
func (l *Local) Put(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("put", key, err)
	}
	defer l.dropHandle(key) // after the write: a handle opened meanwhile is stale too
	cur := cursor(ctx)
	final := l.keyPath(key)
	staging, err := l.writeStaging(final, data, &cur)
	if err != nil {
		return opErr("put", key, err)
	}
	if err := os.Rename(staging, final); err != nil {
		_ = os.Remove(staging)
		if st, serr := os.Lstat(final); serr == nil && st.IsDir() {
			err = syscall.EISDIR // Linux says EEXIST or ENOTEMPTY here
		}
		return opErr("put", key, mapWriteError(err))
	}
	return opErr("put", key, l.syncDirOf(final, &cur))
}

// PutVolatile implements VolatilePutter: staging file + rename, with
// neither fsync (the staging file is not synced and the directory is
// not synced after the rename).
func (l *Local) PutVolatile(ctx context.Context, key string, data []byte) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("put", key, err)
	}
	defer l.dropHandle(key) // after the write: a handle opened meanwhile is stale too
	final := l.keyPath(key)
	staging, err := l.writeStagingSync(final, data, false, nil)
	if err != nil {
		return opErr("put", key, err)
	}
	if err := os.Rename(staging, final); err != nil {
		_ = os.Remove(staging)
		if st, serr := os.Lstat(final); serr == nil && st.IsDir() {
			err = syscall.EISDIR
		}
		return opErr("put", key, mapWriteError(err))
	}
	return nil
}

// PutIfAbsent implements Store: staging file + fsync + link + directory
// fsync. link() fails with EEXIST when the key exists, atomically, so two
// racing writers (threads or processes) can never both win.
func (l *Local) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	return l.PutIfAbsentAfter(ctx, key, data, nil)
}

// PutIfAbsentAfter is PutIfAbsent that writes and fsyncs its staging file
// first, then calls wait (when not nil), and links the file under key
// only if wait returned nil; otherwise it removes the staging file and
// returns wait's error. Nothing is visible under key before wait
// returned, so a Fenced store holds a commit this way (fence.go): the
// object's own file fsync overlaps the work the fence waits for, and only
// the link and the directory fsync follow it. A staging file a crash
// leaves behind is never listed and is swept (SweepStaging).
func (l *Local) PutIfAbsentAfter(ctx context.Context, key string, data []byte, wait func() error) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("putifabsent", key, err)
	}
	defer l.dropHandle(key) // after the write: a handle opened meanwhile is stale too
	cur := cursor(ctx)
	final := l.keyPath(key)
	staging, err := l.writeStaging(final, data, &cur)
	if err != nil {
		return opErr("putifabsent", key, err)
	}
	if wait != nil {
		if err := wait(); err != nil {
			_ = os.Remove(staging)
			return err
		}
		cur.rejoin() // the link follows what wait waited for
	}
	linkErr := os.Link(staging, final)
	rmErr := os.Remove(staging)
	if linkErr != nil {
		if errors.Is(linkErr, fs.ErrExist) {
			if st, err := os.Lstat(final); err == nil && st.IsDir() {
				return opErr("putifabsent", key, mapWriteError(syscall.EISDIR))
			}
			// The staging name may still be in the directory if the
			// remove failed; either way the loser changed nothing visible.
			return opErr("putifabsent", key, ErrExists)
		}
		return opErr("putifabsent", key, mapWriteError(linkErr))
	}
	if rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) {
		return opErr("putifabsent", key, rmErr)
	}
	return opErr("putifabsent", key, l.syncDirOf(final, &cur))
}

// Delete implements Store: unlink + directory fsync.
func (l *Local) Delete(ctx context.Context, key string) error {
	if err := checkCall(ctx, key); err != nil {
		return opErr("delete", key, err)
	}
	defer l.dropHandle(key) // after the write: a handle opened meanwhile is stale too
	p := l.keyPath(key)
	if st, err := os.Lstat(p); err == nil && st.IsDir() {
		return opErr("delete", key, ErrNotFound)
	}
	cur := cursor(ctx)
	if err := os.Remove(p); err != nil {
		return opErr("delete", key, mapFSError(err))
	}
	return opErr("delete", key, l.syncDirOf(p, &cur))
}

// Stat implements Store.
func (l *Local) Stat(ctx context.Context, key string) (ObjectInfo, error) {
	if err := checkCall(ctx, key); err != nil {
		return ObjectInfo{}, opErr("stat", key, err)
	}
	info, err := statFile(l.keyPath(key))
	if err != nil {
		return ObjectInfo{}, opErr("stat", key, err)
	}
	info.Key = key
	return info, nil
}

// List implements Store. It walks only the directory that contains the
// prefix's last complete segment, and skips staging files.
func (l *Local) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, opErr("list", prefix, err)
	}
	if err := validatePrefix(prefix); err != nil {
		return nil, opErr("list", prefix, err)
	}
	dirKey := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirKey = prefix[:i]
	}
	start := l.root
	if dirKey != "" {
		start = l.path(dirKey)
	}
	var out []ObjectInfo
	err := filepath.WalkDir(start, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a directory removed or never created: nothing under it
			}
			return err
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		rel, rerr := filepath.Rel(l.root, p)
		if rerr != nil {
			return rerr
		}
		key := filepath.ToSlash(rel)
		if d.IsDir() {
			// Prune directories that cannot contain a match.
			if p != start && !strings.HasPrefix(key+"/", prefix) && !strings.HasPrefix(prefix, key+"/") {
				return fs.SkipDir
			}
			return nil
		}
		if isStagingName(d.Name()) || !strings.HasPrefix(key, prefix) || !d.Type().IsRegular() {
			return nil
		}
		info, ierr := d.Info()
		if ierr != nil {
			if errors.Is(ierr, fs.ErrNotExist) {
				return nil // deleted while we walked
			}
			return ierr
		}
		out = append(out, ObjectInfo{Key: key, Size: info.Size(), ModTime: info.ModTime()})
		return nil
	})
	if err != nil {
		return nil, opErr("list", prefix, mapFSError(err))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// writeStaging writes data to a fresh staging file next to final and
// fsyncs it. The caller publishes or removes it.
func (l *Local) writeStaging(final string, data []byte, cur *roundCursor) (string, error) {
	return l.writeStagingSync(final, data, true, cur)
}

// writeStagingSync is writeStaging; sync=false skips the file fsync
// (PutVolatile). cur (nil: not counted) follows its fsyncs.
func (l *Local) writeStagingSync(final string, data []byte, sync bool, cur *roundCursor) (string, error) {
	dir := filepath.Dir(final)
	if err := l.ensureDir(dir, cur); err != nil {
		return "", err
	}
	var rnd [12]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	staging := filepath.Join(dir, stagingMarker+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(staging, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", mapWriteError(err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(staging)
		return "", err
	}
	if sync {
		if err := l.syncFile(f); err != nil {
			f.Close()
			os.Remove(staging)
			return "", err
		}
		cur.synced()
	}
	if err := f.Close(); err != nil {
		os.Remove(staging)
		return "", err
	}
	return staging, nil
}

// ensureDir creates dir and any missing parents under the root, fsyncing
// each parent after a child is created so the new directory entries are
// themselves durable. cur (nil: not counted) follows those fsyncs.
func (l *Local) ensureDir(dir string, cur *roundCursor) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%w: %s is a file, not a directory", ErrInvalidKey, dir)
		}
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return mapWriteError(err)
	}
	if dir == l.root || !strings.HasPrefix(dir, l.root) {
		return fmt.Errorf("objstore: data directory %s has disappeared", l.root)
	}
	parent := filepath.Dir(dir)
	if err := l.ensureDir(parent, cur); err != nil {
		return err
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return mapWriteError(err)
	}
	if err := l.syncDir(parent); err != nil {
		return err
	}
	cur.synced()
	return nil
}

func (l *Local) syncFile(f *os.File) error {
	if l.noSync {
		return nil
	}
	l.fsyncs.Add(1)
	return f.Sync()
}

func (l *Local) syncDir(dir string) error {
	if l.noSync {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	l.fsyncs.Add(1)
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// dropHandle forgets a cached read handle of key once this process has
// written or deleted it.
func (l *Local) dropHandle(key string) {
	if l.handles != nil {
		l.handles.drop(key)
	}
}

// checkCall validates the common arguments of a keyed call.
func checkCall(ctx context.Context, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return ValidateKey(key)
}

// mapFSError turns filesystem errors into the store's typed errors.
// A path component that is a file (ENOTDIR) means the key cannot exist.
func mapFSError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.EISDIR):
		return &notFoundError{cause: err}
	}
	return err
}

// notFoundError is ErrNotFound with the filesystem's reason. It is built
// without formatting: a missing key is the common answer of the per-
// statement head probe (is there a manifest newer than ours?).
type notFoundError struct{ cause error }

func (e *notFoundError) Error() string { return ErrNotFound.Error() + " (" + e.cause.Error() + ")" }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// mapWriteError maps errors of a write: a key whose path runs through an
// existing file, or that names an existing directory, is not writable.
func mapWriteError(err error) error {
	if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) {
		return fmt.Errorf("%w: key conflicts with an existing file or directory (%v)", ErrInvalidKey, err)
	}
	return err
}
