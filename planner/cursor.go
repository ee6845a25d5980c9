package planner

import (
	"context"
	"fmt"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/pgerr"
	"github.com/pggraph/pggraph/wire"
)

// DECLARE name [NO] SCROLL CURSOR [WITH HOLD] FOR query, FETCH / MOVE
// (NEXT, PRIOR, FIRST, LAST, ABSOLUTE n, RELATIVE n, n, ALL, FORWARD
// [n|ALL], BACKWARD [n|ALL]) and CLOSE name | ALL. DECLARE runs the query
// and keeps its rows (at most the session's memory limit of them, else
// 53200); the cursor's position follows PostgreSQL's
// portal model: 0 before the first row, n+1 after the last. Cursors
// without HOLD live until their transaction ends; WITH HOLD ones until
// CLOSE or the session's end. pg_cursors does not list them.

// cursor option bits of DeclareCursorStmt.Options (PostgreSQL's
// CURSOR_OPT_*)
const (
	cursorOptNoScroll = 0x4
	cursorOptHold     = 0x20
)

type cursor struct {
	cols     []wire.Column
	rows     [][]any
	pos      int // 0: before the first row; len(rows)+1: after the last
	noScroll bool
	hold     bool
}

// isCursorStmt reports DECLARE CURSOR, FETCH, MOVE and CLOSE.
func isCursorStmt(n *sqlparse.Node) bool {
	return n.GetDeclareCursorStmt() != nil || n.GetFetchStmt() != nil || n.GetClosePortalStmt() != nil
}

// executeCursor runs a cursor statement.
func (s *session) executeCursor(ctx context.Context, st *wire.Statement, p *plan) (wire.Result, error) {
	switch {
	case p.node.GetDeclareCursorStmt() != nil:
		return s.declareCursor(ctx, st, p.node.GetDeclareCursorStmt())
	case p.node.GetFetchStmt() != nil:
		return s.fetchCursor(p.node.GetFetchStmt())
	}
	name := p.node.GetClosePortalStmt().Portalname
	if name == "" {
		clear(s.cursors)
		return &rowsResult{tag: "CLOSE CURSOR ALL"}, nil
	}
	if _, ok := s.cursors[name]; !ok {
		return nil, wire.Errorf(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", name)
	}
	delete(s.cursors, name)
	return &rowsResult{tag: "CLOSE CURSOR"}, nil
}

func (s *session) declareCursor(ctx context.Context, st *wire.Statement, dc *sqlparse.DeclareCursorStmt) (wire.Result, error) {
	hold := dc.Options&cursorOptHold != 0
	if !hold && (s.tx == nil || s.tx.implicit) {
		return nil, wire.Errorf(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, ok := s.cursors[dc.Portalname]; ok {
		return nil, wire.Errorf(pgerr.DuplicateCursor, "cursor \"%s\" already exists", dc.Portalname)
	}
	body, at, ok := afterTopLevel(st.SQL, pg_query.Token_FOR)
	if !ok {
		return nil, wire.Errorf(wire.CodeSyntaxError, "syntax error in DECLARE CURSOR")
	}
	if dc.Query.GetSelectStmt() == nil {
		return nil, notSupported("DECLARE CURSOR for this query form")
	}
	inner, err := wire.ClassifyStatement(body)
	if err != nil {
		return nil, err
	}
	res, err := s.Execute(ctx, inner, nil)
	if err != nil {
		if we, ok := err.(*wire.Error); ok && we.Position > 0 {
			err = we.WithPosition(we.Position + int32(utf8.RuneCountInString(st.SQL[:at])))
		}
		return nil, err
	}
	defer res.Close()
	c := &cursor{cols: res.Columns(), noScroll: dc.Options&cursorOptNoScroll != 0, hold: hold}
	var held int64
	for {
		row, ok, err := res.Next(ctx)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		held += rowBytes(row)
		if s.memLimit > 0 && held > s.memLimit {
			return nil, wire.Errorf(pgerr.OutOfMemory, "out of memory").
				WithDetail(fmt.Sprintf("the rows of cursor \"%s\" exceed the session memory limit (%d bytes)", dc.Portalname, s.memLimit))
		}
		c.rows = append(c.rows, append([]any(nil), row...))
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursor{}
	}
	s.cursors[dc.Portalname] = c
	return &rowsResult{tag: "DECLARE CURSOR"}, nil
}

func (s *session) fetchCursor(fs *sqlparse.FetchStmt) (wire.Result, error) {
	c, ok := s.cursors[fs.Portalname]
	if !ok {
		return nil, wire.Errorf(pgerr.InvalidCursorName, "cursor \"%s\" does not exist", fs.Portalname)
	}
	n := len(c.rows)
	var out [][]any
	count := fs.HowMany
	dir := fs.Direction
	backward := dir == sqlparse.FetchDirection_FETCH_BACKWARD
	if (dir == sqlparse.FetchDirection_FETCH_FORWARD || backward) && count < 0 {
		count, backward = -count, !backward
	}
	switch {
	case dir == sqlparse.FetchDirection_FETCH_ABSOLUTE || dir == sqlparse.FetchDirection_FETCH_RELATIVE:
		target := int64(c.pos) + count
		if dir == sqlparse.FetchDirection_FETCH_ABSOLUTE {
			target = count
			if count < 0 {
				target = int64(n) + 1 + count
			}
		}
		if c.noScroll && target < int64(c.pos) {
			return nil, noScrollError()
		}
		switch {
		case target < 1:
			c.pos = 0
		case target > int64(n):
			c.pos = n + 1
		default:
			c.pos = int(target)
			out = append(out, c.rows[c.pos-1])
		}
	case backward:
		if c.noScroll {
			return nil, noScrollError()
		}
		if count == 0 {
			out = current(c)
			break
		}
		for k := int64(0); k < count && c.pos > 0; k++ {
			c.pos--
			if c.pos >= 1 {
				out = append(out, c.rows[c.pos-1])
			}
		}
	default:
		if count == 0 {
			out = current(c)
			break
		}
		for k := int64(0); k < count && c.pos <= n; k++ {
			c.pos++
			if c.pos <= n {
				out = append(out, c.rows[c.pos-1])
			}
		}
	}
	if fs.Ismove {
		return &rowsResult{tag: fmt.Sprintf("MOVE %d", len(out))}, nil
	}
	return &rowsResult{cols: c.cols, rows: out, tag: fmt.Sprintf("FETCH %d", len(out))}, nil
}

// current is the row the cursor is on (FETCH 0, RELATIVE 0).
func current(c *cursor) [][]any {
	if c.pos >= 1 && c.pos <= len(c.rows) {
		return [][]any{c.rows[c.pos-1]}
	}
	return nil
}

func noScrollError() *wire.Error {
	e := wire.Errorf(pgerr.ObjectNotInPrerequisiteState, "cursor can only scan forward")
	e.Hint = "Declare it with SCROLL option to enable backward scan."
	return e
}

// endTxCursors drops the cursors without HOLD when a transaction ends.
func (s *session) endTxCursors() {
	for name, c := range s.cursors {
		if !c.hold {
			delete(s.cursors, name)
		}
	}
}

// rowBytes estimates the memory a result row holds.
func rowBytes(row []any) int64 {
	n := int64(24 * len(row))
	for _, v := range row {
		switch x := v.(type) {
		case string:
			n += int64(len(x))
		case []byte:
			n += int64(len(x))
		case vecCell:
			if x.v.S != nil {
				n += int64(len(x.v.S[x.i]))
			}
		}
	}
	return n
}
