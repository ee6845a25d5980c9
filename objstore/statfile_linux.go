//go:build linux

package objstore

import (
	"syscall"
	"time"
)

// statFile stats a file without os.Stat's FileInfo and PathError
// allocations: "is there a newer manifest?" is asked on every statement
// and is almost always answered "no". A directory is not an object.
func statFile(path string) (ObjectInfo, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Stat(path, &st)
		if err == nil {
			break
		}
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ENOENT {
			return ObjectInfo{}, errFileMissing
		}
		return ObjectInfo{}, mapFSError(err)
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return ObjectInfo{}, ErrNotFound
	}
	sec, nsec := st.Mtim.Unix()
	return ObjectInfo{Size: st.Size, ModTime: time.Unix(sec, nsec)}, nil
}

// errFileMissing is the not-found answer for a missing file, made once.
var errFileMissing error = &notFoundError{cause: syscall.ENOENT}
