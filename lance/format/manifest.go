package format

import (
	"time"
)

// WriterVersion is lance.table.Manifest.WriterVersion.
type WriterVersion struct {
	Library       string  // 1
	Version       string  // 2
	Prerelease    *string // 3
	BuildMetadata *string // 4
	Unknown       []byte
}

// DataStorageFormat is lance.table.DataStorageFormat.
type DataStorageFormat struct {
	FileFormat string // 1, "lance"
	Version    string // 2, e.g. "2.1"
	Unknown    []byte
}

// Manifest is lance.table.Manifest. Fields holds the schema as raw
// lance.file.Field messages (decoded by package lance/schema), so the
// schema is always carried over byte-exact.
type Manifest struct {
	Fields             [][]byte           // 1
	Fragments          []Fragment         // 2, sorted by id
	Version            uint64             // 3
	VersionAuxData     uint64             // 4
	SchemaMetadata     map[string][]byte  // 5
	IndexSection       *uint64            // 6
	Timestamp          time.Time          // 7 (zero = absent)
	Tag                string             // 8
	ReaderFeatureFlags uint64             // 9
	WriterFeatureFlags uint64             // 10
	MaxFragmentID      *uint32            // 11
	TransactionFile    string             // 12
	WriterVersion      *WriterVersion     // 13
	NextRowID          uint64             // 14
	DataFormat         *DataStorageFormat // 15
	Config             map[string]string  // 16
	BasePaths          []BasePath         // 18
	TableMetadata      map[string]string  // 19
	Branch             *string            // 20
	TransactionSection *uint64            // 21
	Unknown            []byte
}

// DecodeManifest decodes a Manifest protobuf message (without framing).
func DecodeManifest(b []byte) (*Manifest, error) {
	const msg = "Manifest"
	m := &Manifest{}
	err := eachField(msg, b, &m.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			var p []byte
			p, err = f.bytes(msg)
			m.Fields = append(m.Fields, cloneBytes(p))
		case 2:
			m.Fragments, err = decodeFragmentField(f, msg, m.Fragments)
		case 3:
			m.Version, err = f.u64(msg)
		case 4:
			m.VersionAuxData, err = f.u64(msg)
		case 5:
			err = decodeBytesMapInto(f, msg, &m.SchemaMetadata)
		case 6:
			var v uint64
			v, err = f.u64(msg)
			m.IndexSection = &v
		case 7:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				m.Timestamp, err = decodeTimestamp(p)
			}
		case 8:
			m.Tag, err = f.str(msg)
		case 9:
			m.ReaderFeatureFlags, err = f.u64(msg)
		case 10:
			m.WriterFeatureFlags, err = f.u64(msg)
		case 11:
			var v uint32
			v, err = f.u32(msg)
			m.MaxFragmentID = &v
		case 12:
			m.TransactionFile, err = f.str(msg)
		case 13:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				m.WriterVersion, err = decodeWriterVersion(p)
			}
		case 14:
			m.NextRowID, err = f.u64(msg)
		case 15:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				m.DataFormat, err = decodeDataFormat(p)
			}
		case 16:
			err = decodeStringMapInto(f, msg, &m.Config)
		case 18:
			var p []byte
			if p, err = f.bytes(msg); err == nil {
				var bp BasePath
				bp, err = decodeBasePath(p)
				m.BasePaths = append(m.BasePaths, bp)
			}
		case 19:
			err = decodeStringMapInto(f, msg, &m.TableMetadata)
		case 20:
			var s string
			s, err = f.str(msg)
			m.Branch = &s
		case 21:
			var v uint64
			v, err = f.u64(msg)
			m.TransactionSection = &v
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Encode returns the Manifest protobuf message.
func (m *Manifest) Encode() []byte {
	// presized (fragments dominate: ~100-200 bytes each), so a large
	// manifest is not regrown and copied a dozen times per commit
	n := 256 + len(m.Unknown) + 160*len(m.Fragments)
	for _, fb := range m.Fields {
		n += len(fb) + 8
	}
	b := make([]byte, 0, n)
	for _, fb := range m.Fields {
		b = putBytesAlways(b, 1, fb)
	}
	b = putFragments(b, 2, m.Fragments)
	b = putUint(b, 3, m.Version)
	b = putUint(b, 4, m.VersionAuxData)
	b = putBytesMap(b, 5, m.SchemaMetadata)
	if m.IndexSection != nil {
		b = putUintAlways(b, 6, *m.IndexSection)
	}
	if !m.Timestamp.IsZero() {
		b = putMessage(b, 7, func(e []byte) []byte { return appendTimestamp(e, m.Timestamp) })
	}
	b = putString(b, 8, m.Tag)
	b = putUint(b, 9, m.ReaderFeatureFlags)
	b = putUint(b, 10, m.WriterFeatureFlags)
	if m.MaxFragmentID != nil {
		b = putUintAlways(b, 11, uint64(*m.MaxFragmentID))
	}
	b = putString(b, 12, m.TransactionFile)
	if m.WriterVersion != nil {
		b = putMessage(b, 13, m.WriterVersion.appendTo)
	}
	b = putUint(b, 14, m.NextRowID)
	if m.DataFormat != nil {
		b = putMessage(b, 15, m.DataFormat.appendTo)
	}
	b = putStringMap(b, 16, m.Config)
	for i := range m.BasePaths {
		b = putMessage(b, 18, m.BasePaths[i].appendTo)
	}
	b = putStringMap(b, 19, m.TableMetadata)
	if m.Branch != nil {
		b = putStringAlways(b, 20, *m.Branch)
	}
	if m.TransactionSection != nil {
		b = putUintAlways(b, 21, *m.TransactionSection)
	}
	return append(b, m.Unknown...)
}

