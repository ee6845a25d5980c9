package file

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Lists of primitives are written as mini-block pages over the item
// column with repetition levels (1 = a row starts, 0 = it continues) and
// definition levels numbered innermost layer first: 0 = a valid item, then
// 1 = a null item when the item layer is NULLABLE_ITEM, then a null list
// and/or an empty list for the list layer. Null and empty lists take one
// level and no item slot; null items take a (zeroed) slot.
//
// The writer puts exactly one chunk in each list page (the last chunk of a
// page may hold any number of items, so no row ever spans chunks) and a
// one-entry repetition index {rows, 0}. The reader decodes any chunking.

// targetListChunkBytes bounds a list page's single chunk; rows larger
// than that go to full-zip pages of about fullZipListPageBytes.
const (
	targetListChunkBytes = 16 << 10
	maxListLevels        = 8192
	fullZipListPageBytes = 1 << 20
)

// listData is one run of list rows, normalized.
type listData struct {
	rows    int
	rowNull []bool // nil when no row is null
	rowLen  []int  // items per row (0 for null or empty rows)
	item    *leafData
}

func listFromArrow(col string, p *physical, arr arrow.Array) (*listData, error) {
	la, ok := arr.(array.ListLike)
	if !ok {
		return nil, mismatch(col, "array %T for a list column", arr)
	}
	n := arr.Len()
	ld := &listData{rows: n, rowLen: make([]int, n)}
	if arr.NullN() > 0 {
		ld.rowNull = make([]bool, n)
	}
	// The items of valid rows, as slices of the child covering runs of
	// adjacent rows (items under null rows are dropped).
	var parts []arrow.Array
	defer func() {
		for _, pt := range parts {
			pt.Release()
		}
	}()
	runS, runE := int64(-1), int64(-1)
	flush := func() {
		if runE > runS {
			parts = append(parts, array.NewSlice(la.ListValues(), runS, runE))
		}
		runS, runE = -1, -1
	}
	for i := 0; i < n; i++ {
		if arr.IsNull(i) {
			ld.rowNull[i] = true
			continue
		}
		s, e := la.ValueOffsets(i)
		ld.rowLen[i] = int(e - s)
		switch {
		case e == s:
		case s == runE:
			runE = e
		default:
			flush()
			runS, runE = s, e
		}
	}
	flush()
	it, err := leafFromArrows(col, p.item, parts)
	if err != nil {
		return nil, err
	}
	ld.item = it
	return ld, nil
}

// listLayers returns the layers and def numbering for rows [r0, r1).
type listDefs struct {
	itemLayer, listLayer uint64
	nullItem, nullList   uint16
	emptyList            uint16
	hasDef               bool
}

func listLayout(ld *listData, r0, r1, i0, i1 int) listDefs {
	var d listDefs
	anyNullItem := false
	for i := i0; i < i1; i++ {
		if ld.item.nulls != nil && ld.item.nulls[i] {
			anyNullItem = true
			break
		}
	}
	anyNull, anyEmpty := false, false
	for r := r0; r < r1; r++ {
		switch {
		case ld.rowNull != nil && ld.rowNull[r]:
			anyNull = true
		case ld.rowLen[r] == 0:
			anyEmpty = true
		}
	}
	next := uint16(1)
	d.itemLayer = layerAllValidItem
	if anyNullItem {
		d.itemLayer, d.nullItem = layerNullableItem, next
		next++
	}
	switch {
	case anyNull && anyEmpty:
		d.listLayer, d.nullList, d.emptyList = layerNullAndEmptyLst, next, next+1
	case anyNull:
		d.listLayer, d.nullList = layerNullableList, next
	case anyEmpty:
		d.listLayer, d.emptyList = layerEmptyableList, next
	default:
		d.listLayer = layerAllValidList
	}
	d.hasDef = anyNullItem || anyNull || anyEmpty
	return d
}

