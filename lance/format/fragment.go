package format

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
)

// DeletionFileType says how a deletion file is encoded.
type DeletionFileType int32

const (
	// DeletionArrowArray is an Arrow IPC file of UInt32 row offsets (".arrow").
	DeletionArrowArray DeletionFileType = 0
	// DeletionBitmap is a portable Roaring bitmap (".bin").
	DeletionBitmap DeletionFileType = 1
)

// Ext returns the file extension Lance uses for the type (without dot).
func (t DeletionFileType) Ext() string {
	if t == DeletionBitmap {
		return "bin"
	}
	return "arrow"
}

// DataFile is lance.table.DataFile: one file of a fragment.
type DataFile struct {
	Path          string  // 1, relative to data/
	Fields        []int32 // 2, field ids (-2 = tombstoned)
	ColumnIndices []int32 // 3, one per field; -1 = no top-level column
	MajorVersion  uint32  // 4
	MinorVersion  uint32  // 5
	FileSizeBytes uint64  // 6, 0 = unknown
	BaseID        *uint32 // 7, BasePath id; nil = this dataset's root
	Unknown       []byte
}

// DeletionFile is lance.table.DeletionFile.
type DeletionFile struct {
	FileType       DeletionFileType // 1
	ReadVersion    uint64           // 2
	ID             uint64           // 3
	NumDeletedRows uint64           // 4
	BaseID         *uint32          // 7
	Unknown        []byte
}

// FileName is the name Lance gives the file under _deletions/.
func (d *DeletionFile) FileName(fragmentID uint64) string {
	return utoa(fragmentID) + "-" + utoa(d.ReadVersion) + "-" + utoa(d.ID) + "." + d.FileType.Ext()
}

// Fragment is lance.table.DataFragment. Fields 5-10 (stable row id
// sequences and version metadata) are kept in Unknown.
type Fragment struct {
	ID           uint64        // 1
	Files        []DataFile    // 2
	DeletionFile *DeletionFile // 3
	PhysicalRows uint64        // 4, rows including deleted ones
	Unknown      []byte

	// decoded bytes and their canonical re-encoding, for byte-exact carry-over
	orig, canon []byte
}

// BasePath is lance.table.BasePath: another location whose files a
// manifest references by id (branches, shallow clones).
type BasePath struct {
	ID            uint32  // 1
	Name          *string // 2
	IsDatasetRoot bool    // 3
	Path          string  // 4
	Unknown       []byte
}

// LiveRows is physical rows minus deleted rows.
func (f *Fragment) LiveRows() uint64 {
	if f.DeletionFile == nil || f.DeletionFile.NumDeletedRows > f.PhysicalRows {
		return f.PhysicalRows
	}
	return f.PhysicalRows - f.DeletionFile.NumDeletedRows
}

// Clone returns a deep copy that still remembers the original encoding
// (so an unchanged clone re-encodes byte-exact).
func (f *Fragment) Clone() Fragment {
	c := *f
	c.Files = make([]DataFile, len(f.Files))
	for i := range f.Files {
		c.Files[i] = f.Files[i].clone()
	}
	if f.DeletionFile != nil {
		d := *f.DeletionFile
		d.BaseID = cloneU32(d.BaseID)
		d.Unknown = cloneBytes(d.Unknown)
		c.DeletionFile = &d
	}
	c.Unknown = cloneBytes(f.Unknown)
	return c
}

func (d DataFile) clone() DataFile {
	d.Fields = append([]int32(nil), d.Fields...)
	d.ColumnIndices = append([]int32(nil), d.ColumnIndices...)
	d.BaseID = cloneU32(d.BaseID)
	d.Unknown = cloneBytes(d.Unknown)
	return d
}

func cloneU32(p *uint32) *uint32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func utoa(v uint64) string {
	var buf [20]byte
	p := len(buf)
	for {
		p--
		buf[p] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return string(buf[p:])
}

// ---- DataFile ----

func decodeDataFile(b []byte) (DataFile, error) {
	const msg = "DataFile"
	var d DataFile
	err := eachField(msg, b, &d.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			d.Path, err = f.str(msg)
		case 2:
			var vs []uint64
			vs, err = f.varints(msg, nil)
			d.Fields = append(d.Fields, int32s(vs)...)
		case 3:
			var vs []uint64
			vs, err = f.varints(msg, nil)
			d.ColumnIndices = append(d.ColumnIndices, int32s(vs)...)
		case 4:
			d.MajorVersion, err = f.u32(msg)
		case 5:
			d.MinorVersion, err = f.u32(msg)
		case 6:
			d.FileSizeBytes, err = f.u64(msg)
		case 7:
			var v uint32
			v, err = f.u32(msg)
			d.BaseID = &v
		default:
			return false, nil
		}
		return true, err
	})
	return d, err
}

func (d *DataFile) appendTo(b []byte) []byte {
	b = putString(b, 1, d.Path)
	b = putPackedInt32(b, 2, d.Fields)
	b = putPackedInt32(b, 3, d.ColumnIndices)
	b = putUint(b, 4, uint64(d.MajorVersion))
	b = putUint(b, 5, uint64(d.MinorVersion))
	b = putUint(b, 6, d.FileSizeBytes)
	if d.BaseID != nil {
		b = putUintAlways(b, 7, uint64(*d.BaseID))
	}
	return append(b, d.Unknown...)
}

