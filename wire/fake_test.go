package wire

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgtype"
)

// fakeBackend is the test-only Session engine: a tiny language of fixed
// statements, enough to drive every protocol path with real clients.
//
//	select 1                     one int4 column "?column?"
//	select gen(N)                N rows: n int8, label text ("row-<n>")
//	select generate_series(1, N) N rows of int4, shaped like PostgreSQL's (differential tests)
//	select echo($1, $2, ...)     one row of the parameters; types from Parse, else unknown (0);
//	                             echo_int infers int8 for its first parameter
//	select ... from t            describes the table (a int8, b text), as pgx CopyFrom asks
//	select sleep(MS)             waits MS ms or until cancelled
//	select boom()                panics
//	select fail()                42P01 with a position
//	insert into t values ($1)    appends $1 to the table, tag INSERT 0 1
//	copy t from stdin ...        loads rows into the table
//	copy (select gen(N)) to stdout
//	select count()               the number of rows in the table
//	select conflict()            makes the next Commit fail with 40001
type fakeBackend struct {
	mu       sync.Mutex
	table    [][]string
	sessions int
	events   []string // transaction hooks as they happen
	rejectDB string
	sleeping atomic.Int32 // statements inside sleep()
	lastInfo SessionInfo
	// pipelined lists the statements executed with InPipeline(ctx)
	pipelined []string
}

func (b *fakeBackend) NewSession(ctx context.Context, info SessionInfo) (Session, error) {
	if b.rejectDB != "" && info.Database == b.rejectDB {
		return nil, Errorf(CodeInvalidCatalogName, "database \"%s\" does not exist", info.Database)
	}
	b.mu.Lock()
	b.sessions++
	b.lastInfo = info
	b.mu.Unlock()
	return &fakeSession{b: b, info: info}, nil
}

func (b *fakeBackend) event(e string) {
	b.mu.Lock()
	b.events = append(b.events, e)
	b.mu.Unlock()
}

func (b *fakeBackend) takeEvents() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.events
	b.events = nil
	return e
}

func (b *fakeBackend) rows() [][]string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([][]string(nil), b.table...)
}

type fakeSession struct {
	b          *fakeBackend
	info       SessionInfo
	pending    [][]string // rows inserted in the current transaction
	failCommit bool
}

type fakeOp struct {
	name  string
	n     int
	label string
}

func (s *fakeSession) Parse(ctx context.Context, sql string) ([]*Statement, error) {
	stmts, err := ParseUtility(sql)
	if err != nil {
		return nil, err
	}
	for _, st := range stmts {
		if st.Kind == KindCopyTo {
			// COPY (query) TO STDOUT runs the inner fake query
			open, end := strings.IndexByte(st.SQL, '('), strings.LastIndexByte(st.SQL, ')')
			if open < 0 || end < open {
				return nil, Errorf(CodeFeatureNotSupported, "fake: only COPY (query) TO STDOUT")
			}
			op, err := parseFake(st.SQL[open+1 : end])
			if err != nil {
				return nil, err
			}
			st.Plan = op
		}
		if st.Kind != KindQuery {
			continue
		}
		op, err := parseFake(st.SQL)
		if err != nil {
			return nil, err
		}
		st.Plan = op
	}
	return stmts, nil
}

