package wire

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// prepared is a statement created by Parse.
type prepared struct {
	name string
	st   *Statement // nil for an empty query
	desc Description
	// rd is the last RowDescription sent for desc.Columns in rdFormats
	// (a portal is described at every execution by many drivers)
	rd        *pgproto3.RowDescription
	rdCols    []Column
	rdFormats []int16
}

// rowDescription is prep's RowDescription for formats, made once per
// column list and formats.
func (prep *prepared) rowDescription(formats []int16) *pgproto3.RowDescription {
	cols := prep.desc.Columns
	if prep.rd != nil && len(prep.rdCols) == len(cols) && (len(cols) == 0 || &prep.rdCols[0] == &cols[0]) && slices.Equal(prep.rdFormats, formats) {
		return prep.rd
	}
	prep.rd, prep.rdCols, prep.rdFormats = rowDescription(cols, formats), cols, slices.Clone(formats)
	return prep.rd
}

// portal is a bound statement created by Bind.
type portal struct {
	name    string
	prep    *prepared
	params  []any
	formats []int16
	src     *rowSource // nil until the first Execute
	srcVal  rowSource  // what src points at
	done    bool
	tag     string
}

func (c *conn) closePortal(name string) {
	if p, ok := c.portals[name]; ok {
		if p.src != nil {
			p.src.res.Close()
		}
		delete(c.portals, name)
	}
}

// closePortals closes every portal (transaction end).
func (c *conn) closePortals() {
	for name := range c.portals {
		c.closePortal(name)
	}
}

func (c *conn) handleParse(m *pgproto3.Parse) error {
	if _, exists := c.stmts[m.Name]; exists && m.Name != "" {
		return Errorf(CodeDuplicatePreparedStmt, "prepared statement \"%s\" already exists", m.Name)
	}
	if e := checkUTF8(m.Query); e != nil {
		return e
	}
	stmts, err := c.parseSQL(m.Query)
	if err != nil {
		return err
	}
	if len(stmts) > 1 {
		return Errorf(CodeSyntaxError, "cannot insert multiple commands into a prepared statement")
	}
	p := &prepared{name: m.Name}
	if len(stmts) == 1 {
		p.st = stmts[0]
		if c.tx == txFailed && !exitsTx(p.st) {
			return errAborted()
		}
		declared := append([]uint32(nil), m.ParameterOIDs...)
		d, err := c.describe(p.st, declared)
		if err != nil {
			return err
		}
		p.desc = d
	}
	c.stmts[m.Name] = p
	c.send(&pgproto3.ParseComplete{})
	return nil
}

