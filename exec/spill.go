package exec

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/cockroachdb/apd/v3"
	"github.com/pggraph/pggraph/pgerr"
)

// Spill files hold the batches an operator moves out of memory when it
// passes its work_mem (external sort runs, hash aggregate and hash join
// partitions). A spill file is created and immediately unlinked, so it
// occupies disk only while its descriptor is open and disappears with
// the statement — or with the process, whatever way it ends. Spill files
// are scratch: they are never fsynced.

// SpillDir is the directory spill files are created in ("" = the
// system's temporary directory). cmd/pgproxy points it under the data
// root.
var SpillDir string

// DefaultWorkMem is the work_mem used when a session has none (engines
// without settings: embedded use, tests).
const DefaultWorkMem = 4 << 20

// Test hooks: spillChunkRows cuts the batches an operator buffers for
// spilling into pieces of at most this many rows, so tests get many
// runs and partitions from small inputs; mergeFanIn is the most runs one
// merge pass reads at once; forceWorkMem, when positive, overrides every
// session's work_mem.
var (
	spillChunkRows = batchSize
	mergeFanIn     = 64
	forceWorkMem   int64
)

// spillStats counts the bytes ever written to spill files (the
// operators' EXPLAIN ANALYZE detail and tests read it).
var spillBytesTotal atomic.Int64

// workMem is the statement's per-operator memory budget in bytes: the
// work_mem setting in PostgreSQL's units (a bare number is kB).
func workMem(rc *runCtx) int64 {
	if forceWorkMem > 0 {
		return forceWorkMem
	}
	n := int64(DefaultWorkMem)
	if rc != nil && rc.settings != nil {
		if v, ok := rc.settings("work_mem"); ok {
			if m, ok := ParseMemorySetting(v); ok {
				n = m
			}
		}
	}
	// an operator that can spill spills before its own rows reach the
	// statement's hard cap: at most an eighth of it, as a hash join's
	// index over a build that just fits costs about twice its rows again
	// (a work_mem near the cap would fail the statement with 53200)
	if rc != nil && rc.budget != nil && rc.budget.limit > 0 {
		n = min(n, max(rc.budget.limit/8, 1))
	}
	return n
}

// ParseMemorySetting parses a memory setting as PostgreSQL does for
// work_mem: an integer with an optional unit B, kB, MB, GB or TB (a bare
// number is kB). It reports false for anything else.
func ParseMemorySetting(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(v[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	mult := int64(1024)
	switch strings.TrimSpace(v[i:]) {
	case "":
	case "B":
		mult = 1
	case "kB":
	case "MB":
		mult = 1 << 20
	case "GB":
		mult = 1 << 30
	case "TB":
		mult = 1 << 40
	default:
		return 0, false
	}
	if n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}

// spillFile is one unlinked temporary file of encoded batches: written
// sequentially, then read back from the start.
type spillFile struct {
	f       *os.File
	w       *bufio.Writer
	r       *bufio.Reader
	scratch []byte
	bytes   int64 // encoded bytes written
	batches int
}

func newSpillFile() (*spillFile, error) {
	f, err := os.CreateTemp(SpillDir, "pggraph-spill-*")
	if err != nil {
		return nil, spillError("create a temporary file", err)
	}
	// unlinked at once: nothing is left behind by any kind of exit
	_ = os.Remove(f.Name())
	return &spillFile{f: f, w: bufio.NewWriterSize(f, 64<<10)}, nil
}

// spillError is the client's error for a failed temporary-file
// operation: 53100 for a full disk, 58030 otherwise, never the path.
func spillError(op string, err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return &Error{Code: pgerr.DiskFull, Message: "could not " + op + " for spilling to disk: No space left on device",
			Hint: "Check free disk space, or raise work_mem so less is spilled."}
	}
	return &Error{Code: CodeIOError, Message: "could not " + op + " for spilling to disk"}
}

// write appends the live rows of b.
func (s *spillFile) write(b *Batch) error {
	if b.Live() == 0 {
		return nil
	}
	if b.Sel != nil {
		b = b.Compact()
	}
	buf := s.scratch[:0]
	buf = binary.AppendUvarint(buf, uint64(len(b.Cols)))
	buf = binary.AppendUvarint(buf, uint64(b.N))
	for _, c := range b.Cols {
		buf = appendSpillVec(buf, c, b.N)
	}
	s.scratch = buf[:0]
	if cap(s.scratch) > 1<<20 {
		s.scratch = nil
	}
	if _, err := s.w.Write(buf); err != nil {
		return spillError("write a temporary file", err)
	}
	s.bytes += int64(len(buf))
	spillBytesTotal.Add(int64(len(buf)))
	s.batches++
	return nil
}

// rewind ends writing and positions the file for reading from the start.
func (s *spillFile) rewind() error {
	if s.w != nil {
		if err := s.w.Flush(); err != nil {
			return spillError("write a temporary file", err)
		}
		s.w = nil
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return spillError("read a temporary file", err)
	}
	s.r = bufio.NewReaderSize(s.f, 64<<10)
	return nil
}

// read returns the next batch, or nil at the end.
func (s *spillFile) read() (*Batch, error) {
	ncols, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return nil, nil
	}
	if err != nil {
		return nil, spillError("read a temporary file", err)
	}
	n, err := binary.ReadUvarint(s.r)
	if err != nil {
		return nil, spillError("read a temporary file", err)
	}
	d := spillDecoder{r: s.r}
	b := &Batch{N: int(n), Cols: make([]*Vec, ncols)}
	for i := range b.Cols {
		b.Cols[i] = d.vec(int(n))
	}
	if d.err != nil {
		return nil, spillError("read a temporary file", d.err)
	}
	return b, nil
}

