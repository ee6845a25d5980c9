package objstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// DirError explains why a directory cannot serve as a store root.
type DirError struct {
	Path   string
	Reason string
	Err    error
}

func (e *DirError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("data directory %s: %s: %v", e.Path, e.Reason, e.Err)
	}
	return fmt.Sprintf("data directory %s: %s", e.Path, e.Reason)
}
func (e *DirError) Unwrap() error { return e.Err }

// IsDirError reports whether err says a data directory is unusable.
func IsDirError(err error) bool {
	var d *DirError
	return errors.As(err, &d)
}

// CheckDir verifies, without modifying anything, that path exists, is a
// directory, and that this process may read, write and enter it.
func CheckDir(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &DirError{Path: path, Reason: "does not exist", Err: fs.ErrNotExist}
	case err != nil:
		return &DirError{Path: path, Reason: "cannot be inspected", Err: err}
	case !st.IsDir():
		return &DirError{Path: path, Reason: "is a file, not a directory"}
	}
	if err := unix.Access(path, unix.R_OK|unix.W_OK|unix.X_OK); err != nil {
		return &DirError{Path: path, Reason: "is not readable, writable and searchable by this process", Err: err}
	}
	return nil
}