func (c *conn) lookupStmt(name string) (*prepared, error) {
	p, ok := c.stmts[name]
	if !ok {
		if name == "" {
			return nil, Errorf(CodeInvalidSQLStatementName, "unnamed prepared statement does not exist")
		}
		return nil, Errorf(CodeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", name)
	}
	return p, nil
}

func (c *conn) lookupPortal(name string) (*portal, error) {
	p, ok := c.portals[name]
	if !ok {
		if name == "" {
			return nil, Errorf(CodeInvalidCursorName, "portal \"\" does not exist")
		}
		return nil, Errorf(CodeInvalidCursorName, "portal \"%s\" does not exist", name)
	}
	return p, nil
}

func protocolError(format string, args ...any) *Error {
	return Errorf(CodeProtocolViolation, format, args...)
}

func (c *conn) handleBind(m *pgproto3.Bind) error {
	prep, err := c.lookupStmt(m.PreparedStatement)
	if err != nil {
		return err
	}
	if m.DestinationPortal == "" {
		c.closePortal("")
	} else if _, exists := c.portals[m.DestinationPortal]; exists {
		return Errorf(CodeDuplicateCursor, "cursor \"%s\" already exists", m.DestinationPortal)
	}
	if c.tx == txFailed && !exitsTx(prep.st) {
		return errAborted()
	}
	want := len(prep.desc.Params)
	if len(m.Parameters) != want {
		return protocolError("bind message supplies %d parameters, but prepared statement \"%s\" requires %d", len(m.Parameters), prep.name, want)
	}
	nf := len(m.ParameterFormatCodes)
	if nf > 1 && nf != len(m.Parameters) {
		return protocolError("bind message has %d parameter formats but %d parameters", nf, len(m.Parameters))
	}
	params := make([]any, len(m.Parameters))
	for i, raw := range m.Parameters {
		f := formatFor(m.ParameterFormatCodes, i)
		if f != 0 && f != 1 {
			return Errorf(CodeInvalidParameterValue, "unsupported format code: %d", f)
		}
		v, err := c.decodeParam(prep.desc.Params[i], f, raw, i)
		if err != nil {
			return err
		}
		params[i] = v
	}
	if n := len(m.ResultFormatCodes); n > 1 && n != len(prep.desc.Columns) {
		return protocolError("bind message has %d result formats but query has %d columns", n, len(prep.desc.Columns))
	}
	c.portals[m.DestinationPortal] = &portal{name: m.DestinationPortal, prep: prep, params: params,
		formats: append([]int16(nil), m.ResultFormatCodes...)}
	c.send(&pgproto3.BindComplete{})
	return nil
}

func (c *conn) handleDescribe(m *pgproto3.Describe) error {
	switch m.ObjectType {
	case 'S':
		prep, err := c.lookupStmt(m.Name)
		if err != nil {
			return err
		}
		params := prep.desc.Params
		if params == nil {
			params = []uint32{}
		}
		c.send(&pgproto3.ParameterDescription{ParameterOIDs: params})
		if prep.desc.Columns != nil { // rows, maybe of no columns (SELECT;)
			c.send(prep.rowDescription(nil))
		} else {
			c.send(&pgproto3.NoData{})
		}
	case 'P':
		p, err := c.lookupPortal(m.Name)
		if err != nil {
			return err
		}
		if p.prep.desc.Columns != nil {
			c.send(p.prep.rowDescription(p.formats))
		} else {
			c.send(&pgproto3.NoData{})
		}
	default:
		return protocolError("invalid DESCRIBE message subtype %d", m.ObjectType)
	}
	return nil
}

func (c *conn) handleExecute(m *pgproto3.Execute) (err error) {
	p, err := c.lookupPortal(m.Portal)
	if err != nil {
		return err
	}
	st := p.prep.st
	if st == nil {
		c.send(&pgproto3.EmptyQueryResponse{})
		return nil
	}
	c.noteQuery(st.SQL)
	defer func(start time.Time) { c.statementDone(st, start, err) }(time.Now())
	if p.done {
		// An exhausted portal answers with its tag and no rows, as PostgreSQL.
		c.sendComplete(p.tag)
		return nil
	}
	if c.tx == txFailed && !exitsTx(st) {
		return errAborted()
	}
	for _, f := range p.formats { // checked when rows are about to be sent, as PostgreSQL
		if f != 0 && f != 1 {
			return Errorf(CodeInvalidParameterValue, "unsupported format code: %d", f)
		}
	}
	ctx, done := c.statementContext()
	defer done()
	if p.src == nil {
		// an implicit transaction already open ran an earlier statement
		// of this cycle
		if c.tx == txImplicit || (c.tx == txIdle && c.mr != nil && c.mr.aheadExecute()) {
			ctx = withPipeline(ctx)
		}
		res, err := c.run(ctx, st, p.params)
		if err != nil {
			if errors.Is(err, errClientGone) {
				return &Error{Severity: SeverityFatal, Code: CodeProtocolViolation, Message: "connection lost during COPY"}
			}
			return shiftPosition(toPGError(ctx, err), st.Offset)
		}
		if st.Kind == KindCopyTo {
			defer res.Close()
			p.done = true
			if err := c.copyOut(ctx, st, res); err != nil {
				return shiftPosition(toPGError(ctx, err), st.Offset)
			}
			return nil
		}
		// Rows are encoded with the described column types: that is what
		// the client was told (Describe) and what it decodes with.
		cols := p.prep.desc.Columns
		if rc := res.Columns(); len(rc) != len(cols) {
			res.Close()
			return Errorf(CodeInternalError, "internal error: result shape differs from the described one")
		}
		p.srcVal = rowSource{res: res, cols: cols, formats: p.formats}
		p.src = &p.srcVal
	}
	more, err := c.stream(ctx, p.src, int32(min(m.MaxRows, 1<<31-1)))
	if err != nil {
		c.closePortal(p.name)
		return shiftPosition(toPGError(ctx, err), st.Offset)
	}
	if more {
		c.send(&pgproto3.PortalSuspended{})
		return nil
	}
	p.done = true
	tag := p.src.res.Tag()
	p.tag = completeTag(tag, p.src.cols != nil, 0)
	p.src.res.Close()
	c.sendComplete(completeTag(tag, p.src.cols != nil, p.src.count))
	return nil
}

func (c *conn) handleClose(m *pgproto3.Close) error {
	switch m.ObjectType {
	case 'S':
		delete(c.stmts, m.Name)
	case 'P':
		c.closePortal(m.Name)
	default:
		return protocolError("invalid CLOSE message subtype %d", m.ObjectType)
	}
	c.send(&pgproto3.CloseComplete{})
	return nil
}

// sync ends an extended-protocol cycle: the implicit transaction commits
// (or has already rolled back after an error) and ReadyForQuery follows.
func (c *conn) sync() {
	c.skipSync = false
	c.inCycle = false
	if err := c.endImplicit(); err != nil {
		c.sendError(toPGError(context.Background(), err))
	}
	c.readyForQuery()
}