// encodeListPages cuts the rows into pages of one chunk each.
func encodeListPages(col string, p *physical, ld *listData) ([]encodedPage, error) {
	var pages []encodedPage
	itemStart := 0
	for r0 := 0; r0 < ld.rows; {
		// Grow the page row by row within the chunk budget.
		r1, i1, levels := r0, itemStart, 0
		if k := ld.rowLen[r0]; ld.item.sizeOf(p.item, itemStart, k)+4*k+64 > targetListChunkBytes || k > maxListLevels {
			// A row too large for one mini-block chunk: a full-zip page,
			// extended with following rows up to fullZipListPageBytes.
			size := 0
			for r1 < ld.rows && (r1 == r0 || size < fullZipListPageBytes) {
				k := ld.rowLen[r1]
				size += ld.item.sizeOf(p.item, i1, k) + 2*k + 2
				r1, i1 = r1+1, i1+k
			}
			ep, err := encodeListFullZipPage(col, p, ld, r0, r1, itemStart, i1)
			if err != nil {
				return nil, err
			}
			pages = append(pages, ep)
			r0, itemStart = r1, i1
			continue
		}
		for r1 < ld.rows {
			k := ld.rowLen[r1]
			lv := max(k, 1)
			size := ld.item.sizeOf(p.item, itemStart, i1+k-itemStart) + 4*(levels+lv) + 64
			if r1 > r0 && (size > targetListChunkBytes || levels+lv > maxListLevels) {
				break
			}
			r1, i1, levels = r1+1, i1+k, levels+lv
		}
		ep, err := encodeListPage(col, p, ld, r0, r1, itemStart, i1)
		if err != nil {
			return nil, err
		}
		pages = append(pages, ep)
		r0, itemStart = r1, i1
	}
	return pages, nil
}

func encodeListPage(col string, p *physical, ld *listData, r0, r1, i0, i1 int) (encodedPage, error) {
	d := listLayout(ld, r0, r1, i0, i1)
	if i1 == i0 {
		return encodeEmptyListPage(ld, r0, r1, d), nil
	}
	var rep, def []uint16
	it := i0
	for r := r0; r < r1; r++ {
		switch {
		case ld.rowNull != nil && ld.rowNull[r]:
			rep, def = append(rep, 1), append(def, d.nullList)
		case ld.rowLen[r] == 0:
			rep, def = append(rep, 1), append(def, d.emptyList)
		default:
			for k := 0; k < ld.rowLen[r]; k++ {
				rv := uint16(0)
				if k == 0 {
					rv = 1
				}
				dv := uint16(0)
				if ld.item.nulls != nil && ld.item.nulls[it] {
					dv = d.nullItem
				}
				rep, def = append(rep, rv), append(def, dv)
				it++
			}
		}
	}
	if len(rep) > 0xFFFF {
		return encodedPage{}, unsupported(col, "a list row with %d items (too many for one mini-block chunk)", len(rep))
	}
	var c []byte
	c = binary.LittleEndian.AppendUint16(c, uint16(len(rep)))
	c = binary.LittleEndian.AppendUint16(c, uint16(2*len(rep)))
	if d.hasDef {
		c = binary.LittleEndian.AppendUint16(c, uint16(2*len(def)))
	}
	bufs := ld.item.valueBuffers(p.item, i0, i1-i0)
	for _, b := range bufs {
		if len(b) > 0xFFFF {
			return encodedPage{}, unsupported(col, "list items of %d bytes in one chunk (a list value larger than ~32 KiB)", len(b))
		}
		c = binary.LittleEndian.AppendUint16(c, uint16(len(b)))
	}
	c = pad(c, miniBlockAlignment, 0xFE)
	for _, v := range rep {
		c = binary.LittleEndian.AppendUint16(c, v)
	}
	c = pad(c, miniBlockAlignment, 0xFE)
	if d.hasDef {
		for _, v := range def {
			c = binary.LittleEndian.AppendUint16(c, v)
		}
		c = pad(c, miniBlockAlignment, 0xFE)
	}
	for _, b := range bufs {
		c = append(c, b...)
		c = pad(c, miniBlockAlignment, 0xFE)
	}
	if len(c) > maxChunkBytes {
		return encodedPage{}, unsupported(col, "a list row of %d bytes (larger than a ~32 KiB mini-block chunk)", len(c))
	}
	table := binary.LittleEndian.AppendUint16(nil, uint16((len(c)/miniBlockAlignment-1)<<4))
	repIndex := binary.LittleEndian.AppendUint64(nil, uint64(r1-r0))
	repIndex = binary.LittleEndian.AppendUint64(repIndex, 0)

	var mb []byte
	mb = appendBytesField(mb, 1, flatEnc(16))
	if d.hasDef {
		mb = appendBytesField(mb, 2, flatEnc(16))
	}
	mb = appendBytesField(mb, 3, valueEncoding(p.item, ld.item))
	mb = appendPacked(mb, 6, []uint64{d.itemLayer, d.listLayer})
	mb = appendVarintField(mb, 7, uint64(len(bufs)))
	mb = appendVarintField(mb, 8, 1)
	mb = appendVarintField(mb, 9, uint64(i1-i0))
	return encodedPage{rows: uint64(r1 - r0), buffers: [][]byte{table, c, repIndex},
		layout: appendBytesField(nil, layoutMiniBlock, mb)}, nil
}

