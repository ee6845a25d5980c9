package file

import (
	"encoding/binary"

	"google.golang.org/protobuf/encoding/protowire"
)

// Container constants of the Lance 2.x file layout.
const (
	footerSize   = 40
	magic        = "LANC"
	majorVersion = 2
	minorVersion = 1
	// bufferAlignment: every data buffer starts on a 64-byte boundary.
	bufferAlignment = 64
	// miniBlockAlignment: mini-block chunks and their parts are 8-aligned.
	miniBlockAlignment = 8
	// maxChunkBytes: the 12-bit chunk-size field of a u16 chunk-table word.
	maxChunkBytes = 4096 * miniBlockAlignment

	pageLayoutURL     = "/lance.encodings21.PageLayout"
	columnEncodingURL = "/lance.encodings.ColumnEncoding"
)

// footer is the fixed 40-byte tail of a data file.
type footer struct {
	columnMetaStart   uint64
	columnMetaOffsets uint64 // position of the column-metadata offset table
	globalBufOffsets  uint64 // position of the global-buffer offset table
	numGlobalBuffers  uint32
	numColumns        uint32
	major, minor      uint16
}

func (f footer) encode() []byte {
	b := make([]byte, footerSize)
	binary.LittleEndian.PutUint64(b[0:], f.columnMetaStart)
	binary.LittleEndian.PutUint64(b[8:], f.columnMetaOffsets)
	binary.LittleEndian.PutUint64(b[16:], f.globalBufOffsets)
	binary.LittleEndian.PutUint32(b[24:], f.numGlobalBuffers)
	binary.LittleEndian.PutUint32(b[28:], f.numColumns)
	binary.LittleEndian.PutUint16(b[32:], f.major)
	binary.LittleEndian.PutUint16(b[34:], f.minor)
	copy(b[36:], magic)
	return b
}

func decodeFooter(b []byte, size uint64) (footer, error) {
	if len(b) != footerSize || string(b[36:]) != magic {
		return footer{}, corrupt("", "missing LANC footer")
	}
	f := footer{
		columnMetaStart:   binary.LittleEndian.Uint64(b[0:]),
		columnMetaOffsets: binary.LittleEndian.Uint64(b[8:]),
		globalBufOffsets:  binary.LittleEndian.Uint64(b[16:]),
		numGlobalBuffers:  binary.LittleEndian.Uint32(b[24:]),
		numColumns:        binary.LittleEndian.Uint32(b[28:]),
		major:             binary.LittleEndian.Uint16(b[32:]),
		minor:             binary.LittleEndian.Uint16(b[34:]),
	}
	if f.major != majorVersion || f.minor != minorVersion {
		// 2.2 differs in more than the chunk-table width (e.g. RLE-coded
		// levels, another RLE chunk layout): refuse rather than misread.
		return footer{}, unsupported("", "file version %d.%d (only 2.1 is read; 2.0 and 2.2 are not)", f.major, f.minor)
	}
	end := size - footerSize
	if f.columnMetaStart > f.columnMetaOffsets || f.columnMetaOffsets > end || f.globalBufOffsets > end ||
		uint64(f.numColumns)*16 > end-f.columnMetaOffsets || uint64(f.numGlobalBuffers)*16 > end-f.globalBufOffsets {
		return footer{}, corrupt("", "footer offsets out of range")
	}
	return f, nil
}

// span is a (position, size) pair of the offset tables and of page buffers.
type span struct{ pos, size uint64 }

func decodeSpans(b []byte, n int, fileSize uint64) ([]span, error) {
	out := make([]span, n)
	for i := range out {
		out[i] = span{binary.LittleEndian.Uint64(b[16*i:]), binary.LittleEndian.Uint64(b[16*i+8:])}
		if out[i].pos > fileSize || out[i].size > fileSize-out[i].pos {
			return nil, corrupt("", "buffer %d (%d+%d) beyond file end %d", i, out[i].pos, out[i].size, fileSize)
		}
	}
	return out, nil
}