func parseFake(sql string) (fakeOp, error) {
	q := strings.ToLower(strings.Join(strings.Fields(sql), " "))
	for _, sp := range [][2]string{{" (", "("}, {"( ", "("}, {" )", ")"}} {
		q = strings.ReplaceAll(q, sp[0], sp[1])
	}
	var n int
	switch {
	case q == "select 1":
		return fakeOp{name: "one"}, nil
	case q == "select boom()":
		return fakeOp{name: "boom"}, nil
	case q == "select fail()":
		return fakeOp{name: "fail"}, nil
	case q == "select count()":
		return fakeOp{name: "count"}, nil
	case q == "select notice()":
		return fakeOp{name: "notice"}, nil
	case q == "select $1::text":
		return fakeOp{name: "cast_text", n: 1}, nil
	case q == "select conflict()":
		return fakeOp{name: "conflict"}, nil
	case strings.HasSuffix(q, `from "t"`) || strings.HasSuffix(q, " from t"):
		return fakeOp{name: "table"}, nil
	case strings.Contains(q, " from "):
		// an unknown relation fails when the statement is analyzed
		// (Describe) or executed, not when the string is split
		return fakeOp{name: "missing", label: strings.Trim(q[strings.LastIndex(q, " ")+1:], `"`)}, nil
	case strings.HasPrefix(q, "insert into t values("):
		return fakeOp{name: "insert", n: strings.Count(q, "$")}, nil
	case strings.HasPrefix(q, "select echo_int(") || strings.HasPrefix(q, "select echo("):
		return fakeOp{name: q[7:strings.IndexByte(q, '(')], n: strings.Count(q, "$")}, nil
	}
	if _, err := fmt.Sscanf(strings.ReplaceAll(q, " ", ""), "selectgenerate_series(1,%d)", &n); err == nil {
		return fakeOp{name: "series", n: n}, nil
	}
	if _, err := fmt.Sscanf(q, "select gen(%d)", &n); err == nil {
		return fakeOp{name: "gen", n: n}, nil
	}
	if _, err := fmt.Sscanf(q, "select textgen(%d)", &n); err == nil {
		return fakeOp{name: "textgen", n: n}, nil
	}
	if _, err := fmt.Sscanf(q, "select sleep(%d)", &n); err == nil {
		return fakeOp{name: "sleep", n: n}, nil
	}
	if _, err := fmt.Sscanf(q, "select big(%d)", &n); err == nil {
		return fakeOp{name: "big", n: n}, nil
	}
	return fakeOp{}, &Error{Code: CodeSyntaxError, Message: "syntax error at or near \"" + strings.Fields(sql)[0] + "\"", Position: 1}
}

// seriesColumns mimic PostgreSQL's generate_series(int, int) so the same
// statement can run against the fake and a real server.
var seriesColumns = []Column{{Name: "generate_series", TypeOID: pgtype.Int4OID, TypeSize: 4, TypeMod: -1}}

// missingRelation is 42P01 positioned at the name inside the statement.
func missingRelation(st *Statement, name string) error {
	e := Errorf("42P01", "relation \"%s\" does not exist", name)
	lower := strings.ToLower(st.SQL)
	if i := strings.LastIndex(lower, name); i >= 0 {
		e.Position = int32(utf8.RuneCountInString(lower[:i])) + 1
	}
	return e
}

var genColumns = []Column{
	{Name: "n", TypeOID: pgtype.Int8OID, TypeSize: 8, TypeMod: -1},
	{Name: "label", TypeOID: pgtype.TextOID, TypeSize: -1, TypeMod: -1},
}

func (s *fakeSession) Describe(ctx context.Context, st *Statement, declared []uint32) (Description, error) {
	op := st.Plan.(fakeOp)
	switch op.name {
	case "missing":
		return Description{}, missingRelation(st, op.label)
	case "one":
		return Description{Columns: []Column{{Name: "?column?", TypeOID: pgtype.Int4OID, TypeSize: 4, TypeMod: -1}}}, nil
	case "gen", "textgen":
		return Description{Columns: genColumns}, nil
	case "series":
		return Description{Columns: seriesColumns}, nil
	case "table":
		return Description{Columns: []Column{{Name: "a", TypeOID: pgtype.Int8OID}, {Name: "b", TypeOID: pgtype.TextOID}}}, nil
	case "sleep", "boom", "fail", "count", "notice", "conflict":
		return Description{Columns: []Column{{Name: op.name, TypeOID: pgtype.Int8OID}}}, nil
	case "big":
		return Description{Columns: []Column{{Name: "big", TypeOID: pgtype.TextOID}}}, nil
	case "insert":
		return Description{Params: make([]uint32, op.n)}, nil
	case "cast_text":
		return Description{Params: []uint32{pgtype.TextOID}, Columns: []Column{{Name: "text", TypeOID: pgtype.TextOID}}}, nil
	case "echo", "echo_int":
		d := Description{Params: make([]uint32, op.n)}
		for i := range d.Params {
			t := uint32(0)
			if op.name == "echo_int" && i == 0 {
				t = pgtype.Int8OID
			}
			if i < len(declared) && declared[i] != 0 {
				t = declared[i]
			}
			d.Params[i] = t
			typ := t
			if typ == 0 {
				typ = pgtype.TextOID
			}
			d.Columns = append(d.Columns, Column{Name: fmt.Sprintf("p%d", i+1), TypeOID: typ})
		}
		return d, nil
	}
	return Description{}, fmt.Errorf("fake: no description for %s", op.name)
}

