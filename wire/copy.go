package wire

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/pggraph/pggraph/observe"
	"github.com/pggraph/pggraph/pgerr"
)

// binaryCopySignature starts every PGCOPY binary stream.
var binaryCopySignature = []byte("PGCOPY\n\xff\r\n\x00")

// CopyIn is the client's COPY FROM STDIN data as the session sees it: rows
// decoded from the text, csv or binary format, read incrementally from
// CopyData messages (memory is bounded by one row plus one message).
type CopyIn struct {
	c       *conn
	opts    CopyOptions
	stream  *copyStream
	br      *bufio.Reader
	started bool
	ended   bool // end of data reached (trailer, \. or CopyDone)
	header  bool // header line/binary header consumed
	maxLine int
	// NextShared's reusable storage: the fields of the current row as
	// spans of the line or the arena, the arena for unescaped values
	spans []copySpan
	arena []byte
	row   [][]byte
	// progress of the COPY (pg_stat_progress_copy) and rows read
	progress     *observe.Progress
	progressRows int64
}

// copySpan is one field of a decoded row: bytes a..b of the line
// (inLine) or of the arena; null marks SQL NULL.
type copySpan struct {
	a, b   int
	inLine bool
	null   bool
}

// Options returns the statement's COPY options.
func (in *CopyIn) Options() CopyOptions { return in.opts }

// Start tells the client to send data (CopyInResponse) for ncols columns.
// It must be called once, before Next.
func (in *CopyIn) Start(ncols int) error {
	if in.started {
		return nil
	}
	in.started = true
	f := uint8(0)
	if in.opts.Format == CopyBinary {
		f = 1
	}
	codes := make([]uint16, ncols)
	for i := range codes {
		codes[i] = uint16(f)
	}
	in.c.send(&pgproto3.CopyInResponse{OverallFormat: f, ColumnFormatCodes: codes})
	return in.c.flush()
}

// Next returns the next row's fields: text-format values for text and csv
// (unescaped), binary-format values for binary; nil is NULL. It returns
// io.EOF after the last row. A CopyFail from the client is a 57014 *Error.
// The row is the caller's.
func (in *CopyIn) Next() ([][]byte, error) {
	row, err := in.NextShared()
	if err != nil {
		return nil, err
	}
	n := 0
	for _, f := range row {
		n += len(f)
	}
	buf := make([]byte, 0, n)
	out := make([][]byte, len(row))
	for i, f := range row {
		if f != nil {
			buf = append(buf, f...)
			out[i] = buf[len(buf)-len(f) : len(buf) : len(buf)]
		}
	}
	return out, nil
}

// NextShared is Next without allocating: the returned slice and the
// field bytes belong to the CopyIn and are valid only until the next
// call (bulk loaders copy what they keep).
func (in *CopyIn) NextShared() ([][]byte, error) {
	if !in.started {
		return nil, errors.New("wire: CopyIn.Next before Start")
	}
	for {
		if in.ended {
			if err := in.drain(); err != nil {
				return nil, err
			}
			return nil, io.EOF
		}
		var row [][]byte
		var err error
		switch in.opts.Format {
		case CopyBinary:
			row, err = in.nextBinary()
		case CopyCSV:
			row, err = in.nextCSV()
		default:
			row, err = in.nextText()
		}
		if err == io.EOF {
			in.ended = true
			finishProgressRows(in.progress, in.progressRows)
			in.progress.SetPhase("writing")
			continue
		}
		if err != nil {
			return nil, err
		}
		if row == nil {
			continue // skipped header
		}
		if in.progress != nil {
			in.c.progressRow(in.progress, &in.progressRows)
		}
		return row, nil
	}
}

// drain consumes the stream up to CopyDone.
func (in *CopyIn) drain() error {
	_, err := io.Copy(io.Discard, in.br)
	return err
}