// MaxFragmentIDOrComputed returns max_fragment_id if present, else the
// highest fragment id (ok=false when there are no fragments and no field).
func (m *Manifest) MaxFragmentIDOrComputed() (uint64, bool) {
	if m.MaxFragmentID != nil {
		mx := uint64(*m.MaxFragmentID)
		for i := range m.Fragments {
			mx = max(mx, m.Fragments[i].ID)
		}
		return mx, true
	}
	if len(m.Fragments) == 0 {
		return 0, false
	}
	var mx uint64
	for i := range m.Fragments {
		mx = max(mx, m.Fragments[i].ID)
	}
	return mx, true
}

func decodeTimestamp(b []byte) (time.Time, error) {
	const msg = "Timestamp"
	var sec, nanos int64
	err := eachField(msg, b, nil, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			sec, err = f.i64(msg)
		case 2:
			var v int32
			v, err = f.i32(msg)
			nanos = int64(v)
		default:
			return false, nil
		}
		return true, err
	})
	if err != nil {
		return time.Time{}, err
	}
	if nanos < 0 || nanos > 999_999_999 {
		return time.Time{}, corrupt(msg, "nanos out of range")
	}
	return time.Unix(sec, nanos).UTC(), nil
}

func appendTimestamp(b []byte, t time.Time) []byte {
	b = putInt(b, 1, t.Unix())
	return putInt(b, 2, int64(t.Nanosecond()))
}

func decodeWriterVersion(b []byte) (*WriterVersion, error) {
	const msg = "WriterVersion"
	w := &WriterVersion{}
	err := eachField(msg, b, &w.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			w.Library, err = f.str(msg)
		case 2:
			w.Version, err = f.str(msg)
		case 3:
			var s string
			s, err = f.str(msg)
			w.Prerelease = &s
		case 4:
			var s string
			s, err = f.str(msg)
			w.BuildMetadata = &s
		default:
			return false, nil
		}
		return true, err
	})
	return w, err
}

func (w *WriterVersion) appendTo(b []byte) []byte {
	b = putString(b, 1, w.Library)
	b = putString(b, 2, w.Version)
	if w.Prerelease != nil {
		b = putStringAlways(b, 3, *w.Prerelease)
	}
	if w.BuildMetadata != nil {
		b = putStringAlways(b, 4, *w.BuildMetadata)
	}
	return append(b, w.Unknown...)
}

func decodeDataFormat(b []byte) (*DataStorageFormat, error) {
	const msg = "DataStorageFormat"
	d := &DataStorageFormat{}
	err := eachField(msg, b, &d.Unknown, func(f *field) (bool, error) {
		var err error
		switch f.num {
		case 1:
			d.FileFormat, err = f.str(msg)
		case 2:
			d.Version, err = f.str(msg)
		default:
			return false, nil
		}
		return true, err
	})
	return d, err
}

func (d *DataStorageFormat) appendTo(b []byte) []byte {
	b = putString(b, 1, d.FileFormat)
	b = putString(b, 2, d.Version)
	return append(b, d.Unknown...)
}

func decodeStringMapInto(f *field, msg string, m *map[string]string) error {
	p, err := f.bytes(msg)
	if err != nil {
		return err
	}
	k, v, err := decodeMapEntry(msg, p)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[k] = string(v)
	return nil
}

func decodeBytesMapInto(f *field, msg string, m *map[string][]byte) error {
	p, err := f.bytes(msg)
	if err != nil {
		return err
	}
	k, v, err := decodeMapEntry(msg, p)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = map[string][]byte{}
	}
	(*m)[k] = v
	return nil
}