// pageMeta is one Page message of a ColumnMetadata.
type pageMeta struct {
	buffers  []span
	length   uint64 // rows
	layout   *pageLayout
	priority uint64
}

// columnMeta is a decoded ColumnMetadata message.
type columnMeta struct {
	pages   []pageMeta
	buffers []span // column-level buffers (unused by 2.1 mini-block pages)
}

// Field numbers of ColumnMetadata / Page / Encoding / Any.
const (
	cmEncoding      = 1
	cmPages         = 2
	cmBufferOffsets = 3
	cmBufferSizes   = 4

	pgBufferOffsets = 1
	pgBufferSizes   = 2
	pgLength        = 3
	pgEncoding      = 4
	pgPriority      = 5

	encodingIndirect = 1
	encodingDirect   = 2

	anyTypeURL = 1
	anyValue   = 2
)

func decodeColumnMeta(b []byte, fileSize uint64) (columnMeta, error) {
	m, err := parsePB(b)
	if err != nil {
		return columnMeta{}, err
	}
	var cm columnMeta
	if cm.buffers, err = spansOf(m, cmBufferOffsets, cmBufferSizes, fileSize); err != nil {
		return columnMeta{}, err
	}
	for _, pb := range m.all(cmPages) {
		p, err := parsePB(pb)
		if err != nil {
			return columnMeta{}, err
		}
		pm := pageMeta{length: p.uint(pgLength), priority: p.uint(pgPriority)}
		if pm.buffers, err = spansOf(p, pgBufferOffsets, pgBufferSizes, fileSize); err != nil {
			return columnMeta{}, err
		}
		raw, err := directEncoding(p.bytes(pgEncoding), pageLayoutURL)
		if err != nil {
			return columnMeta{}, err
		}
		if pm.layout, err = parsePageLayout(raw); err != nil {
			return columnMeta{}, err
		}
		cm.pages = append(cm.pages, pm)
	}
	return cm, nil
}

func spansOf(m pbMsg, offNum, sizeNum protowire.Number, fileSize uint64) ([]span, error) {
	offs, err := m.uints(offNum)
	if err != nil {
		return nil, err
	}
	sizes, err := m.uints(sizeNum)
	if err != nil {
		return nil, err
	}
	if len(offs) != len(sizes) {
		return nil, corrupt("", "%d buffer offsets but %d sizes", len(offs), len(sizes))
	}
	out := make([]span, len(offs))
	for i := range offs {
		if offs[i] > fileSize || sizes[i] > fileSize-offs[i] {
			return nil, corrupt("", "page buffer %d+%d beyond file end %d", offs[i], sizes[i], fileSize)
		}
		out[i] = span{offs[i], sizes[i]}
	}
	return out, nil
}

// directEncoding unwraps Encoding{direct{Any{type_url, value}}}.
func directEncoding(b []byte, wantURL string) ([]byte, error) {
	m, err := parsePB(b)
	if err != nil {
		return nil, err
	}
	if m.has(encodingIndirect) {
		return nil, unsupported("", "indirect page encoding")
	}
	d, err := parsePB(m.bytes(encodingDirect))
	if err != nil {
		return nil, err
	}
	a, err := parsePB(d.bytes(1))
	if err != nil {
		return nil, err
	}
	if url := string(a.bytes(anyTypeURL)); url != wantURL {
		return nil, unsupported("", "page encoding %q (want %s; 2.0 files are not read)", url, wantURL)
	}
	return a.bytes(anyValue), nil
}