// ---- DeletionFile ----

func decodeDeletionFile(b []byte) (*DeletionFile, error) {
	const msg = "DeletionFile"
	d := &DeletionFile{}
	err := eachField(msg, b, &d.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			var v int32
			v, err = f.i32(msg)
			d.FileType = DeletionFileType(v)
		case 2:
			d.ReadVersion, err = f.u64(msg)
		case 3:
			d.ID, err = f.u64(msg)
		case 4:
			d.NumDeletedRows, err = f.u64(msg)
		case 7:
			var v uint32
			v, err = f.u32(msg)
			d.BaseID = &v
		default:
			return false, nil
		}
		return true, err
	})
	return d, err
}

func (d *DeletionFile) appendTo(b []byte) []byte {
	b = putInt(b, 1, int64(d.FileType))
	b = putUint(b, 2, d.ReadVersion)
	b = putUint(b, 3, d.ID)
	b = putUint(b, 4, d.NumDeletedRows)
	if d.BaseID != nil {
		b = putUintAlways(b, 7, uint64(*d.BaseID))
	}
	return append(b, d.Unknown...)
}

// ---- Fragment ----

// DecodeFragment decodes a DataFragment message.
func DecodeFragment(b []byte) (Fragment, error) {
	const msg = "DataFragment"
	var fr Fragment
	err := eachField(msg, b, &fr.Unknown, func(f *field) (bool, error) {
		switch f.num {
		case 1:
			v, err := f.u64(msg)
			fr.ID = v
			return true, err
		case 2:
			p, err := f.bytes(msg)
			if err != nil {
				return true, err
			}
			df, err := decodeDataFile(p)
			fr.Files = append(fr.Files, df)
			return true, err
		case 3:
			p, err := f.bytes(msg)
			if err != nil {
				return true, err
			}
			fr.DeletionFile, err = decodeDeletionFile(p)
			return true, err
		case 4:
			v, err := f.u64(msg)
			fr.PhysicalRows = v
			return true, err
		}
		return false, nil
	})
	if err != nil {
		return Fragment{}, err
	}
	fr.orig = cloneBytes(b)
	fr.canon = fr.canonical(nil)
	return fr, nil
}

func (fr *Fragment) canonical(b []byte) []byte {
	b = putUint(b, 1, fr.ID)
	for i := range fr.Files {
		b = putMessage(b, 2, fr.Files[i].appendTo)
	}
	if fr.DeletionFile != nil {
		b = putMessage(b, 3, fr.DeletionFile.appendTo)
	}
	b = putUint(b, 4, fr.PhysicalRows)
	return append(b, fr.Unknown...)
}

// Encode returns the DataFragment message. A fragment decoded and not
// changed since re-encodes to exactly the bytes it was decoded from.
func (fr *Fragment) Encode() []byte {
	c := fr.canonical(nil)
	if fr.orig != nil && bytes.Equal(c, fr.canon) {
		return cloneBytes(fr.orig)
	}
	return c
}

// putFragments appends each fragment as field num, encoding it in place
// (no per-fragment buffer): the canonical encoding is written where the
// message goes and replaced by the decoded original bytes when it equals
// their canonical form (Encode's rule).
func putFragments(b []byte, num protowire.Number, frs []Fragment) []byte {
	for i := range frs {
		fr := &frs[i]
		b = protowire.AppendTag(b, num, protowire.BytesType)
		start := len(b)
		b = fr.canonical(b)
		if fr.orig != nil && bytes.Equal(b[start:], fr.canon) {
			b = append(b[:start], fr.orig...)
		}
		b = prefixLength(b, start)
	}
	return b
}

func decodeFragmentField(f *field, msg string, dst []Fragment) ([]Fragment, error) {
	p, err := f.bytes(msg)
	if err != nil {
		return dst, err
	}
	fr, err := DecodeFragment(p)
	if err != nil {
		return dst, err
	}
	return append(dst, fr), nil
}

// ---- BasePath ----

func decodeBasePath(b []byte) (BasePath, error) {
	const msg = "BasePath"
	var bp BasePath
	err := eachField(msg, b, &bp.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			bp.ID, err = f.u32(msg)
		case 2:
			var s string
			s, err = f.str(msg)
			bp.Name = &s
		case 3:
			bp.IsDatasetRoot, err = f.boolean(msg)
		case 4:
			bp.Path, err = f.str(msg)
		default:
			return false, nil
		}
		return true, err
	})
	return bp, err
}

func (bp *BasePath) appendTo(b []byte) []byte {
	b = putUint(b, 1, uint64(bp.ID))
	if bp.Name != nil {
		b = putStringAlways(b, 2, *bp.Name)
	}
	b = putBool(b, 3, bp.IsDatasetRoot)
	b = putString(b, 4, bp.Path)
	return append(b, bp.Unknown...)
}
