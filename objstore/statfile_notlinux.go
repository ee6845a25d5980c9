//go:build !linux

package objstore

import "os"

// statFile stats a file; a directory is not an object.
func statFile(path string) (ObjectInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return ObjectInfo{}, mapFSError(err)
	}
	if st.IsDir() {
		return ObjectInfo{}, ErrNotFound
	}
	return ObjectInfo{Size: st.Size(), ModTime: st.ModTime()}, nil
}