// readLine returns one line without its terminator; io.EOF at end of data.
// The line may alias the reader's buffer: it is valid until the next read.
func (in *CopyIn) readLine() ([]byte, error) {
	var acc []byte
	for {
		chunk, err := in.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			acc = append(acc, chunk...)
			if len(acc) > in.maxLine {
				return nil, Errorf(CodeProgramLimitExceeded, "COPY line too long")
			}
			continue
		}
		if err == io.EOF {
			if len(acc)+len(chunk) == 0 {
				return nil, io.EOF
			}
			line := chunk
			if acc != nil {
				line = append(acc, chunk...)
			}
			return bytes.TrimSuffix(line, []byte("\r")), nil
		}
		if err != nil {
			return nil, err
		}
		// a line that fit the reader's buffer is returned in place (valid
		// until the next read)
		line := chunk[:len(chunk)-1]
		if acc != nil {
			line = append(acc, line...)
		}
		return bytes.TrimSuffix(line, []byte("\r")), nil
	}
}

func (in *CopyIn) nextText() ([][]byte, error) {
	line, err := in.readLine()
	if err != nil {
		return nil, err
	}
	if e := checkUTF8Bytes(line); e != nil {
		return nil, e
	}
	if string(line) == `\.` {
		return nil, io.EOF
	}
	if in.opts.Header && !in.header {
		in.header = true
		return nil, nil
	}
	in.spans, in.arena = in.spans[:0], in.arena[:0]
	delim := in.opts.Delimiter
	start, esc := 0, false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			esc = true
			i++
		case delim:
			in.textField(line, start, i, esc)
			start, esc = i+1, false
		}
	}
	in.textField(line, start, len(line), esc)
	return in.rowOf(line), nil
}

// textField records line[a:b] as a field: NULL, the raw bytes, or (with
// backslashes) their unescaped form in the arena.
func (in *CopyIn) textField(line []byte, a, b int, esc bool) {
	raw := line[a:b]
	switch {
	case string(raw) == in.opts.Null:
		in.spans = append(in.spans, copySpan{null: true})
	case !esc:
		in.spans = append(in.spans, copySpan{a: a, b: b, inLine: true})
	default:
		s := len(in.arena)
		in.arena = unescapeCopyText(in.arena, raw)
		in.spans = append(in.spans, copySpan{a: s, b: len(in.arena)})
	}
}

// rowOf turns the recorded spans into the shared row.
func (in *CopyIn) rowOf(line []byte) [][]byte {
	if line == nil {
		line = []byte{}
	}
	arena := in.arena
	if arena == nil {
		arena = []byte{}
	}
	if in.row == nil {
		in.row = make([][]byte, 0, len(in.spans)) // non-nil: nil means a skipped header
	}
	in.row = in.row[:0]
	for _, sp := range in.spans {
		switch {
		case sp.null:
			in.row = append(in.row, nil)
		case sp.inLine:
			in.row = append(in.row, line[sp.a:sp.b:sp.b])
		default:
			in.row = append(in.row, arena[sp.a:sp.b:sp.b])
		}
	}
	return in.row
}

