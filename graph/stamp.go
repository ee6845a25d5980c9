package graph

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/pggraph/pggraph/objstore"
)

// StampKey is the object that marks a graph root.
const StampKey = "_graph.json"

// FormatName is the value of the stamp's "format" field.
const FormatName = "pggraph"

// FormatVersion is the newest root layout this build reads and writes.
const FormatVersion = 1

// maxStampSize bounds how much of a stamp we parse; a larger file is not
// one of ours.
const maxStampSize = 64 << 10

// Stamp is the content of _graph.json.
type Stamp struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"format_version"`
	GraphID       string    `json:"graph_id"`
	CreatedAt     time.Time `json:"created_at"`
	CreatedBy     string    `json:"created_by"`
}

// RootError explains why a directory is not a usable graph root.
type RootError struct {
	Kind   RootErrorKind
	Detail string
	Err    error
}

// RootErrorKind classifies RootError.
type RootErrorKind int

// Root error kinds.
const (
	// NotInitialized: the location is empty; Init would create a root.
	NotInitialized RootErrorKind = iota + 1
	// ForeignData: the location holds data but no stamp.
	ForeignData
	// UnknownFormat: the stamp is unreadable or not a pggraph stamp.
	UnknownFormat
	// NewerFormat: the stamp's version is newer than this build.
	NewerFormat
)

func (e *RootError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Detail, e.Err)
	}
	return e.Detail
}
func (e *RootError) Unwrap() error { return e.Err }

// rootErrKind returns the kind of a *RootError in err's chain, or 0.
func rootErrKind(err error) RootErrorKind {
	var re *RootError
	if errors.As(err, &re) {
		return re.Kind
	}
	return 0
}

// IsNotInitialized reports whether err says the root is empty.
func IsNotInitialized(err error) bool { return rootErrKind(err) == NotInitialized }

// IsUnusableRoot reports whether err says the location holds something
// that is not a root this build can use (foreign data, an unknown or newer
// format).
func IsUnusableRoot(err error) bool {
	k := rootErrKind(err)
	return k == ForeignData || k == UnknownFormat || k == NewerFormat
}

// ReadStamp reads and validates the stamp. It never writes.
func ReadStamp(ctx context.Context, store objstore.Store) (Stamp, error) {
	return readStamp(ctx, store, true)
}

func readStamp(ctx context.Context, store objstore.Store, retry bool) (Stamp, error) {
	b, err := store.Get(ctx, StampKey)
	if objstore.IsNotFound(err) {
		objs, lerr := store.List(ctx, "")
		if lerr != nil {
			return Stamp{}, lerr
		}
		if len(objs) == 0 {
			return Stamp{}, &RootError{Kind: NotInitialized, Detail: "no graph root here yet (empty)"}
		}
		for _, o := range objs {
			if o.Key == StampKey && retry {
				// a concurrent init created it between our Get and List
				return readStamp(ctx, store, false)
			}
		}
		return Stamp{}, &RootError{Kind: ForeignData, Detail: fmt.Sprintf(
			"not a pggraph root: %s is missing but the location holds %d other objects (e.g. %q); refusing to touch it",
			StampKey, len(objs), objs[0].Key)}
	}
	if err != nil {
		return Stamp{}, err
	}
	return ParseStamp(b)
}

// ParseStamp decodes and validates stamp bytes.
func ParseStamp(b []byte) (Stamp, error) {
	if len(b) > maxStampSize {
		return Stamp{}, &RootError{Kind: UnknownFormat, Detail: fmt.Sprintf("%s is %d bytes, too large to be a pggraph stamp", StampKey, len(b))}
	}
	var s Stamp
	if err := json.Unmarshal(b, &s); err != nil {
		return Stamp{}, &RootError{Kind: UnknownFormat, Detail: StampKey + " is not valid JSON", Err: err}
	}
	switch {
	case s.Format != FormatName:
		return Stamp{}, &RootError{Kind: UnknownFormat, Detail: fmt.Sprintf("%s names format %q, not %q", StampKey, s.Format, FormatName)}
	case s.FormatVersion < 1:
		return Stamp{}, &RootError{Kind: UnknownFormat, Detail: fmt.Sprintf("%s has invalid format_version %d", StampKey, s.FormatVersion)}
	case s.FormatVersion > FormatVersion:
		return Stamp{}, &RootError{Kind: NewerFormat, Detail: fmt.Sprintf(
			"%s has format_version %d; this pgproxy supports up to %d (upgrade pgproxy)", StampKey, s.FormatVersion, FormatVersion)}
	case s.GraphID == "":
		return Stamp{}, &RootError{Kind: UnknownFormat, Detail: StampKey + " has no graph_id"}
	}
	return s, nil
}

// InitStamp creates the stamp of a new root in an empty location. If a
// valid stamp already exists (another process won the race, or init was
// run twice) it returns that stamp and created=false.
func InitStamp(ctx context.Context, store objstore.Store, createdBy string) (s Stamp, created bool, err error) {
	existing, err := ReadStamp(ctx, store)
	if err == nil {
		return existing, false, nil
	}
	if !IsNotInitialized(err) {
		return Stamp{}, false, err
	}
	s = Stamp{
		Format: FormatName, FormatVersion: FormatVersion,
		GraphID:   ulid.MustNew(ulid.Now(), rand.Reader).String(),
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond), CreatedBy: createdBy,
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return Stamp{}, false, err
	}
	if err := store.PutIfAbsent(ctx, StampKey, append(b, '\n')); err != nil {
		if objstore.IsExists(err) {
			existing, rerr := ReadStamp(ctx, store)
			return existing, false, rerr
		}
		return Stamp{}, false, err
	}
	return s, true, nil
}
