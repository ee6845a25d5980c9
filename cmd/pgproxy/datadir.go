package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance"
	"github.com/pggraph/pggraph/objstore"
)

// dataDirError is an unusable data directory; its message names the path
// and the problem. Exit status 1.
type dataDirError struct {
	path string
	err  error
}

func (e *dataDirError) Error() string { return fmt.Sprintf("data directory %s: %v", e.path, e.err) }
func (e *dataDirError) Unwrap() error { return e.err }

// openStore opens the --data location: s3://bucket/prefix as an S3
// store (datastore_s3.go), anything else as a local directory, checked
// and opened as a Local store. With create, a missing directory is
// created (its parent must exist); nothing else is ever created or
// changed here.
func openStore(ctx context.Context, dir string, s3f *s3Flags, create bool) (rootedStore, error) {
	if dir == "" {
		return nil, usagef("--data is required (or set %s)", envName("data"))
	}
	if err := s3f.checkS3Only(dir); err != nil {
		return nil, err
	}
	if objstore.IsS3URL(dir) {
		return openS3Store(ctx, dir, s3f)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &dataDirError{dir, err}
	}
	if create {
		if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
			if err := objstore.CheckDir(filepath.Dir(abs)); err != nil {
				return nil, &dataDirError{abs, fmt.Errorf("cannot be created: parent: %w", err)}
			}
			if err := os.Mkdir(abs, 0o755); err != nil {
				return nil, &dataDirError{abs, fmt.Errorf("cannot be created: %w", err)}
			}
			if err := syncDir(filepath.Dir(abs)); err != nil {
				return nil, &dataDirError{abs, err}
			}
		}
	}
	store, err := objstore.NewLocal(abs)
	if err != nil {
		var de *objstore.DirError
		if errors.As(err, &de) {
			// DirError already names the path.
			return nil, err
		}
		return nil, &dataDirError{abs, err}
	}
	// Lance data files are written once under unique names: keep a few
	// open so a point lookup's reads are one pread each.
	store.CacheImmutableReads(lance.IsDataFileKey, objstore.DefaultReadHandles)
	return store, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// openRoot opens an existing graph root, refusing anything else.
func openRoot(ctx context.Context, dir string, s3f *s3Flags) (rootedStore, graph.Stamp, error) {
	store, err := openStore(ctx, dir, s3f, false)
	if err != nil {
		return nil, graph.Stamp{}, err
	}
	stamp, err := graph.ReadStamp(ctx, store)
	if err != nil {
		if graph.IsNotInitialized(err) {
			return nil, graph.Stamp{}, &dataDirError{store.Root(), fmt.Errorf("%w; run `pgproxy init --data %s` first", err, store.Root())}
		}
		return nil, graph.Stamp{}, &dataDirError{store.Root(), err}
	}
	return store, stamp, nil
}

// openOrInitRoot opens a graph root, initializing it (format stamp, then
// the first __manifest version) when the directory is missing or empty,
// and completing an init that was interrupted between the two.
func openOrInitRoot(ctx context.Context, dir string, s3f *s3Flags, actor string) (*graph.Root, bool, error) {
	store, err := openStore(ctx, dir, s3f, true)
	if err != nil {
		return nil, false, err
	}
	root, created, err := graph.Init(ctx, store, actor)
	if err != nil {
		return nil, false, &dataDirError{store.Root(), err}
	}
	if s3, ok := store.(*objstore.S3); ok {
		// after Init: on a fresh prefix a probe object would read as
		// foreign data (datastore_s3.go)
		if err := checkS3ConditionalWrites(ctx, s3); err != nil {
			return nil, false, &dataDirError{store.Root(), err}
		}
	}
	return root, created, nil
}