func (s *fakeSession) Execute(ctx context.Context, st *Statement, params []any) (Result, error) {
	op := st.Plan.(fakeOp)
	if InPipeline(ctx) {
		s.b.mu.Lock()
		s.b.pipelined = append(s.b.pipelined, st.SQL)
		s.b.mu.Unlock()
	}
	one := func(name string, oid uint32, v any) Result {
		return &staticResult{cols: []Column{{Name: name, TypeOID: oid}}, rows: [][]any{{v}}}
	}
	switch op.name {
	case "missing":
		return nil, missingRelation(st, op.label)
	case "one":
		return &staticResult{cols: []Column{{Name: "?column?", TypeOID: pgtype.Int4OID}}, rows: [][]any{{int32(1)}}, tag: "SELECT"}, nil
	case "gen":
		return &genResult{n: op.n}, nil
	case "textgen":
		return &textGenResult{genResult{n: op.n}}, nil
	case "series":
		rows := make([][]any, op.n)
		for i := range rows {
			rows[i] = []any{int32(i + 1)}
		}
		return &staticResult{cols: seriesColumns, rows: rows, tag: "SELECT"}, nil
	case "big":
		return &bigResult{n: op.n}, nil
	case "sleep":
		s.b.sleeping.Add(1)
		defer s.b.sleeping.Add(-1)
		select {
		case <-time.After(time.Duration(op.n) * time.Millisecond):
			return one("sleep", pgtype.Int8OID, int64(op.n)), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	case "boom":
		panic("fake: boom")
	case "fail":
		return nil, &Error{Code: "42P01", Message: "relation \"nope\" does not exist", Position: 15}
	case "count":
		return one("count", pgtype.Int8OID, int64(len(s.b.rows())+len(s.pending))), nil
	case "cast_text":
		return one("text", pgtype.TextOID, params[0]), nil
	case "conflict":
		s.failCommit = true // the next Commit reports a serialization failure
		return one("conflict", pgtype.Int8OID, int64(1)), nil
	case "notice":
		s.info.Notice(&Error{Code: CodeWarning, Severity: SeverityWarning, Message: "from the session", Hint: "a hint"})
		s.info.Notice(&Error{Message: "plain notice"})
		return one("notice", pgtype.Int8OID, int64(1)), nil
	case "insert":
		row := make([]string, len(params))
		for i, p := range params {
			row[i] = fmt.Sprint(p)
		}
		s.pending = append(s.pending, row)
		return NewResult(nil, nil, "INSERT 0 1"), nil
	case "echo", "echo_int":
		d, _ := s.Describe(ctx, st, nil)
		if op.n == 0 || len(params) < op.n {
			return nil, Errorf(CodeSyntaxError, "fake: echo needs its parameters")
		}
		params = params[:op.n]
		r := &staticResult{cols: d.Columns, rows: [][]any{params}}
		for i, p := range params {
			if _, ok := p.(string); ok {
				r.cols[i].TypeOID = pgtype.TextOID
			} else if _, ok := p.(int64); ok {
				r.cols[i].TypeOID = pgtype.Int8OID
			}
		}
		return r, nil
	}
	return nil, fmt.Errorf("fake: cannot execute %s", op.name)
}

func (s *fakeSession) CopyFrom(ctx context.Context, st *Statement, in *CopyIn) (int64, error) {
	if st.Copy.Table != "t" {
		return 0, Errorf("42P01", "relation \"%s\" does not exist", st.Copy.Table)
	}
	if err := in.Start(2); err != nil {
		return 0, err
	}
	var n int64
	for {
		row, err := in.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		rec := make([]string, len(row))
		for i, f := range row {
			if f == nil {
				rec[i] = "NULL"
			} else if in.Options().Format == CopyBinary && len(f) == 8 {
				rec[i] = strconv.FormatInt(int64(be64(f)), 10)
			} else {
				rec[i] = string(f)
			}
		}
		if len(rec) > 0 && rec[0] == "bad" {
			return n, Errorf(CodeInvalidTextRepresent, "invalid input syntax for type bigint: \"bad\"")
		}
		s.pending = append(s.pending, rec)
		n++
	}
}

func be64(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

func (s *fakeSession) Begin(ctx context.Context, o TxOptions) error {
	if o.Implicit {
		s.b.event("begin-implicit")
	} else {
		s.b.event("begin")
	}
	return nil
}

func (s *fakeSession) Commit(ctx context.Context) error {
	if s.failCommit {
		s.failCommit = false
		s.pending = nil
		s.b.event("commit-failed")
		return Errorf("40001", "could not serialize access due to concurrent update").WithDetail("a read table changed")
	}
	s.b.event("commit")
	s.b.mu.Lock()
	s.b.table = append(s.b.table, s.pending...)
	s.b.mu.Unlock()
	s.pending = nil
	return nil
}

func (s *fakeSession) Rollback(ctx context.Context) error {
	s.b.event("rollback")
	s.pending = nil
	return nil
}

func (s *fakeSession) Savepoint(ctx context.Context, name string) error {
	s.b.event("savepoint " + name)
	return nil
}

func (s *fakeSession) ReleaseSavepoint(ctx context.Context, name string) error {
	s.b.event("release " + name)
	return nil
}

func (s *fakeSession) RollbackToSavepoint(ctx context.Context, name string) error {
	s.b.event("rollback to " + name)
	return nil
}

func (s *fakeSession) ValidateSetting(ctx context.Context, name, value string) error {
	if name == "graph.branch" && value == "missing" {
		return Errorf(CodeInvalidCatalogName, "branch \"%s\" does not exist", value)
	}
	return nil
}

func (s *fakeSession) Close() error { return nil }

// waitSleeping waits until a statement is inside sleep().
func (b *fakeBackend) waitSleeping(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for b.sleeping.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no statement reached sleep()")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// genResult yields n rows lazily (a row iterator, so portals can suspend).
type genResult struct {
	n, i int
}

func (r *genResult) Columns() []Column { return genColumns }
func (r *genResult) Next(ctx context.Context) ([]any, bool, error) {
	if r.i >= r.n {
		return nil, false, nil
	}
	r.i++
	return []any{int64(r.i), "row-" + strconv.Itoa(r.i)}, true, nil
}
func (r *genResult) Tag() string  { return "SELECT" }
func (r *genResult) Close() error { return nil }

// textGenResult is genResult that also offers its rows as text
// (wire.TextRows), different from what Next says, so a test sees which
// path wire took: "t<n>" and a label that is NULL every third row.
type textGenResult struct{ genResult }

func (r *textGenResult) NextText(ctx context.Context, buf []byte, ends []int) ([]byte, []int, bool, error) {
	if r.i >= r.n {
		return buf, ends, false, nil
	}
	r.i++
	buf = append(buf, "t"+strconv.Itoa(r.i)...)
	ends = append(ends, len(buf))
	if r.i%3 == 0 {
		return buf, append(ends, -1), true, nil
	}
	buf = append(buf, "text\trow "+strconv.Itoa(r.i)...)
	return buf, append(ends, len(buf)), true, nil
}

// bigResult yields n rows of 1 KiB text.
type bigResult struct{ n, i int }

func (r *bigResult) Columns() []Column { return []Column{{Name: "big", TypeOID: pgtype.TextOID}} }
func (r *bigResult) Next(ctx context.Context) ([]any, bool, error) {
	if r.i >= r.n {
		return nil, false, nil
	}
	r.i++
	return []any{strings.Repeat("x", 1024)}, true, nil
}
func (r *bigResult) Tag() string  { return "SELECT" }
func (r *bigResult) Close() error { return nil }
