package planner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/planner/ddl"
	"github.com/pggraph/pggraph/wire"
)

// COPY FROM errors carry PostgreSQL's CONTEXT (wire.Error.Where), not a
// DETAIL: "COPY t, line N, column c: "value"" for a text or csv value
// that does not convert, "COPY t, line N, column c" for a binary one
// (PostgreSQL does not print binary data), and "COPY t, line N: "line""
// for a text or csv line with the wrong number of fields. Printed values
// and lines are cut after 100 bytes (on a character boundary) with
// "..." appended, as PostgreSQL's limit_printout_length does.

// copyPrintLimit is PostgreSQL's MAX_COPY_DATA_DISPLAY.
const copyPrintLimit = 100

// clipCopyText shortens s for a COPY context line.
func clipCopyText(s string) string {
	if c := ddl.ClipRunes(s, copyPrintLimit); len(c) < len(s) {
		return c + "..."
	}
	return s
}

// copyValueError is a text or csv value's conversion error with the
// COPY context naming the line, column and value.
func copyValueError(err error, table string, line int, col string, f []byte) error {
	return withCopyWhere(err, fmt.Sprintf("COPY %s, line %d, column %s: \"%s\"", table, line, col, clipCopyText(string(f))))
}

// copyBinaryValueError is a binary value's error: the context names the
// line and column only.
func copyBinaryValueError(err error, table string, line int, col string) error {
	return withCopyWhere(err, fmt.Sprintf("COPY %s, line %d, column %s", table, line, col))
}

func withCopyWhere(err error, where string) error {
	var we *wire.Error
	if !errors.As(err, &we) {
		return err
	}
	c := *we
	c.Where = where
	return &c
}

// copyWidthError is the 22P04 of a row with too many or too few fields.
// o is the COPY's options (nil when unknown: the context then names the
// line only); a text or csv line is shown as copyLineText rebuilds it.
func copyWidthError(td *exec.TableDef, targets []int, fields [][]byte, line int, o *wire.CopyOptions) error {
	var e *wire.Error
	switch {
	case o != nil && o.Format == wire.CopyBinary:
		e = wire.Errorf(pgerr.BadCopyFileFormat, "row field count is %d, expected %d", len(fields), len(targets))
	case len(fields) > len(targets):
		e = wire.Errorf(pgerr.BadCopyFileFormat, "extra data after last expected column")
	default:
		e = wire.Errorf(pgerr.BadCopyFileFormat, "missing data for column \"%s\"", td.Columns[targets[len(fields)]].Name)
	}
	e.Where = fmt.Sprintf("COPY %s, line %d", td.Name, line)
	if o != nil && o.Format != wire.CopyBinary {
		e.Where += fmt.Sprintf(": \"%s\"", clipCopyText(copyLineText(fields, o)))
	}
	return e
}

// copyLineText rebuilds a text or csv line from its decoded fields.
// PostgreSQL prints the line as the client sent it; wire.CopyIn does not
// keep it, so this writes the fields back in the canonical form of the
// format (what COPY TO would produce), which is the sent line unless the
// client used optional escapes or quotes.
func copyLineText(fields [][]byte, o *wire.CopyOptions) string {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(o.Delimiter)
		}
		if f == nil {
			b.WriteString(o.Null)
			continue
		}
		if o.Format == wire.CopyCSV {
			writeCSVField(&b, f, o)
		} else {
			writeTextField(&b, f, o.Delimiter)
		}
	}
	return b.String()
}

func writeTextField(b *strings.Builder, f []byte, delim byte) {
	for _, c := range f {
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case delim:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
}

func writeCSVField(b *strings.Builder, f []byte, o *wire.CopyOptions) {
	quote := len(f) == 0 && o.Null == "" || string(f) == o.Null
	for _, c := range f {
		if c == o.Delimiter || c == o.Quote || c == o.Escape || c == '\n' || c == '\r' {
			quote = true
			break
		}
	}
	if !quote {
		b.Write(f)
		return
	}
	b.WriteByte(o.Quote)
	for _, c := range f {
		if c == o.Quote || c == o.Escape {
			b.WriteByte(o.Escape)
		}
		b.WriteByte(c)
	}
	b.WriteByte(o.Quote)
}

// copyLines places the rows of the COPY batch being checked on their
// lines: PostgreSQL checks NOT NULL and CHECK constraints while the line
// is at hand (CONTEXT "COPY t, line N: "line"") and unique keys when it
// flushes its buffered rows ("COPY t, line N").
type copyLines struct {
	table   string
	first   int   // the line of row 0 (one line a row: a csv record spanning lines counts once)
	targets []int // COPY column order → table column
	opts    wire.CopyOptions
}

// copyLinesOf returns the lines of batch b read by rd.
func copyLinesOf(rd *copyRowReader, b *copyBatch) *copyLines {
	return &copyLines{table: rd.td.Name, first: b.firstLine, targets: rd.targets, opts: rd.in.Options()}
}

// context is the CONTEXT of row i ("" outside COPY, when l is nil);
// withText adds the line, rebuilt from rows (table column order) by
// copyLineText, except in binary format.
func (l *copyLines) context(rows []*exec.Vec, i int, withText bool, s *session) string {
	if l == nil {
		return ""
	}
	where := fmt.Sprintf("COPY %s, line %d", l.table, l.first+i)
	if !withText || l.opts.Format == wire.CopyBinary {
		return where
	}
	fields := make([][]byte, len(l.targets))
	for k, c := range l.targets {
		if t, ok := exec.FormatText(rows[c], i, s.location()); ok {
			fields[k] = []byte(t)
		}
	}
	return where + fmt.Sprintf(": \"%s\"", clipCopyText(copyLineText(fields, &l.opts)))
}

// binaryWidths are the sizes of the fixed-width types' binary forms, by
// type OID.
var binaryWidths = map[uint32]int{
	16: 1, 21: 2, 23: 4, 20: 8, 26: 4, 700: 4, 701: 8, // bool, int2, int4, int8, oid, float4, float8
	1082: 4, 1083: 8, 1114: 8, 1184: 8, 2950: 16, // date, time, timestamp, timestamptz, uuid
}

// binaryValueError is PostgreSQL's error for a binary COPY value its
// receive function rejects: a fixed-width value too short is 08P01
// "insufficient data left in message" (the receive function reads past
// the field), anything else 22P03 "incorrect binary data format" (the
// field has bytes left over, or does not decode). cause is kept for logs.
func binaryValueError(t exec.Type, f []byte, cause error) *wire.Error {
	e := wire.Errorf(pgerr.InvalidBinaryRepresentation, "incorrect binary data format")
	if w, ok := binaryWidths[t.OID]; ok && len(f) < w {
		e = wire.Errorf(pgerr.ProtocolViolation, "insufficient data left in message")
	}
	e.Cause = cause
	return e
}