func (s *spillFile) close() {
	if s != nil && s.f != nil {
		_ = s.f.Close()
		s.f = nil
	}
}

// appendSpillVec encodes the first n rows of v: type, null mask, values
// by kind (arrays recursively).
func appendSpillVec(buf []byte, v *Vec, n int) []byte {
	buf = binary.AppendUvarint(buf, uint64(v.T.OID))
	buf = binary.AppendVarint(buf, int64(v.T.Mod))
	if v.Nulls == nil {
		buf = append(buf, 0)
	} else {
		buf = append(buf, 1)
		for i := 0; i < n; i++ {
			buf = append(buf, boolByte(v.Nulls[i]))
		}
	}
	switch v.T.Kind() {
	case KInt:
		for _, x := range v.I[:n] {
			buf = binary.AppendVarint(buf, x)
		}
	case KFloat:
		for _, x := range v.F[:n] {
			buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		}
	case KBool:
		for _, x := range v.B[:n] {
			buf = append(buf, boolByte(x))
		}
	case KStr:
		for _, x := range v.S[:n] {
			buf = binary.AppendUvarint(buf, uint64(len(x)))
			buf = append(buf, x...)
		}
	case KNum:
		for i := range v.D[:n] {
			d := &v.D[i]
			buf = append(buf, byte(d.Form), boolByte(d.Negative))
			buf = binary.AppendVarint(buf, int64(d.Exponent))
			c := d.Coeff.Bytes()
			buf = binary.AppendUvarint(buf, uint64(len(c)))
			buf = append(buf, c...)
		}
	case KInterval:
		for _, x := range v.V[:n] {
			buf = binary.AppendVarint(buf, int64(x.Months))
			buf = binary.AppendVarint(buf, int64(x.Days))
			buf = binary.AppendVarint(buf, x.Micros)
		}
	case KArray:
		for _, a := range v.A[:n] {
			if a == nil {
				buf = append(buf, 0)
				continue
			}
			buf = append(buf, 1, boolByte(a.vector))
			buf = binary.AppendUvarint(buf, uint64(a.Elem.OID))
			buf = binary.AppendVarint(buf, int64(a.Elem.Mod))
			buf = binary.AppendUvarint(buf, uint64(a.Items.N))
			buf = appendSpillVec(buf, a.Items, a.Items.N)
		}
	}
	return buf
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// spillDecoder reads what appendSpillVec wrote; the first error sticks.
type spillDecoder struct {
	r   *bufio.Reader
	err error
	tmp []byte
}

func (d *spillDecoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	x, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.err = err
	}
	return x
}

func (d *spillDecoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	x, err := binary.ReadVarint(d.r)
	if err != nil {
		d.err = err
	}
	return x
}

func (d *spillDecoder) byte() byte {
	if d.err != nil {
		return 0
	}
	c, err := d.r.ReadByte()
	if err != nil {
		d.err = err
	}
	return c
}

func (d *spillDecoder) bytes(n int) []byte {
	if d.err != nil {
		return nil
	}
	if cap(d.tmp) < n {
		d.tmp = make([]byte, n)
	}
	b := d.tmp[:n]
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.err = err
	}
	return b
}

func (d *spillDecoder) vec(n int) *Vec {
	t := Type{OID: uint32(d.uvarint()), Mod: int32(d.varint())}
	v := NewVec(t, n)
	if d.byte() == 1 {
		v.Nulls = make([]bool, n)
		for i := range v.Nulls {
			v.Nulls[i] = d.byte() == 1
		}
	}
	if d.err != nil {
		return v
	}
	switch t.Kind() {
	case KInt:
		for i := range v.I {
			v.I[i] = d.varint()
		}
	case KFloat:
		for i := range v.F {
			v.F[i] = math.Float64frombits(binary.LittleEndian.Uint64(d.bytes(8)))
		}
	case KBool:
		for i := range v.B {
			v.B[i] = d.byte() == 1
		}
	case KStr:
		for i := range v.S {
			v.S[i] = string(d.bytes(int(d.uvarint())))
		}
	case KNum:
		for i := range v.D {
			x := &v.D[i]
			x.Form = apd.Form(d.byte())
			x.Negative = d.byte() == 1
			x.Exponent = int32(d.varint())
			x.Coeff.SetBytes(d.bytes(int(d.uvarint())))
		}
	case KInterval:
		for i := range v.V {
			v.V[i] = Interval{Months: int32(d.varint()), Days: int32(d.varint()), Micros: d.varint()}
		}
	case KArray:
		for i := range v.A {
			if d.byte() == 0 {
				continue
			}
			a := &Array{vector: d.byte() == 1}
			a.Elem = Type{OID: uint32(d.uvarint()), Mod: int32(d.varint())}
			a.Items = d.vec(int(d.uvarint()))
			v.A[i] = a
		}
	}
	if d.err != nil && d.err == io.EOF {
		d.err = io.ErrUnexpectedEOF
	}
	return v
}

// writePartitions appends the rows of b that sel[p] selects to partition
// p's spill file, creating the file on first use.
func writePartitions(parts []*spillFile, b *Batch, sel [][]int32) error {
	for p, rows := range sel {
		if len(rows) == 0 {
			continue
		}
		if parts[p] == nil {
			f, err := newSpillFile()
			if err != nil {
				return err
			}
			parts[p] = f
		}
		if err := parts[p].write(&Batch{Cols: b.Cols, N: b.N, Sel: rows}); err != nil {
			return err
		}
	}
	return nil
}
