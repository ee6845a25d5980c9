package deletion

import (
	"encoding/binary"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/klauspost/compress/zstd"
)

// A bounded reader for exactly the Arrow IPC files Lance writes as ".arrow"
// deletion files: schema `row_id: uint32 not null`, record batches with one
// field node and two buffers (validity, values), bodies optionally ZSTD
// compressed (each buffer prefixed by its i64 uncompressed length, -1 for
// "stored raw"). Every offset, length and count is checked against the
// input before use, so hostile input cannot cause large allocations —
// which arrow-go's general IPC reader does not guarantee.

const (
	ipcMagic = "ARROW1"
	// maxDeletedRows bounds the rows one ".arrow" file may declare (Lance
	// writes this format for at most 5000 rows).
	maxDeletedRows = 16 << 20
)

// fbTable is a flatbuffers table inside buf.
type fbTable struct {
	buf []byte
	pos int
	vt  int // vtable position
	vtn int // vtable length in bytes
}

type fbReader struct{ buf []byte }

func (r fbReader) u32(p int) (uint32, bool) {
	if p < 0 || p+4 > len(r.buf) {
		return 0, false
	}
	return binary.LittleEndian.Uint32(r.buf[p:]), true
}

// table returns the table whose uoffset is stored at p.
func (r fbReader) tableAt(p int) (fbTable, bool) {
	off, ok := r.u32(p)
	if !ok {
		return fbTable{}, false
	}
	return r.table(p + int(off))
}

func (r fbReader) table(pos int) (fbTable, bool) {
	so, ok := r.u32(pos)
	if !ok {
		return fbTable{}, false
	}
	vt := pos - int(int32(so))
	if vt < 0 || vt+4 > len(r.buf) {
		return fbTable{}, false
	}
	vtn := int(binary.LittleEndian.Uint16(r.buf[vt:]))
	if vtn < 4 || vt+vtn > len(r.buf) {
		return fbTable{}, false
	}
	return fbTable{buf: r.buf, pos: pos, vt: vt, vtn: vtn}, true
}

// field returns the absolute position of field i, or -1 when absent.
func (t fbTable) field(i int) int {
	o := 4 + 2*i
	if o+2 > t.vtn {
		return -1
	}
	off := int(binary.LittleEndian.Uint16(t.buf[t.vt+o:]))
	if off == 0 {
		return -1
	}
	return t.pos + off
}

func (t fbTable) scalar(i, size int) (uint64, bool) {
	p := t.field(i)
	if p < 0 {
		return 0, true // default 0
	}
	if p+size > len(t.buf) {
		return 0, false
	}
	switch size {
	case 1:
		return uint64(t.buf[p]), true
	case 2:
		return uint64(binary.LittleEndian.Uint16(t.buf[p:])), true
	case 4:
		return uint64(binary.LittleEndian.Uint32(t.buf[p:])), true
	}
	return binary.LittleEndian.Uint64(t.buf[p:]), true
}

func (t fbTable) sub(i int) (fbTable, bool) {
	p := t.field(i)
	if p < 0 {
		return fbTable{}, false
	}
	return fbReader{t.buf}.tableAt(p)
}

// vector returns the start and length of vector field i with elements of
// elemSize bytes, all inside the buffer.
func (t fbTable) vector(i, elemSize int) (start, n int, ok bool) {
	p := t.field(i)
	if p < 0 {
		return 0, 0, true
	}
	r := fbReader{t.buf}
	off, ok := r.u32(p)
	if !ok {
		return 0, 0, false
	}
	vp := p + int(off)
	ln, ok := r.u32(vp)
	if !ok || uint64(ln)*uint64(elemSize) > uint64(len(t.buf)-vp-4) {
		return 0, 0, false
	}
	return vp + 4, int(ln), true
}

func (t fbTable) str(i int) (string, bool) {
	s, n, ok := t.vector(i, 1)
	if !ok {
		return "", false
	}
	return string(t.buf[s : s+n]), true
}

func decodeArrowIPC(b []byte) (*roaring.Bitmap, error) {
	if len(b) < 8+4+6 || string(b[:6]) != ipcMagic || string(b[len(b)-6:]) != ipcMagic {
		return nil, corrupt("not an Arrow IPC file")
	}
	flen := int(int32(binary.LittleEndian.Uint32(b[len(b)-10:])))
	fend := len(b) - 10
	if flen <= 0 || flen > fend-8 {
		return nil, corrupt("arrow footer length %d", flen)
	}
	fb := b[fend-flen : fend]
	footer, ok := fbReader{fb}.tableAt(0)
	if !ok {
		return nil, corrupt("arrow footer")
	}
	sch, ok := footer.sub(1)
	if !ok {
		return nil, corrupt("arrow footer without schema")
	}
	if err := checkRowIDSchema(sch); err != nil {
		return nil, err
	}
	bs, nb, ok := footer.vector(3, 24)
	if !ok {
		return nil, corrupt("arrow record batch blocks")
	}
	bm := roaring.New()
	for i := 0; i < nb; i++ {
		blk := fb[bs+24*i:]
		off := int64(binary.LittleEndian.Uint64(blk))
		metaLen := int64(int32(binary.LittleEndian.Uint32(blk[8:])))
		bodyLen := int64(binary.LittleEndian.Uint64(blk[16:]))
		if off < 8 || metaLen < 8 || bodyLen < 0 || off > int64(len(b)) || metaLen > int64(len(b))-off ||
			bodyLen > int64(len(b))-off-metaLen {
			return nil, corrupt("arrow block %d out of range", i)
		}
		if err := readBatch(b[off:off+metaLen], b[off+metaLen:off+metaLen+bodyLen], bm); err != nil {
			return nil, err
		}
	}
	return bm, nil
}

