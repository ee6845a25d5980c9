package wire

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// NewResult returns a materialized Result: rows (Go values per column,
// nil = NULL) and a command tag ("SELECT" gets its row count filled in).
// For small answers of the SQL layer (catalog probes, DML tags).
func NewResult(cols []Column, rows [][]any, tag string) Result {
	return &staticResult{cols: cols, rows: rows, tag: tag}
}

// staticResult is a fully materialized Result (utility statements).
type staticResult struct {
	cols []Column
	rows [][]any
	tag  string
	i    int
	err  error // returned by Next after the rows (an execution-time error)
}

func (r *staticResult) Columns() []Column { return r.cols }
func (r *staticResult) Next(context.Context) ([]any, bool, error) {
	if r.i >= len(r.rows) {
		return nil, false, r.err
	}
	r.i++
	return r.rows[r.i-1], true, nil
}
func (r *staticResult) Tag() string  { return r.tag }
func (r *staticResult) Close() error { return nil }

func textColumn(name string) Column {
	return Column{Name: name, TypeOID: pgtype.TextOID, TypeSize: -1, TypeMod: -1}
}

// parseSQL asks the session to split and classify sql.
func (c *conn) parseSQL(sql string) (stmts []*Statement, err error) {
	ctx, done := c.statementContext()
	defer done()
	stmts, err = c.sess.Parse(ctx, sql)
	if err != nil {
		return nil, toPGError(ctx, err)
	}
	return stmts, nil
}

// exitsTx reports whether a statement may run in a failed transaction.
func exitsTx(st *Statement) bool {
	return st != nil && (st.Kind == KindCommit || st.Kind == KindRollback || st.Kind == KindRollbackTo)
}

