package objstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// SweepStaging removes the staging files of puts that never published
// (the writer crashed between creating its staging file and the link or
// rename), when they are older than before. Such a file is never listed,
// read or linked by anyone else, so removing it cannot change any object;
// the age bound protects a put that is still running. Removal is not
// fsynced: a staging file that reappears after a power loss is still
// garbage for the next sweep.
func (l *Local) SweepStaging(ctx context.Context, before time.Time) (int, error) {
	removed := 0
	err := filepath.WalkDir(l.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || !strings.HasPrefix(d.Name(), stagingMarker) {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !info.ModTime().Before(before) {
			return nil
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		removed++
		return nil
	})
	return removed, err
}
