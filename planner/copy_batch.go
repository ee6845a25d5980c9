package planner

import (
	"time"

	"strconv"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// copyBatch accumulates one batch of COPY rows straight into typed
// column vectors: integers and floats of the plain decimal forms are
// parsed in place, text is appended to one buffer per column (one string
// per batch, values are substrings of it), and only other types or
// unusual spellings go through exec's input functions (which also
// produce the exact error of a bad value). No per-row or per-value
// allocation on the common path.
type copyBatch struct {
	td      *exec.TableDef
	targets []int
	cols    []copyColumn
	n       int
	// firstLine is the COPY line number of the batch's first row.
	firstLine int
	// lazy marks text columns whose vectors may go without strings
	// (nothing reads them before the record is built from the column's
	// own buffers); fillStrings adds them when an error message needs
	// the row
	lazy []bool
}

// copyKind is how a column's text values are converted.
type copyKind uint8

const (
	copyOther copyKind = iota // exec's input function, value by value
	copyInt                   // int2/int4/int8
	copyFloat                 // float4/float8
	copyStr                   // text, varchar, char: the value itself
)

// copyColumn is one target column's values in a batch.
type copyColumn struct {
	loc   *time.Location // text input's TimeZone (nil: UTC)
	style exec.DateStyle // and DateStyle, IntervalStyle
	t     exec.Type
	name  string
	kind  copyKind
	nulls []bool // nil until the first NULL
	ints  []int64
	flts  []float64
	data  []byte  // copyStr: concatenated values
	ends  []int32 // copyStr: end offset of each value in data
	vals  []string
}

func copyKindOf(t exec.Type) copyKind {
	switch t.OID {
	case exec.OIDInt2, exec.OIDInt4, exec.OIDInt8:
		return copyInt
	case exec.OIDFloat4, exec.OIDFloat8:
		return copyFloat
	case exec.OIDText, exec.OIDVarchar, exec.OIDBpchar:
		return copyStr
	}
	// other string-kinded types (bytea, uuid, json, …) keep exec's
	// conversion and canonical form
	return copyOther
}

func newCopyBatch(td *exec.TableDef, targets []int, rows int) *copyBatch {
	b := &copyBatch{td: td, targets: targets, cols: make([]copyColumn, len(targets))}
	for i, c := range targets {
		cd := td.Columns[c]
		col := copyColumn{t: cd.Type, name: cd.Name, kind: copyKindOf(cd.Type)}
		switch col.kind {
		case copyInt:
			col.ints = make([]int64, 0, rows)
		case copyFloat:
			col.flts = make([]float64, 0, rows)
		case copyStr:
			col.ends = make([]int32, 0, rows)
		default:
			col.vals = make([]string, 0, rows)
		}
		b.cols[i] = col
	}
	return b
}

// add appends one row (text-format field values of the target columns,
// nil = NULL; the bytes are not retained). line is the row's COPY line.
func (b *copyBatch) add(fields [][]byte, line int) error {
	if len(fields) != len(b.targets) {
		return copyWidthError(b.td, b.targets, fields, line, nil)
	}
	if b.n == 0 {
		b.firstLine = line
	}
	for i, f := range fields {
		c := &b.cols[i]
		if f == nil {
			c.null(b.n)
			continue
		}
		if err := c.add(f); err != nil {
			return copyValueError(err, b.td.Name, line, c.name, f)
		}
	}
	b.n++
	return nil
}

// null appends a NULL at row r.
func (c *copyColumn) null(r int) {
	if c.nulls == nil {
		c.nulls = make([]bool, r, max(cap(c.ints), cap(c.flts), cap(c.ends), cap(c.vals), r+1))
	}
	c.nulls = append(c.nulls, true)
	switch c.kind {
	case copyInt:
		c.ints = append(c.ints, 0)
	case copyFloat:
		c.flts = append(c.flts, 0)
	case copyStr:
		c.ends = append(c.ends, int32(len(c.data)))
	default:
		c.vals = append(c.vals, "")
	}
}

func (c *copyColumn) add(f []byte) error {
	if c.nulls != nil {
		c.nulls = append(c.nulls, false)
	}
	switch c.kind {
	case copyInt:
		if v, ok := plainInt(f, c.t); ok {
			c.ints = append(c.ints, v)
			return nil
		}
		v, err := c.parse(f)
		if err != nil {
			return err
		}
		c.ints = append(c.ints, v.I[0])
	case copyFloat:
		if v, ok := plainFloat(f, c.t); ok {
			c.flts = append(c.flts, v)
			return nil
		}
		v, err := c.parse(f)
		if err != nil {
			return err
		}
		c.flts = append(c.flts, v.F[0])
	case copyStr:
		c.data = append(c.data, f...)
		if len(c.data) > 1<<31-1 {
			return wire.Errorf(pgerr.ProgramLimitExceeded, "COPY batch of column \"%s\" exceeds 2 GB", c.name)
		}
		c.ends = append(c.ends, int32(len(c.data)))
	default:
		c.vals = append(c.vals, string(f))
	}
	return nil
}

// parse converts one value through exec's input function for the
// column's type (the spelling PostgreSQL accepts, or its error).
func (c *copyColumn) parse(f []byte) (*exec.Vec, error) {
	return exec.ParseTextVec(c.t, []string{string(f)}, nil, c.loc, c.style)
}

// vecs returns the batch as vectors of the target columns (in COPY
// column order); other types are converted here, a batch at a time.
func (b *copyBatch) vecs() ([]*exec.Vec, error) {
	out := make([]*exec.Vec, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		v := &exec.Vec{T: c.t, N: b.n, Nulls: c.nulls}
		switch c.kind {
		case copyInt:
			v.I = c.ints
		case copyFloat:
			v.F = c.flts
		case copyStr:
			if i >= len(b.lazy) || !b.lazy[i] {
				v.S = c.strings(b.n)
			}
		default:
			cv, err := c.convert(b)
			if err != nil {
				return nil, err
			}
			v = cv
		}
		out[i] = v
	}
	return out, nil
}

// strings returns a text column's values (substrings of one copy of
// its buffer).
func (c *copyColumn) strings(n int) []string {
	all := string(c.data)
	out := make([]string, n)
	start := int32(0)
	for r, e := range c.ends {
		out[r] = all[start:e]
		start = e
	}
	return out
}

// fillStrings gives the lazy text columns of vecs (table order) their
// strings.
func (b *copyBatch) fillStrings(vecs []*exec.Vec) {
	for i, c := range b.targets {
		if col := &b.cols[i]; col.kind == copyStr && c < len(vecs) && vecs[c].S == nil {
			vecs[c].S = col.strings(b.n)
		}
	}
}

// lazyStrings marks the target columns of a streamed COPY whose strings
// no validation reads: plain text columns outside every unique key,
// foreign key and graph source column, in a table without CHECKs.
func lazyStrings(ti *tableInfo, targets []int) []bool {
	td := ti.def
	if len(td.Checks) > 0 {
		return nil
	}
	used := map[int]bool{}
	for _, uk := range uniqueKeys(td) {
		for _, c := range uk.cols {
			used[c] = true
		}
	}
	for _, fk := range td.ForeignKeys {
		for _, c := range fk.Columns {
			used[c] = true
		}
	}
	if ti.meta != nil && ti.meta.Graph.Source != "" {
		for c, cd := range td.Columns {
			if cd.Name == ti.meta.Graph.Source {
				used[c] = true
			}
		}
	}
	out := make([]bool, len(targets))
	for i, c := range targets {
		out[i] = td.Columns[c].Type.OID == exec.OIDText && !used[c]
	}
	return out
}

// convert runs a copyOther column's values through exec's input
// functions (the error names the failing row's line).
func (c *copyColumn) convert(b *copyBatch) (*exec.Vec, error) {
	v, err := exec.ParseTextVec(c.t, c.vals[:b.n], c.nulls, c.loc, c.style)
	if err != nil {
		// find the failing value for the error's context
		for r := 0; r < b.n; r++ {
			if c.nulls != nil && c.nulls[r] {
				continue
			}
			if _, err1 := c.parse([]byte(c.vals[r])); err1 != nil {
				return nil, copyValueError(err1, b.td.Name, b.firstLine+r, c.name, []byte(c.vals[r]))
			}
		}
		return nil, err
	}
	return v, nil
}

// plainInt parses the common spelling of an integer: an optional minus
// and 1 to 18 digits (cannot overflow int64), then checks the type's
// range. Anything else (spaces, plus signs, long or out-of-range values)
// is left to exec's input function.
func plainInt(f []byte, t exec.Type) (int64, bool) {
	s := f
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	if neg {
		n = -n
	}
	switch t.OID {
	case exec.OIDInt2:
		if n < -1<<15 || n > 1<<15-1 {
			return 0, false
		}
	case exec.OIDInt4:
		if n < -1<<31 || n > 1<<31-1 {
			return 0, false
		}
	}
	return n, true
}

// plainFloat parses a float written with digits, one optional leading
// minus, a decimal point and an exponent only (what strconv and
// PostgreSQL's strtod read alike, correctly rounded); anything else is
// left to exec's input function.
func plainFloat(f []byte, t exec.Type) (float64, bool) {
	if len(f) == 0 || len(f) > 64 {
		return 0, false
	}
	digits := false
	for i, ch := range f {
		switch {
		case ch >= '0' && ch <= '9':
			digits = true
		case ch == '.' || ch == 'e' || ch == 'E':
		case ch == '-' || ch == '+':
			if i > 0 && f[i-1] != 'e' && f[i-1] != 'E' || i == 0 && ch == '+' {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	if !digits {
		return 0, false
	}
	bits := 64
	if t.OID == exec.OIDFloat4 {
		bits = 32
	} else if v, ok := exactFloat(f); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(string(f), bits)
	if err != nil || v == 0 && nonzeroMantissa(f) {
		// an underflow to zero is out of range in PostgreSQL (strtod's
		// ERANGE); exec's input function reports it
		return 0, false
	}
	return v, true
}

// nonzeroMantissa: a digit other than 0 before the exponent.
func nonzeroMantissa(f []byte) bool {
	for _, ch := range f {
		if ch == 'e' || ch == 'E' {
			return false
		}
		if ch >= '1' && ch <= '9' {
			return true
		}
	}
	return false
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactFloat converts a plain decimal (checked by plainFloat) whose
// digits fit 53 bits and whose decimal exponent is at most 22 in size:
// then the integer and the power of ten are exact doubles and one
// multiplication or division rounds correctly, as strtod would
// (Clinger's fast path). Other values are left to strconv.
func exactFloat(f []byte) (float64, bool) {
	i, neg := 0, false
	if f[0] == '-' {
		neg, i = true, 1
	}
	var m uint64
	exp := 0
	dot := false
	for ; i < len(f); i++ {
		ch := f[i]
		switch {
		case ch >= '0' && ch <= '9':
			if m >= 1<<53/10 {
				return 0, false
			}
			m = m*10 + uint64(ch-'0')
			if dot {
				exp--
			}
		case ch == '.' && !dot:
			dot = true
		default:
			return 0, false // exponents, a second point: strconv
		}
	}
	if exp < -len(pow10)+1 {
		return 0, false
	}
	v := float64(m) / pow10[-exp]
	if neg {
		v = -v
	}
	return v, true
}