// run executes one statement. Utility statements are executed here;
// KindQuery/KindCopyTo go to Session.Execute, KindCopyFrom to the COPY
// sub-protocol.
func (c *conn) run(ctx context.Context, st *Statement, params []any) (Result, error) {
	if c.tx == txFailed && !exitsTx(st) {
		return nil, errAborted()
	}
	switch st.Kind {
	case KindBegin, KindCommit, KindRollback, KindSavepoint, KindRelease, KindRollbackTo:
		tag, err := c.execTxControl(ctx, st)
		if err != nil {
			return nil, err
		}
		return &staticResult{tag: tag}, nil
	case KindPrepareTxn:
		return nil, Errorf(CodeFeatureNotSupported, "prepared transactions are not supported")
	case KindDiscard:
		// PostgreSQL also counts a multi-statement Query as a block here.
		if c.tx == txBlock || c.multiStatement {
			return nil, Errorf(CodeActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
		}
	}
	if err := c.ensureTx(ctx); err != nil {
		return nil, err
	}
	switch st.Kind {
	case KindSet, KindSetConfig:
		v, err := c.execSet(ctx, st)
		if err != nil {
			return nil, err
		}
		if st.Kind == KindSetConfig {
			return &staticResult{cols: []Column{textColumn("set_config")}, rows: [][]any{{v}}, tag: "SELECT 1"}, nil
		}
		return &staticResult{tag: "SET"}, nil
	case KindReset:
		if err := c.execReset(ctx, st.Setting.Name); err != nil {
			return nil, err
		}
		return &staticResult{tag: "RESET"}, nil
	case KindShow:
		return c.execShow(st.Setting.Name)
	case KindCurrentSetting:
		cols := []Column{textColumn("current_setting")}
		v, ok := c.settings.Get(st.Setting.Name)
		if !ok && !st.Setting.MissingOK {
			// raised while executing, after the row description (as PostgreSQL)
			return &staticResult{cols: cols, err: Errorf(CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", st.Setting.Name)}, nil
		}
		var val any
		if ok {
			val = v
		}
		return &staticResult{cols: cols, rows: [][]any{{val}}, tag: "SELECT 1"}, nil
	case KindDeallocate:
		sqlStmts, _ := c.sess.(SQLPreparedStatements)
		if st.Prepared == "" {
			for name := range c.stmts {
				delete(c.stmts, name)
			}
			if sqlStmts != nil {
				sqlStmts.DeallocateSQL("")
			}
			return &staticResult{tag: "DEALLOCATE ALL"}, nil
		}
		if sqlStmts != nil && sqlStmts.DeallocateSQL(st.Prepared) {
			return &staticResult{tag: "DEALLOCATE"}, nil
		}
		if _, ok := c.stmts[st.Prepared]; !ok {
			return nil, Errorf(CodeInvalidSQLStatementName, "prepared statement \"%s\" does not exist", st.Prepared)
		}
		delete(c.stmts, st.Prepared)
		return &staticResult{tag: "DEALLOCATE"}, nil
	case KindDiscard:
		c.closePortals()
		for name := range c.stmts {
			delete(c.stmts, name)
		}
		if sqlStmts, ok := c.sess.(SQLPreparedStatements); ok {
			sqlStmts.DeallocateSQL("")
		}
		if temp, ok := c.sess.(TempDiscarder); ok {
			temp.DiscardTemp()
		}
		c.settings.discardAll()
		return &staticResult{tag: "DISCARD ALL"}, nil
	case KindCopyFrom:
		n, err := c.copyIn(ctx, st)
		if err != nil {
			return nil, err
		}
		return &staticResult{tag: "COPY " + strconv.FormatInt(n, 10)}, nil
	}
	res, err := c.sess.Execute(ctx, st, params)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, errors.New("wire: session returned a nil Result")
	}
	return res, nil
}

// execSet applies SET / SET LOCAL / SET TRANSACTION / set_config and
// returns the new value.
func (c *conn) execSet(ctx context.Context, st *Statement) (string, error) {
	sc := st.Setting
	switch sc.Name {
	case "transaction":
		if c.tx != txBlock {
			c.notice(&Error{Severity: SeverityWarning, Code: CodeNoActiveSQLTransaction, Message: "SET TRANSACTION can only be used in transaction blocks"})
			return "", nil
		}
		c.applyTxOptions(st.Tx)
		return "", nil
	case "session characteristics":
		o := st.Tx
		if o.Isolation != "" {
			c.settings.set("default_transaction_isolation", o.Isolation, false, "")
		}
		if o.ReadOnly || o.ReadWrite {
			c.settings.set("default_transaction_read_only", map[bool]string{true: "on", false: "off"}[o.ReadOnly], false, "")
		}
		return "", nil
	}
	if sc.Name == "session_authorization" {
		// Only the login role is supported: DEFAULT (or that role) is a no-op.
		if sc.Default || sc.Value == c.user {
			return c.user, nil
		}
		return "", Errorf(CodeFeatureNotSupported, "SET SESSION AUTHORIZATION to another role is not supported")
	}
	if sc.Default {
		return "", c.execReset(ctx, sc.Name)
	}
	cur, _ := c.settings.Get(sc.Name)
	key, value, perr := resolveSettingFrom(sc.Name, sc.Value, cur)
	if perr != nil {
		return "", perr
	}
	if err := c.validateSetting(ctx, key, value); err != nil {
		return "", err
	}
	if sc.Local && c.tx != txBlock {
		if st.Kind == KindSet {
			c.notice(&Error{Severity: SeverityWarning, Code: CodeNoActiveSQLTransaction, Message: "SET LOCAL can only be used in transaction blocks"})
			return value, nil
		}
	}
	c.settings.set(key, value, sc.Local, sc.Name)
	return value, nil
}

func (c *conn) validateSetting(ctx context.Context, key, value string) error {
	if v, ok := c.sess.(SettingValidator); ok {
		return v.ValidateSetting(ctx, key, value)
	}
	return nil
}

func (c *conn) execReset(ctx context.Context, name string) error {
	if name == "all" {
		c.settings.resetAll()
		return nil
	}
	key := strings.ToLower(name)
	if key == "session_authorization" {
		return nil // always the login role (see execSet)
	}
	if d, ok := settingDefs[key]; ok && d.readOnly {
		return Errorf(CodeCantChangeRuntimeParam, "parameter \"%s\" cannot be changed", d.name)
	}
	if _, ok := settingDefs[key]; !ok && !strings.Contains(key, ".") {
		return Errorf(CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	c.settings.reset(key)
	if v, ok := c.settings.Get(key); ok {
		if err := c.validateSetting(ctx, key, v); err != nil {
			return err
		}
	}
	return nil
}

func (c *conn) execShow(name string) (Result, error) {
	if name == "all" {
		r := &staticResult{cols: []Column{textColumn("name"), textColumn("setting"), textColumn("description")}, tag: "SHOW"}
		for _, s := range c.settings.all() {
			r.rows = append(r.rows, []any{s[0], s[1], s[2]})
		}
		return r, nil
	}
	v, ok := c.settings.Get(name)
	if !ok {
		return nil, Errorf(CodeUndefinedObject, "unrecognized configuration parameter \"%s\"", name)
	}
	return &staticResult{cols: []Column{textColumn(c.settings.displayName(strings.ToLower(name)))}, rows: [][]any{{v}}, tag: "SHOW"}, nil
}

// describeUtility is the Description of statements wire executes itself.
func (c *conn) describeUtility(st *Statement) Description {
	switch st.Kind {
	case KindShow:
		if st.Setting.Name == "all" {
			return Description{Columns: []Column{textColumn("name"), textColumn("setting"), textColumn("description")}}
		}
		return Description{Columns: []Column{textColumn(c.settings.displayName(st.Setting.Name))}}
	case KindSetConfig:
		return Description{Columns: []Column{textColumn("set_config")}}
	case KindCurrentSetting:
		return Description{Columns: []Column{textColumn("current_setting")}}
	}
	return Description{}
}

// describe returns a statement's parameter types and columns.
func (c *conn) describe(st *Statement, declared []uint32) (d Description, err error) {
	if st.Kind != KindQuery && st.Kind != KindCopyTo {
		d = c.describeUtility(st)
		d.Params = declared
		return d, nil
	}
	if st.Kind == KindCopyTo {
		return Description{Params: declared}, nil
	}
	ctx, done := c.statementContext()
	defer done()
	defer func() {
		if r := recover(); r != nil {
			c.log.WithField("panic", r).Errorf("wire: Describe panic\n%s", debug.Stack())
			err = Errorf(CodeInternalError, "internal error")
		}
	}()
	d, err = c.sess.Describe(ctx, st, declared)
	if err != nil {
		return d, shiftPosition(toPGError(ctx, err), st.Offset)
	}
	// Declared types win, as in PostgreSQL.
	for i, oid := range declared {
		if i < len(d.Params) && oid != 0 {
			d.Params[i] = oid
		}
	}
	if len(d.Params) < len(declared) {
		d.Params = append(d.Params, declared[len(d.Params):]...)
	}
	return d, nil
}

// rowDescription builds the RowDescription of cols with result formats.
func rowDescription(cols []Column, formats []int16) *pgproto3.RowDescription {
	rd := &pgproto3.RowDescription{Fields: make([]pgproto3.FieldDescription, len(cols))}
	for i, col := range cols {
		size := col.TypeSize
		if size == 0 {
			size = typeSize(col.TypeOID)
		}
		mod := col.TypeMod
		if mod == 0 {
			mod = -1
		}
		rd.Fields[i] = pgproto3.FieldDescription{Name: []byte(col.Name), TableOID: col.TableOID, TableAttributeNumber: col.AttrNum,
			DataTypeOID: col.TypeOID, DataTypeSize: size, TypeModifier: mod, Format: formatFor(formats, i)}
	}
	return rd
}

func formatFor(formats []int16, i int) int16 {
	switch len(formats) {
	case 0:
		return 0
	case 1:
		return formats[0]
	}
	if i < len(formats) {
		return formats[i]
	}
	return 0
}

// typeSize is pg_type.typlen for the builtin types (-1 variable).
func typeSize(oid uint32) int16 {
	switch oid {
	case pgtype.BoolOID, pgtype.QCharOID:
		return 1
	case pgtype.Int2OID:
		return 2
	case pgtype.Int4OID, pgtype.Float4OID, pgtype.OIDOID, pgtype.DateOID:
		return 4
	case pgtype.Int8OID, pgtype.Float8OID, pgtype.TimestampOID, pgtype.TimestamptzOID, pgtype.TimeOID:
		return 8
	case pgtype.UUIDOID, pgtype.IntervalOID:
		return 16
	case pgtype.NameOID:
		return 64
	}
	return -1
}

// rowSource is a Result being streamed, possibly across several Execute
// messages of one portal.
type rowSource struct {
	res     Result
	cols    []Column
	formats []int16
	count   int64 // rows sent by the current stream call
	eof     bool
}

// stream sends up to max rows (0 = all). more reports that the limit was
// reached: as in PostgreSQL, the portal is then suspended without looking
// ahead, and the Execute that finds the end reports only its own rows.
func (c *conn) stream(ctx context.Context, src *rowSource, max int32) (more bool, err error) {
	src.count = 0
	if src.eof {
		return false, nil
	}
	for {
		if max > 0 && src.count == int64(max) {
			return true, nil
		}
		var dr *pgproto3.DataRow
		if tr, ok := src.res.(TextRows); ok && allText(src.formats) {
			buf, ends, ok, err := tr.NextText(ctx, c.rowBuf[:0], c.rowEnds[:0])
			if err != nil {
				return false, err
			}
			if !ok {
				src.eof = true
				return false, nil
			}
			if src.cols == nil || len(ends) != len(src.cols) {
				return false, errors.New("wire: session returned rows that do not fit the statement's columns")
			}
			dr = c.dataRow(buf, ends)
		} else {
			row, ok, err := src.res.Next(ctx)
			if err != nil {
				return false, err
			}
			if !ok {
				src.eof = true
				return false, nil
			}
			if src.cols == nil {
				return false, errors.New("wire: session returned rows for a statement without columns")
			}
			if dr, err = c.encodeRow(src.cols, src.formats, row); err != nil {
				return false, err
			}
		}
		c.send(dr)
		if c.werr != nil {
			return false, c.werr
		}
		src.count++
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
}

// completeTag fills the row count into SELECT/COPY tags.
func completeTag(tag string, hasCols bool, n int64) string {
	switch tag {
	case "":
		if hasCols {
			return "SELECT " + strconv.FormatInt(n, 10)
		}
		return ""
	case "SELECT", "COPY", "FETCH", "MOVE":
		return tag + " " + strconv.FormatInt(n, 10)
	}
	return tag
}

// encodeRow encodes one row in the requested formats. The returned
// message reuses the connection's scratch buffers: send it before the next
// call (send encodes it immediately).
func (c *conn) encodeRow(cols []Column, formats []int16, row []any) (*pgproto3.DataRow, error) {
	if len(row) != len(cols) {
		return nil, fmt.Errorf("wire: row has %d values for %d columns", len(row), len(cols))
	}
	buf := c.rowBuf[:0]
	if buf == nil {
		// a nil slice would encode an empty value as NULL
		buf = make([]byte, 0, 256)
	}
	ends := c.rowEnds[:0]
	for i, v := range row {
		var err error
		var null bool
		buf, null, err = appendValue(c.types, cols[i].TypeOID, formatFor(formats, i), v, buf)
		if err != nil {
			return nil, &Error{Severity: SeverityError, Code: CodeInternalError,
				Message: fmt.Sprintf("could not encode value of column \"%s\"", cols[i].Name), Cause: err}
		}
		if null {
			ends = append(ends, -1)
			continue
		}
		ends = append(ends, len(buf))
	}
	return c.dataRow(buf, ends), nil
}

// dataRow is the DataRow of values laid out in buf as ends says (see
// TextRows), on the connection's scratch message.
func (c *conn) dataRow(buf []byte, ends []int) *pgproto3.DataRow {
	if buf == nil {
		buf = []byte{} // a nil slice would encode an empty value as NULL
	}
	c.rowBuf, c.rowEnds = buf, ends
	if cap(c.row.Values) < len(ends) {
		c.row.Values = make([][]byte, len(ends))
	}
	c.row.Values = c.row.Values[:len(ends)]
	prev := 0
	for i, end := range ends {
		if end < 0 {
			c.row.Values[i] = nil
			continue
		}
		c.row.Values[i] = buf[prev:end:end]
		prev = end
	}
	return &c.row
}

// allText says whether every column travels in text format.
func allText(formats []int16) bool {
	for _, f := range formats {
		if f != 0 {
			return false
		}
	}
	return true
}