// unescapeCopyText appends raw with the backslash escapes of COPY text
// format interpreted to out.
func unescapeCopyText(out, raw []byte) []byte {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			out = append(out, c)
			continue
		}
		i++
		switch e := raw[i]; e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'v':
			out = append(out, '\v')
		case 'x':
			n, j := 0, i+1
			for ; j < len(raw) && j < i+3 && isHex(raw[j]); j++ {
				n = n*16 + hexVal(raw[j])
			}
			if j == i+1 {
				out = append(out, 'x')
				continue
			}
			out = append(out, byte(n))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(raw) && j < i+3 && raw[j] >= '0' && raw[j] <= '7'; j++ {
				n = n*8 + int(raw[j]-'0')
			}
			out = append(out, byte(n))
			i = j - 1
		default:
			out = append(out, e)
		}
	}
	return out
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// nextCSV reads one CSV record (quoted fields may span lines). Field
// bytes are collected in the arena (a quoted field may continue on the
// next line, which replaces the current one).
func (in *CopyIn) nextCSV() ([][]byte, error) {
	line, err := in.readLine()
	if err != nil {
		return nil, err
	}
	if e := checkUTF8Bytes(line); e != nil {
		return nil, e
	}
	if string(line) == `\.` {
		return nil, io.EOF
	}
	o := in.opts
	in.spans, in.arena = in.spans[:0], in.arena[:0]
	start := 0
	quoted, inQuotes := false, false
	i := 0
	for {
		if i >= len(line) {
			if inQuotes {
				next, err := in.readLine()
				if err == io.EOF {
					return nil, Errorf(pgerr.BadCopyFileFormat, "unterminated CSV quoted field")
				}
				if err != nil {
					return nil, err
				}
				if e := checkUTF8Bytes(next); e != nil {
					return nil, e
				}
				in.arena = append(in.arena, '\n')
				line, i = next, 0
				continue
			}
			break
		}
		c := line[i]
		switch {
		case inQuotes && c == o.Escape && i+1 < len(line) && (line[i+1] == o.Quote || line[i+1] == o.Escape) && !(o.Escape == o.Quote && line[i+1] != o.Quote):
			in.arena = append(in.arena, line[i+1])
			i += 2
			continue
		case inQuotes && c == o.Quote:
			inQuotes = false
		case !inQuotes && c == o.Quote:
			inQuotes, quoted = true, true
		case !inQuotes && c == o.Delimiter:
			in.csvField(start, quoted)
			start, quoted = len(in.arena), false
		default:
			in.arena = append(in.arena, c)
		}
		i++
	}
	in.csvField(start, quoted)
	if o.Header && !in.header {
		in.header = true
		return nil, nil
	}
	return in.rowOf(nil), nil
}

// csvField records arena[start:] as a field: an unquoted value equal to
// the NULL string is NULL.
func (in *CopyIn) csvField(start int, quoted bool) {
	if !quoted && string(in.arena[start:]) == in.opts.Null {
		in.spans = append(in.spans, copySpan{null: true})
		return
	}
	in.spans = append(in.spans, copySpan{a: start, b: len(in.arena)})
}