func checkRowIDSchema(sch fbTable) error {
	fs, n, ok := sch.vector(1, 4)
	if !ok || n != 1 {
		return corrupt("arrow deletion file must have exactly one field")
	}
	f, ok := fbReader{sch.buf}.tableAt(fs)
	if !ok {
		return corrupt("arrow field")
	}
	name, ok := f.str(0)
	nullable, ok2 := f.scalar(1, 1)
	typ, ok3 := f.scalar(2, 1)
	if !ok || !ok2 || !ok3 || name != "row_id" || nullable != 0 || typ != 2 /* Int */ {
		return corrupt("arrow deletion file schema is not row_id: uint32 not null")
	}
	it, ok := f.sub(3)
	if !ok {
		return corrupt("arrow int type")
	}
	bits, ok := it.scalar(0, 4)
	signed, ok2 := it.scalar(1, 1)
	if !ok || !ok2 || bits != 32 || signed != 0 {
		return corrupt("arrow deletion column is not uint32")
	}
	return nil
}

// readBatch decodes one record batch message (meta = continuation marker,
// length, flatbuffer Message) with its body.
func readBatch(meta, body []byte, bm *roaring.Bitmap) error {
	p := 0
	if binary.LittleEndian.Uint32(meta) == 0xFFFFFFFF {
		p = 4
	}
	if p+4 > len(meta) {
		return corrupt("arrow message prefix")
	}
	ml := int(int32(binary.LittleEndian.Uint32(meta[p:])))
	p += 4
	if ml <= 0 || ml > len(meta)-p {
		return corrupt("arrow message length %d", ml)
	}
	msg, ok := fbReader{meta[p : p+ml]}.tableAt(0)
	if !ok {
		return corrupt("arrow message")
	}
	if ht, ok := msg.scalar(1, 1); !ok || ht != 3 /* RecordBatch */ {
		return corrupt("arrow message is not a record batch")
	}
	rb, ok := msg.sub(2)
	if !ok {
		return corrupt("arrow record batch header")
	}
	length, ok := rb.scalar(0, 8)
	if !ok || length > maxDeletedRows {
		return corrupt("arrow batch of %d rows", length)
	}
	ns, nn, ok := rb.vector(1, 16)
	if !ok || nn != 1 {
		return corrupt("arrow batch with %d field nodes", nn)
	}
	if binary.LittleEndian.Uint64(rb.buf[ns:]) != length || binary.LittleEndian.Uint64(rb.buf[ns+8:]) != 0 {
		return corrupt("arrow field node disagrees with the batch or has nulls")
	}
	bs, nbuf, ok := rb.vector(2, 16)
	if !ok || nbuf != 2 {
		return corrupt("arrow batch with %d buffers", nbuf)
	}
	compressed := false
	if c, ok := rb.sub(3); ok {
		codec, ok := c.scalar(0, 1)
		if !ok || codec != 1 /* ZSTD */ {
			return corrupt("arrow body compression codec %d (only ZSTD)", codec)
		}
		compressed = true
	}
	vo := int64(binary.LittleEndian.Uint64(rb.buf[bs+16:]))
	vl := int64(binary.LittleEndian.Uint64(rb.buf[bs+24:]))
	if vo < 0 || vl < 0 || vo > int64(len(body)) || vl > int64(len(body))-vo {
		return corrupt("arrow values buffer out of range")
	}
	raw := body[vo : vo+vl]
	want := int(length) * 4
	if compressed && len(raw) > 0 {
		if len(raw) < 8 {
			return corrupt("compressed buffer without its length prefix")
		}
		ul := int64(binary.LittleEndian.Uint64(raw))
		raw = raw[8:]
		if ul != -1 {
			if ul != int64(want) {
				return corrupt("values buffer declares %d bytes for %d rows", ul, length)
			}
			dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(4*maxDeletedRows), zstd.WithDecoderConcurrency(1))
			if err != nil {
				return corrupt("zstd: %v", err)
			}
			defer dec.Close()
			out, err := dec.DecodeAll(raw, make([]byte, 0, want))
			if err != nil {
				return corrupt("zstd: %v", err)
			}
			raw = out
		}
	}
	if len(raw) < want {
		return corrupt("values buffer of %d bytes for %d rows", len(raw), length)
	}
	vals := make([]uint32, length)
	for i := range vals {
		vals[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	bm.AddMany(vals)
	return nil
}
