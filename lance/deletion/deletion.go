package deletion

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/pggraph/pggraph/objstore"
)

// Kind is DeletionFile.file_type.
type Kind int32

const (
	// KindArrow is ARROW_ARRAY: an Arrow IPC file of row ids (".arrow").
	KindArrow Kind = 0
	// KindBitmap is BITMAP: a portable Roaring bitmap (".bin").
	KindBitmap Kind = 1
)

// Ext is the file extension of the kind, without the dot.
func (k Kind) Ext() string {
	if k == KindArrow {
		return "arrow"
	}
	return "bin"
}

// ErrCorrupt: the bytes are not a valid deletion file.
var ErrCorrupt = errors.New("lance/deletion: corrupt deletion file")

// Error carries the detail of a decode failure.
type Error struct {
	Detail string
	Err    error
}

func (e *Error) Error() string { return fmt.Sprintf("%v: %s", e.Err, e.Detail) }
func (e *Error) Unwrap() error { return e.Err }

// IsCorrupt reports whether err means a malformed deletion file.
func IsCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }

func corrupt(format string, args ...any) error {
	return &Error{Detail: fmt.Sprintf(format, args...), Err: ErrCorrupt}
}

// Key is the object key of a deletion file, relative to the dataset root.
func Key(fragmentID, readVersion, id uint64, kind Kind) string {
	return fmt.Sprintf("_deletions/%d-%d-%d.%s", fragmentID, readVersion, id, kind.Ext())
}

// NewID returns a random u64 for a new deletion file name.
func NewID() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return binary.LittleEndian.Uint64(b[:])
}

// KindOfKey tells the kind from a key's extension.
func KindOfKey(key string) (Kind, bool) {
	switch {
	case strings.HasSuffix(key, ".bin"):
		return KindBitmap, true
	case strings.HasSuffix(key, ".arrow"):
		return KindArrow, true
	}
	return 0, false
}

// EncodeBitmap serializes rows as a ".bin" deletion file.
func EncodeBitmap(rows *roaring.Bitmap) ([]byte, error) {
	rows.RunOptimize()
	return rows.ToBytes()
}

// Write stores rows as a new ".bin" deletion file and returns its key and
// the number of deleted rows (DeletionFile.num_deleted_rows).
func Write(ctx context.Context, store objstore.Store, fragmentID, readVersion uint64, rows *roaring.Bitmap) (key string, id uint64, n uint64, err error) {
	b, err := EncodeBitmap(rows)
	if err != nil {
		return "", 0, 0, err
	}
	id = NewID()
	key = Key(fragmentID, readVersion, id, KindBitmap)
	// a fresh name nothing references before the transaction's commit
	if err := objstore.PutNew(ctx, store, key, b); err != nil {
		return "", 0, 0, err
	}
	return key, id, rows.GetCardinality(), nil
}

// Read loads a deletion file; the kind comes from the key's extension.
func Read(ctx context.Context, store objstore.Store, key string) (*roaring.Bitmap, error) {
	kind, ok := KindOfKey(key)
	if !ok {
		return nil, corrupt("deletion file key %q has neither .bin nor .arrow", key)
	}
	b, err := store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	return Decode(kind, b)
}

// Decode parses deletion-file bytes of the given kind.
func Decode(kind Kind, b []byte) (bm *roaring.Bitmap, err error) {
	defer func() {
		if r := recover(); r != nil {
			bm, err = nil, corrupt("decoder panic: %v", r)
		}
	}()
	switch kind {
	case KindBitmap:
		return decodeBitmap(b)
	case KindArrow:
		return decodeArrow(b)
	}
	return nil, corrupt("unknown deletion file kind %d", kind)
}

func decodeBitmap(b []byte) (*roaring.Bitmap, error) {
	if len(b) < 8 {
		return nil, corrupt("bitmap of %d bytes", len(b))
	}
	bm := roaring.New()
	if _, err := bm.ReadFrom(bytes.NewReader(b)); err != nil {
		return nil, corrupt("bitmap: %v", err)
	}
	return bm, nil
}

var rowIDSchema = arrow.NewSchema([]arrow.Field{{Name: "row_id", Type: arrow.PrimitiveTypes.Uint32}}, nil)

func decodeArrow(b []byte) (*roaring.Bitmap, error) { return decodeArrowIPC(b) }

// EncodeArrow writes rows as a ".arrow" deletion file (ZSTD bodies), as
// Lance does; used by tests and tools.
func EncodeArrow(rows *roaring.Bitmap) ([]byte, error) {
	var buf bytes.Buffer
	w, err := ipc.NewFileWriter(&buf, ipc.WithSchema(rowIDSchema), ipc.WithZstd())
	if err != nil {
		return nil, err
	}
	bld := array.NewUint32Builder(memory.DefaultAllocator)
	defer bld.Release()
	bld.AppendValues(rows.ToArray(), nil)
	arr := bld.NewArray()
	defer arr.Release()
	rec := array.NewRecordBatch(rowIDSchema, []arrow.Array{arr}, int64(arr.Len()))
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