// decodeListPage decodes a mini-block page of a list column.
func decodeListPage(col string, p *physical, dt arrow.DataType, pl *pageLayout, rows uint64, bufs [][]byte) (arrow.Array, error) {
	if pl.rep == nil && pl.kind == layoutMiniBlock {
		return nil, corrupt(col, "list page without repetition levels")
	}
	if len(bufs) < 2 || rows > maxPageItems || pl.numItems > maxPageItems {
		return nil, corrupt(col, "list page shape")
	}
	if len(pl.layers) != 2 {
		return nil, unsupported(col, "rep/def layers %v (only a list of primitives)", pl.layers)
	}
	// Def numbering, innermost layer first.
	next := uint16(1)
	var nullItem, nullList, emptyList uint16
	switch pl.layers[0] {
	case layerAllValidItem:
	case layerNullableItem:
		nullItem, next = next, next+1
	default:
		return nil, unsupported(col, "item layer %d", pl.layers[0])
	}
	switch pl.layers[1] {
	case layerAllValidList:
	case layerNullableList:
		nullList = next
	case layerEmptyableList:
		emptyList = next
	case layerNullAndEmptyLst:
		nullList, emptyList = next, next+1
	default:
		return nil, unsupported(col, "list layer %d", pl.layers[1])
	}
	item := &leafData{n: int(pl.numItems)}
	if p.item.kind == physVariable {
		item.offsets = []int64{0}
	}
	// With a dictionary the chunks hold indices, looked up at the end.
	valTarget, valPhys := item, p.item
	var dict *leafData
	if pl.dictionary != nil && pl.kind == layoutMiniBlock {
		if len(bufs) < 3 {
			return nil, corrupt(col, "dictionary page without its dictionary buffer")
		}
		var err error
		if dict, err = decodeDictionary(col, p.item, pl.dictionary, pl.numDictItems, bufs[2]); err != nil {
			return nil, err
		}
		bits := int(pl.value.bits)
		if (pl.value.kind != encFlat && pl.value.kind != encInlineBitpacking) || (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
			return nil, unsupported(col, "dictionary indices encoded as %s", pl.value)
		}
		valPhys = &physical{kind: physFixed, bits: bits}
		valTarget = &leafData{}
	}
	var itemNulls []bool
	offsets := []int64{}
	var rowNull []bool
	nullRows := 0
	items := int64(0)
	// consume walks levels, growing rows and item slots; it returns how
	// many items the levels describe.
	consume := func(reps, defs []uint16) (int, error) {
		n := 0
		for i, r := range reps {
			dv := uint16(0)
			if defs != nil {
				dv = defs[i]
			}
			if r > 1 {
				return 0, corrupt(col, "repetition level %d for a single list layer", r)
			}
			if r == 1 || (len(offsets) == 0 && pl.leadingPartialRow) {
				offsets = append(offsets, items)
				rowNull = append(rowNull, false)
			} else if len(offsets) == 0 {
				return 0, corrupt(col, "list page starts inside a row")
			}
			switch {
			case dv == 0 || (nullItem != 0 && dv == nullItem):
				itemNulls = append(itemNulls, dv != 0)
				items++
				n++
			case nullList != 0 && dv == nullList:
				rowNull[len(rowNull)-1] = true
				nullRows++
			case emptyList != 0 && dv == emptyList:
			default:
				return 0, corrupt(col, "definition level %d", dv)
			}
		}
		return n, nil
	}
	if pl.kind == layoutFullZip {
		if err := decodeFullZipLevels(col, p, pl, bufs, item, consume); err != nil {
			return nil, err
		}
		if uint64(items) != pl.numVisibleItems {
			return nil, corrupt(col, "full-zip list page decodes %d items, metadata says %d", items, pl.numVisibleItems)
		}
		item.n = int(items)
		pl = &pageLayout{numItems: uint64(items)} // for the checks below
	} else if pl.kind == layoutAllNull {
		// Only null and empty lists: raw u16 rep and def levels, no items.
		if len(bufs) != 2 || len(bufs[0])%2 != 0 || len(bufs[1])%2 != 0 || pl.numItems != 0 {
			return nil, corrupt(col, "all-null list page shape")
		}
		reps, defs := rawLevels(bufs[0]), rawLevels(bufs[1])
		if len(defs) == 0 {
			defs = nil
		} else if len(defs) != len(reps) {
			return nil, corrupt(col, "%d rep levels, %d def levels", len(reps), len(defs))
		}
		if n, err := consume(reps, defs); err != nil {
			return nil, err
		} else if n != 0 {
			return nil, corrupt(col, "all-null list page with items")
		}
	} else {
		chunks, err := parseChunkTable(col, bufs[0], pl.chunkWordBytes, len(bufs[1]), pl.numItems)
		if err != nil {
			return nil, err
		}
		for _, ch := range chunks {
			rc, err := splitChunk(col, bufs[1][ch.off:ch.off+ch.size], true, pl.def != nil, int(pl.numBuffers))
			if err != nil {
				return nil, err
			}
			reps, err := decodeLevels(col, pl.rep, rc.rep, rc.numLevels)
			if err != nil {
				return nil, err
			}
			var defs []uint16
			if pl.def != nil {
				if defs, err = decodeLevels(col, pl.def, rc.def, rc.numLevels); err != nil {
					return nil, err
				}
			}
			n, err := consume(reps, defs)
			if err != nil {
				return nil, err
			}
			if n != ch.values {
				return nil, corrupt(col, "chunk levels describe %d items, chunk holds %d", n, ch.values)
			}
			if err := valTarget.appendChunkValues(col, valPhys, pl.value, rc.buffers, ch.values); err != nil {
				return nil, err
			}
		}
	}
	if uint64(len(offsets)) != rows || uint64(items) != pl.numItems {
		return nil, corrupt(col, "list page decodes %d rows/%d items, metadata says %d/%d", len(offsets), items, rows, pl.numItems)
	}
	offsets = append(offsets, items)
	for _, n := range itemNulls {
		if n {
			item.nullCount++
		}
	}
	if item.nullCount > 0 {
		item.nulls = itemNulls
	}
	if dict != nil {
		if err := item.lookupDictionary(col, p.item, dict, valTarget, valPhys.bits/8); err != nil {
			return nil, err
		}
	}
	elem := dt.(arrow.ListLikeType).Elem()
	child, err := item.toArrow(col, p.item, elem)
	if err != nil {
		return nil, err
	}
	defer child.Release()
	n := int(rows)
	var validity *memory.Buffer
	if nullRows > 0 {
		vb := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, null := range rowNull {
			if !null {
				bitutil.SetBit(vb, i)
			}
		}
		validity = memory.NewBufferBytes(vb)
	}
	var ob []byte
	if p.largeList {
		ob = make([]byte, 8*(n+1))
		for i, o := range offsets {
			binary.LittleEndian.PutUint64(ob[8*i:], uint64(o))
		}
	} else {
		ob = make([]byte, 4*(n+1))
		for i, o := range offsets {
			binary.LittleEndian.PutUint32(ob[4*i:], uint32(o))
		}
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, memory.NewBufferBytes(ob)}, []arrow.ArrayData{child.Data()}, nullRows, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

func rawLevels(b []byte) []uint16 {
	out := make([]uint16, len(b)/2)
	for i := range out {
		out[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return out
}

// encodeEmptyListPage writes rows that are all null or empty lists the way
// Lance does: an all_null_layout with both layers and two buffers of raw u16
// rep and def levels, one level per row.
func encodeEmptyListPage(ld *listData, r0, r1 int, d listDefs) encodedPage {
	var rep, def []byte
	for r := r0; r < r1; r++ {
		rep = binary.LittleEndian.AppendUint16(rep, 1)
		v := d.emptyList
		if ld.rowNull != nil && ld.rowNull[r] {
			v = d.nullList
		}
		def = binary.LittleEndian.AppendUint16(def, v)
	}
	var al []byte
	al = appendPacked(al, 5, []uint64{d.itemLayer, d.listLayer})
	return encodedPage{rows: uint64(r1 - r0), buffers: [][]byte{rep, def}, layout: appendBytesField(nil, layoutAllNull, al)}
}

// decodeFullZipLevels walks a full-zip list page: per level a control
// word (rep << bitsDef | def), then for a visible valid item its value
// (variable: length + bytes; fixed: bytes), for a visible null item
// nothing (variable) or the zeroed value (fixed); null and empty lists
// are invisible and carry only the control word.
func decodeFullZipLevels(col string, p *physical, pl *pageLayout, bufs [][]byte, item *leafData, consume func(reps, defs []uint16) (int, error)) error {
	if len(bufs) < 1 || pl.value == nil || pl.bitsRep != 1 || pl.bitsDef > 15 {
		return unsupported(col, "full-zip list page with %d rep bits", pl.bitsRep)
	}
	total := pl.bitsRep + pl.bitsDef
	cw := 1
	if total > 8 {
		cw = 2
	}
	maxVisible := uint64(0)
	if pl.layers[0] == layerNullableItem {
		maxVisible = 1
	}
	e := pl.value
	var t *fsstTable
	var w, lw int
	switch {
	case p.item.kind == physVariable && pl.bitsPerOffst != 0:
		lw = int(pl.bitsPerOffst / 8)
		if lw != 4 && lw != 8 {
			return corrupt(col, "full-zip length width %d", pl.bitsPerOffst)
		}
		if e.kind == encFsst {
			var err error
			if t, err = parseFsstTable(col, e.symbols); err != nil {
				return err
			}
			e = e.child
		}
		if e == nil || e.kind != encVariable || e.compression != 0 {
			return unsupported(col, "full-zip list values encoded as %s", pl.value)
		}
	case p.item.kind == physFixed && pl.bitsPerValue != 0 && e.kind == encFlat && int(e.bits) == p.item.bits && e.compression == 0:
		w = p.item.bits / 8
	default:
		return unsupported(col, "full-zip list values encoded as %s", pl.value)
	}
	data := bufs[0]
	mask := uint64(1)<<pl.bitsDef - 1
	for len(data) > 0 {
		if len(data) < cw {
			return corrupt(col, "full-zip data ends inside a control word")
		}
		word := uint64(data[0])
		if cw == 2 {
			word = uint64(binary.LittleEndian.Uint16(data))
		}
		data = data[cw:]
		rep, def := word>>pl.bitsDef, word&mask
		if _, err := consume([]uint16{uint16(rep)}, []uint16{uint16(def)}); err != nil {
			return err
		}
		if def > maxVisible {
			continue // a null or empty list: no item
		}
		switch {
		case lw > 0:
			if def == 0 {
				if len(data) < lw {
					return corrupt(col, "full-zip data ends inside a length")
				}
				l := readWord(data, lw*8, 0)
				data = data[lw:]
				if l > uint64(len(data)) {
					return corrupt(col, "full-zip value of %d bytes past the buffer", l)
				}
				var err error
				if t != nil {
					if item.data, err = t.decode(col, item.data, data[:l]); err != nil {
						return err
					}
				} else {
					item.data = append(item.data, data[:l]...)
				}
				data = data[l:]
			}
			item.offsets = append(item.offsets, int64(len(item.data)))
		default:
			if len(data) < w {
				return corrupt(col, "full-zip data ends inside a value")
			}
			item.fixed = append(item.fixed, data[:w]...)
			data = data[w:]
		}
	}
	return nil
}

// encodeListFullZipPage writes rows [r0, r1) as a full-zip list page: per
// level a one-byte control word rep<<bitsDef | def, followed for a visible
// item (valid or null item) by its value — variable: a length and the
// bytes, only when valid; fixed: the value, zeroed when null — while null
// and empty lists carry only the control word. Buffer 1 is the repetition
// index: the byte position of each row start and the end, u64 each.
func encodeListFullZipPage(col string, p *physical, ld *listData, r0, r1, i0, i1 int) (encodedPage, error) {
	if p.item.kind == physBool {
		return encodedPage{}, unsupported(col, "a list<bool> row too large for a mini-block chunk")
	}
	d := listLayout(ld, r0, r1, i0, i1)
	maxDef := max(d.nullItem, d.nullList, d.emptyList)
	bitsDef := 0
	for (1 << bitsDef) <= int(maxDef) {
		bitsDef++
	}
	ctrl := func(rep, def uint16) byte { return byte(rep<<bitsDef | def) }
	var data, repIndex []byte
	levels := 0
	it := i0
	var lw, w int
	if p.item.kind == physVariable {
		lw = p.item.bits / 8
	} else {
		w = p.item.rowBytes()
	}
	for r := r0; r < r1; r++ {
		repIndex = binary.LittleEndian.AppendUint64(repIndex, uint64(len(data)))
		switch {
		case ld.rowNull != nil && ld.rowNull[r]:
			data = append(data, ctrl(1, d.nullList))
			levels++
			continue
		case ld.rowLen[r] == 0:
			data = append(data, ctrl(1, d.emptyList))
			levels++
			continue
		}
		for k := 0; k < ld.rowLen[r]; k++ {
			rep := uint16(0)
			if k == 0 {
				rep = 1
			}
			null := ld.item.nulls != nil && ld.item.nulls[it]
			def := uint16(0)
			if null {
				def = d.nullItem
			}
			data = append(data, ctrl(rep, def))
			levels++
			switch {
			case lw > 0 && !null:
				v := ld.item.data[ld.item.offsets[it]:ld.item.offsets[it+1]]
				if lw == 4 {
					data = binary.LittleEndian.AppendUint32(data, uint32(len(v)))
				} else {
					data = binary.LittleEndian.AppendUint64(data, uint64(len(v)))
				}
				data = append(data, v...)
			case w > 0:
				data = append(data, ld.item.fixed[it*w:(it+1)*w]...)
			}
			it++
		}
	}
	repIndex = binary.LittleEndian.AppendUint64(repIndex, uint64(len(data)))
	var fz []byte
	fz = appendVarintField(fz, 1, 1)
	if bitsDef > 0 {
		fz = appendVarintField(fz, 2, uint64(bitsDef))
	}
	if lw > 0 {
		fz = appendVarintField(fz, 4, uint64(p.item.bits))
	} else {
		fz = appendVarintField(fz, 3, uint64(8*w))
	}
	fz = appendVarintField(fz, 5, uint64(levels))
	fz = appendVarintField(fz, 6, uint64(i1-i0))
	fz = appendBytesField(fz, 7, valueEncoding(p.item, ld.item))
	fz = appendPacked(fz, 8, []uint64{d.itemLayer, d.listLayer})
	return encodedPage{rows: uint64(r1 - r0), buffers: [][]byte{data, repIndex}, layout: appendBytesField(nil, layoutFullZip, fz)}, nil
}