func (in *CopyIn) nextBinary() ([][]byte, error) {
	if !in.header {
		hdr := make([]byte, len(binaryCopySignature)+8)
		if _, err := io.ReadFull(in.br, hdr); err != nil {
			return nil, badBinaryCopy(err)
		}
		if !bytes.Equal(hdr[:len(binaryCopySignature)], binaryCopySignature) {
			return nil, Errorf(pgerr.BadCopyFileFormat, "COPY file signature not recognized")
		}
		ext := binary.BigEndian.Uint32(hdr[len(binaryCopySignature)+4:])
		if ext > 1<<20 {
			return nil, Errorf(pgerr.BadCopyFileFormat, "invalid COPY file header (wrong length)")
		}
		if _, err := io.CopyN(io.Discard, in.br, int64(ext)); err != nil {
			return nil, badBinaryCopy(err)
		}
		in.header = true
	}
	var b2 [2]byte
	if _, err := io.ReadFull(in.br, b2[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, badBinaryCopy(err)
	}
	n := int16(binary.BigEndian.Uint16(b2[:]))
	if n == -1 {
		return nil, io.EOF
	}
	if n < 0 {
		return nil, Errorf(pgerr.BadCopyFileFormat, "row field count is %d, expected a non-negative count", n)
	}
	in.spans, in.arena = in.spans[:0], in.arena[:0]
	for range n {
		var b4 [4]byte
		if _, err := io.ReadFull(in.br, b4[:]); err != nil {
			return nil, badBinaryCopy(err)
		}
		l := int32(binary.BigEndian.Uint32(b4[:]))
		if l == -1 {
			in.spans = append(in.spans, copySpan{null: true})
			continue
		}
		if l < 0 || int(l) > in.maxLine {
			return nil, Errorf(pgerr.BadCopyFileFormat, "invalid field size")
		}
		a := len(in.arena)
		in.arena = slices.Grow(in.arena, int(l))[:a+int(l)]
		if _, err := io.ReadFull(in.br, in.arena[a:]); err != nil {
			return nil, badBinaryCopy(err)
		}
		in.spans = append(in.spans, copySpan{a: a, b: a + int(l)})
	}
	return in.rowOf(nil), nil
}

func badBinaryCopy(err error) error {
	var pe *Error
	if errors.As(err, &pe) || errors.Is(err, errClientGone) {
		return err
	}
	return Errorf(pgerr.BadCopyFileFormat, "unexpected EOF in COPY data")
}

// copyStream reads the payload of CopyData messages until CopyDone.
type copyStream struct {
	c        *conn
	ctx      context.Context
	buf      []byte
	done     bool
	err      error
	progress *observe.Progress
}

func (s *copyStream) Read(p []byte) (int, error) {
	for len(s.buf) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		if s.done {
			return 0, io.EOF
		}
		msg, err := s.c.be.Receive()
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && s.ctx.Err() != nil {
				// cancelled while waiting for data: the message reader can
				// resume later, the leftover copy messages are then dropped
				s.err = s.ctx.Err()
				return 0, s.err
			}
			s.err = s.c.readError(err)
			if me := (*messageError)(nil); errors.As(s.err, &me) {
				s.err = me.pgError()
			}
			return 0, s.err
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			s.buf = m.Data
			s.progress.AddBytes(int64(len(m.Data)))
		case *pgproto3.CopyDone:
			s.done = true
		case *pgproto3.CopyFail:
			s.err = Errorf(CodeQueryCanceled, "COPY from stdin failed: %s", m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
			// ignored in copy-in mode, as PostgreSQL does
		case *pgproto3.Terminate:
			s.err = errClientGone
		default:
			s.err = protocolError("unexpected message type during COPY from stdin")
		}
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	return n, nil
}

// copyIn runs COPY FROM STDIN through the session.
func (c *conn) copyIn(ctx context.Context, st *Statement) (int64, error) {
	stream := &copyStream{c: c, ctx: ctx}
	// A cancel, statement_timeout or shutdown must interrupt a client that
	// stalls mid-COPY: wake the blocked read.
	c.mu.Lock()
	c.copying = true
	c.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		if c.copying {
			c.woken = true
			c.nc.SetReadDeadline(time.Now())
		}
		c.mu.Unlock()
	})
	defer func() {
		stop()
		c.mu.Lock()
		c.copying = false
		c.woken = false
		c.nc.SetReadDeadline(time.Time{})
		c.mu.Unlock()
	}()
	progress := c.startCopyProgress("COPY FROM", st.Copy.Table)
	defer progress.Done()
	progress.SetPhase("receiving")
	stream.progress = progress
	in := &CopyIn{c: c, opts: st.Copy, stream: stream, br: bufio.NewReaderSize(stream, 64<<10), maxLine: c.srv.cfg.MaxMessageSize, progress: progress}
	fillCopyDefaults(&in.opts)
	n, err := c.sess.CopyFrom(ctx, st, in)
	if err != nil {
		if stream.err != nil && errors.Is(stream.err, errClientGone) {
			return 0, errClientGone
		}
		return 0, err
	}
	if !in.started {
		return n, nil
	}
	if err := in.drain(); err != nil { // a CopyFail after the session stopped reading
		return 0, err
	}
	return n, nil
}