// encodeDirect is the Direct encoding message wrapping an Any of url
// and value: field encodingDirect { field 1 { anyTypeURL, anyValue } },
// built in one allocation (every column and page of every data file
// carries one, so nesting appends cost several per commit).
func encodeDirect(url string, value []byte) []byte {
	an := protowire.SizeTag(anyTypeURL) + protowire.SizeBytes(len(url)) + protowire.SizeTag(anyValue) + protowire.SizeBytes(len(value))
	dn := protowire.SizeTag(1) + protowire.SizeBytes(an)
	b := make([]byte, 0, protowire.SizeTag(encodingDirect)+protowire.SizeBytes(dn))
	b = protowire.AppendTag(b, encodingDirect, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(dn))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(an))
	b = protowire.AppendTag(b, anyTypeURL, protowire.BytesType)
	b = protowire.AppendString(b, url)
	b = protowire.AppendTag(b, anyValue, protowire.BytesType)
	return protowire.AppendBytes(b, value)
}

// RepDef layers (lance.encodings21.RepDefLayer).
const (
	layerAllValidItem    = 1
	layerAllValidList    = 2
	layerNullableItem    = 3
	layerNullableList    = 4
	layerEmptyableList   = 5
	layerNullAndEmptyLst = 6
)

// pageLayout kinds (the PageLayout oneof).
const (
	layoutMiniBlock = 1
	layoutAllNull   = 2
	layoutFullZip   = 3
	layoutBlob      = 4
)

type pageLayout struct {
	kind int
	// chunkWordBytes is the mini-block chunk-table word size, which
	// depends on the file version (set by the reader).
	chunkWordBytes int
	// leadingPartialRow: the (sub-)page starts inside a row, whose
	// levels decode as a row of their own (set only by sparse reads of
	// list pages, which slice it off).
	leadingPartialRow bool
	// mini-block
	rep, def, value, dictionary *enc
	numDictItems                uint64
	numBuffers                  uint64
	repIndexDepth               uint64
	numItems                    uint64
	layers                      []uint64
	// full-zip
	bitsRep, bitsDef           uint64
	bitsPerValue, bitsPerOffst uint64
	numVisibleItems            uint64
}

func parsePageLayout(b []byte) (*pageLayout, error) {
	m, err := parsePB(b)
	if err != nil {
		return nil, err
	}
	pl := &pageLayout{}
	var body []byte
	for _, f := range m {
		if f.typ == protowire.BytesType && f.num >= 1 && f.num <= 4 {
			pl.kind, body = int(f.num), f.b
		}
	}
	in, err := parsePB(body)
	if err != nil {
		return nil, err
	}
	sub := func(num protowire.Number) (*enc, error) {
		if !in.has(num) {
			return nil, nil
		}
		return parseEnc(in.bytes(num), 0)
	}
	switch pl.kind {
	case layoutMiniBlock:
		if pl.rep, err = sub(1); err != nil {
			return nil, err
		}
		if pl.def, err = sub(2); err != nil {
			return nil, err
		}
		if pl.value, err = sub(3); err != nil {
			return nil, err
		}
		if pl.dictionary, err = sub(4); err != nil {
			return nil, err
		}
		pl.numDictItems = in.uint(5)
		if pl.layers, err = in.uints(6); err != nil {
			return nil, err
		}
		pl.numBuffers = in.uint(7)
		pl.repIndexDepth = in.uint(8)
		pl.numItems = in.uint(9)
		if pl.value == nil {
			return nil, corrupt("", "mini-block layout without value compression")
		}
	case layoutAllNull:
		if pl.layers, err = in.uints(5); err != nil {
			return nil, err
		}
	case layoutFullZip:
		pl.bitsRep, pl.bitsDef = in.uint(1), in.uint(2)
		pl.bitsPerValue, pl.bitsPerOffst = in.uint(3), in.uint(4)
		pl.numItems, pl.numVisibleItems = in.uint(5), in.uint(6)
		if pl.value, err = sub(7); err != nil {
			return nil, err
		}
		if pl.layers, err = in.uints(8); err != nil {
			return nil, err
		}
	case layoutBlob:
		return nil, unsupported("", "blob page layout")
	default:
		return nil, corrupt("", "empty page layout")
	}
	return pl, nil
}
