// Package file reads and writes Lance data files, format version 2.1, over
// arrow-go record batches.
//
// # File model
//
// A file is a sequence of 64-byte aligned data buffers (padded with 'H'),
// global buffer 0 (the FileDescriptor: the Lance schema as lance.file.Field
// messages plus the row count), one ColumnMetadata protobuf per top-level
// column, the column-metadata and global-buffer offset tables, and a 40-byte
// footer ending in "LANC" with version 2.1. A column is a list of pages;
// each page covers a run of rows and carries a PageLayout (wrapped in a
// google.protobuf.Any with type URL /lance.encodings21.PageLayout).
//
// # Writing (plain encodings only)
//
//	w, err := file.NewWriter(ctx, store, "data/<unique>.lance", arrowSchema, file.WriterOptions{})
//	for each batch { err = w.Write(batch) }   // column types must match the schema
//	res, err := w.Close(ctx)                   // one objstore.PutNew of the whole file
//	// res.NumRows, res.Size, res.FieldIDs, res.ColumnIndices → DataFile
//
// res.FieldIDs/ColumnIndices follow Lance's DataFile convention: one entry
// per column naming the leaf field that owns it (a list's item field, not
// the list); res.Columns maps each top-level field to its ids and column.
//
// NewStreamWriter writes to an io.Writer instead, page by page, so memory
// stays at about WriterOptions.PageBytes per column; NewWriter buffers the
// file for its single Put. A Writer encodes every page in buffers it
// keeps for the next page (the normalized values, the chunk bytes, the
// chunk table), reading fixed-width values in place from the input
// arrays and writing value bytes straight into the chunk layout: in
// steady state writing allocates nothing per page. When several columns
// fill a page in the same Write, two are encoded at once (each with its
// own buffers) and written in column order. The bytes it emits are the
// same as a one-column-at-a-time, fresh-buffer encoding (checked byte
// for byte when these were introduced). WriterOptions.Fields supplies the dataset's Lance
// field ids (e.g. for appends); by default ids are assigned depth-first from
// 0 by schema.FromArrow. Pages are mini-block layouts: values flat{bits}
// (integers, floats, date32, timestamps, decimal128 as 128 bits,
// fixed_size_binary as 8·width bits, bool as 1 bit), variable{offsets
// flat{32}} for utf8/binary and flat{64} for large_utf8/large_binary,
// fixed_size_list{dim}{flat{bits}} for vectors (with an element validity
// buffer only when elements are null); u16 definition levels (flat{16},
// layer NULLABLE_ITEM) when a page has nulls, ALL_VALID_ITEM when it has
// none; an all_null_layout page when every value is null. Chunks hold a
// power-of-two number of values (≤4096, ≈4 KiB), the last one the rest.
//
// Values too large for mini-block chunks (a variable-width value over
// 8 KiB, or a fixed-width value/vector over 8 KiB) put their page in
// Lance's full_zip_layout instead, still uncompressed: per value a one-byte
// control word when the page has nulls, then (variable) a 32/64-bit length
// and the bytes or (fixed) the value, with a u64 repetition index of row
// positions for variable pages.
//
// Lists (list and large_list) of primitives are one column over the items
// with u16 repetition levels (1 starts a row) and definition levels
// numbered innermost first (0 valid item, then null item if the item layer
// is NULLABLE_ITEM, then null list and/or empty list); each list page holds
// exactly one chunk (≈16 KiB) and a one-entry repetition index, so no row
// spans chunks. A row too large for one chunk starts a full-zip list page
// (per level a control word rep<<bits_def | def, then the value of a
// visible item; u64 repetition index of row positions). Pages of only
// null/empty lists use Lance's complex all_null_layout (raw u16 rep and
// def buffers).
//
// # Reading
//
// Open fetches the footer, schema and column metadata (one range read of
// the file's last 64 KiB in the common case); Scan reads only the projected
// columns' page buffers, one page per column at a time, and returns
// batches of at most ScanOptions.BatchRows rows. The pages the columns need
// at the same time are fetched together (scan_together.go): their buffers
// are sorted by position and read with one range read per run of buffers
// whose holes are at most 64 KiB, up to 8 MiB per read — a writer flushes
// every column's page for the same rows next to each other, so on object
// storage a batch costs one request, not one per column. While the caller
// consumes page p of the columns, a background goroutine reads their next
// pages the same way and decodes each in a goroutine of its own, so a scan
// uses a second core and overlaps reads with decoding (at most two decoded
// pages per column are held). ScanOptions.Ranges restricts a scan to sorted row ranges (e.g.
// rows to take by address): only pages overlapping them are fetched and
// decoded.
//
// Sparse reads (sparse.go): when a scan wants few rows of a page (at most
// 1/16 of them, in at most 8 ranges — a point lookup by row address), the
// page is not read whole and nothing is read ahead: for a mini-block page
// only the chunks holding the rows are fetched (one range read per range)
// and decoded, located through the page's chunk table, which the Reader
// caches per page with the page's decoded dictionary (bounded in bytes);
// for a full-zip page only the rows' bytes (fixed stride, or the
// repetition index's positions). The chunks go through the same decoders
// as a whole page, presented as a page of their own, so the rows are the
// same (TestSparseReadMatchesWholePage compares them for every page of
// our files and the official Lance's). Mini-block list pages are read
// sparsely through a per-page row map built from the chunks' repetition
// levels at the first sparse read (cached); full-zip and all-null list
// pages are read whole.
// OpenCached shares opened Readers of immutable files process-wide (LRU),
// so a warm point read costs no footer or metadata read either.
//
// Plain mini-block pages — flat fixed-width, flat bool and
// variable{flat 32|64} values with flat u16 or no definition levels,
// which is what this writer and Lance's plain encodings emit — are
// decoded straight into Arrow buffers (miniblock_direct.go): value and
// string bytes gathered with one copy per chunk — in place, within the
// buffer the store's GetRange returned (a fresh slice that belongs to
// the caller, as with every objstore backend), so the Arrow buffer
// shares the read and no second copy of the page is allocated; into an
// uninitialized new buffer for files opened with OpenBytes — offsets
// rebased in one loop, definition levels turned into the validity bitmap
// directly. Every other page goes through the general
// per-value decoder, which TestDirectDecodeMatchesGeneral uses as the
// reference for every direct page of our files and of the oracle's.
//
// Besides what the writer emits, the reader decodes what Lance 8.0 writes
// with its default settings, checked against files the official Lance
// wrote: definition levels that are out_of_line_bitpacking or
// inline_bitpacking (FastLanes layout); inline_bitpacking integers; rle
// (u8 run lengths); byte_stream_split; general zstd compression of
// mini-block buffers; mini-block dictionaries (variable or flat items,
// bitpacked indices); fsst strings
// (mini-block and full-zip); the full_zip_layout for non-list columns
// (variable values with lengths, fixed values and vectors incl. element
// validity); lists from any chunking (rows spanning chunks included),
// with dictionaries, and as full-zip list pages, and Lance's
// null/empty-only list pages. The constant encoding is decoded as
// specified but Lance 8.0 was not seen to emit it for 2.1 files.
//
// Refused with ErrUnsupported naming the feature: general lz4 compression,
// compressed full-zip values other than fsst, packed structs, blob
// layouts, dictionaries whose items are compressed, lists of lists or of
// vectors, struct columns, and files of format 2.0, 2.2 or legacy; on
// write, a list<bool> row too large for one mini-block chunk.
//
// Concurrency: a Reader is immutable after Open (but for its page
// metadata cache, behind a mutex) and may serve concurrent Scans; a
// Scanner and a Writer are for one goroutine at a time (a Scanner's
// read-ahead goroutines are its own: Close waits for them).
//
// Invariants: a file that Open accepts never makes Scan panic; corrupt bytes
// give ErrCorrupt, decoded lengths are checked against page metadata before
// allocation. All errors are *Error values wrapping ErrCorrupt,
// ErrUnsupported or ErrSchemaMismatch.
package file