// copyOut streams a Result as COPY TO STDOUT data.
func (c *conn) copyOut(ctx context.Context, st *Statement, res Result) error {
	cols := res.Columns()
	o := st.Copy
	fillCopyDefaults(&o)
	f := uint8(0)
	if o.Format == CopyBinary {
		f = 1
	}
	codes := make([]uint16, len(cols))
	for i := range codes {
		codes[i] = uint16(f)
	}
	c.send(&pgproto3.CopyOutResponse{OverallFormat: f, ColumnFormatCodes: codes})
	progress := c.startCopyProgress("COPY TO", st.Copy.Table)
	defer progress.Done()
	var progressRows int64
	var buf, header []byte
	if o.Format == CopyBinary {
		// the file header travels with the first row, as PostgreSQL sends it
		header = append(append(header, binaryCopySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
	} else if o.Header {
		buf = buf[:0]
		for i, col := range cols {
			if i > 0 {
				buf = append(buf, o.Delimiter)
			}
			buf = appendCopyText(buf, []byte(col.Name), o)
		}
		c.send(&pgproto3.CopyData{Data: append(buf, '\n')})
	}
	var n int64
	if tr, ok := res.(TextRows); ok && o.Format != CopyBinary {
		var vals []byte
		var ends []int
		msg := &pgproto3.CopyData{}
		for {
			var ok bool
			var err error
			vals, ends, ok, err = tr.NextText(ctx, vals[:0], ends[:0])
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if len(ends) != len(cols) {
				return errors.New("wire: row width differs from columns")
			}
			buf = buf[:0]
			prev := 0
			for i, end := range ends {
				if i > 0 {
					buf = append(buf, o.Delimiter)
				}
				if end < 0 {
					buf = append(buf, o.Null...)
					continue
				}
				buf = appendCopyText(buf, vals[prev:end], o)
				prev = end
			}
			buf = append(buf, '\n')
			msg.Data = buf
			c.send(msg)
			if c.werr != nil {
				return c.werr
			}
			n++
			progress.AddBytes(int64(len(buf)))
			c.progressRow(progress, &progressRows)
		}
		c.send(&pgproto3.CopyDone{})
		c.sendComplete("COPY " + strconv.FormatInt(n, 10))
		return nil
	}
	for {
		row, ok, err := res.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if len(row) != len(cols) {
			return errors.New("wire: row width differs from columns")
		}
		buf = append(buf[:0], header...)
		header = nil
		if o.Format == CopyBinary {
			buf = binary.BigEndian.AppendUint16(buf, uint16(len(row)))
			for i, v := range row {
				b, err := encodeValue(c.types, cols[i].TypeOID, 1, v)
				if err != nil {
					return err
				}
				if b == nil && v == nil {
					buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF)
					continue
				}
				buf = binary.BigEndian.AppendUint32(buf, uint32(len(b)))
				buf = append(buf, b...)
			}
		} else {
			for i, v := range row {
				if i > 0 {
					buf = append(buf, o.Delimiter)
				}
				if v == nil {
					buf = append(buf, o.Null...)
					continue
				}
				b, err := encodeValue(c.types, cols[i].TypeOID, 0, v)
				if err != nil {
					return err
				}
				buf = appendCopyText(buf, b, o)
			}
			buf = append(buf, '\n')
		}
		c.send(&pgproto3.CopyData{Data: buf})
		if c.werr != nil {
			return c.werr
		}
		n++
		progress.AddBytes(int64(len(buf)))
		c.progressRow(progress, &progressRows)
	}
	if o.Format == CopyBinary {
		c.send(&pgproto3.CopyData{Data: append(header, 0xFF, 0xFF)})
	}
	c.send(&pgproto3.CopyDone{})
	c.sendComplete("COPY " + strconv.FormatInt(n, 10))
	return nil
}

// appendCopyText escapes one text value for the text or csv format.
func appendCopyText(buf, v []byte, o CopyOptions) []byte {
	if o.Format == CopyCSV {
		need := len(v) == 0 && o.Null == "" || string(v) == o.Null
		for _, c := range v {
			if c == o.Delimiter || c == o.Quote || c == '\n' || c == '\r' {
				need = true
				break
			}
		}
		if !need {
			return append(buf, v...)
		}
		buf = append(buf, o.Quote)
		for _, c := range v {
			if c == o.Quote || c == o.Escape {
				buf = append(buf, o.Escape)
			}
			buf = append(buf, c)
		}
		return append(buf, o.Quote)
	}
	for _, c := range v {
		switch c {
		case '\\':
			buf = append(buf, '\\', '\\')
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\r':
			buf = append(buf, '\\', 'r')
		case '\t':
			buf = append(buf, '\\', 't')
		case '\b':
			buf = append(buf, '\\', 'b')
		case '\f':
			buf = append(buf, '\\', 'f')
		case '\v':
			buf = append(buf, '\\', 'v')
		default:
			if c == o.Delimiter {
				buf = append(buf, '\\')
			}
			buf = append(buf, c)
		}
	}
	return buf
}

// checkUTF8Bytes is checkUTF8 without converting a valid line.
func checkUTF8Bytes(b []byte) *Error {
	if utf8.Valid(b) {
		return nil
	}
	return checkUTF8(string(b))
}
