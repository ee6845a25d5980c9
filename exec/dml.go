package exec

import (
	"context"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pggraph/pggraph/internal/sqlparse"
)

// Predicate evaluation for DML: the same binder and kernels as SELECT,
// applied to a table's rows with their row addresses (DELETE/UPDATE
// WHERE), or to candidate rows before they are written (CHECK).

// bindTableExprSQL is bindTableExpr for an expression given as SQL text
// (a stored CHECK or DEFAULT definition).
func (e *Engine) bindTableExprSQL(sess *Session, td *TableDef, exprSQL string, declared []uint32) (Expr, *binder, error) {
	tree, err := sqlparse.Parse("SELECT " + exprSQL)
	if err != nil {
		return nil, nil, &Error{Code: CodeSyntaxError, Message: err.Error()}
	}
	if len(tree.Stmts) != 1 || tree.Stmts[0].Stmt.GetSelectStmt() == nil || len(tree.Stmts[0].Stmt.GetSelectStmt().TargetList) != 1 {
		return nil, nil, errf(CodeSyntaxError, "expected one expression: %s", exprSQL)
	}
	return e.bindTableExpr(sess, td, tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val, declared)
}

// bindTableExpr binds an expression's parse tree over one table's
// columns (the tree is only read). Its errors carry no position: the
// tree's locations are in text exec does not have.
func (e *Engine) bindTableExpr(sess *Session, td *TableDef, node *sqlparse.Node, declared []uint32) (Expr, *binder, error) {
	if node == nil {
		return nil, nil, errf(CodeSyntaxError, "expected one expression")
	}
	cs := &catalogSet{user: e.Catalog, loc: time.UTC}
	if sess != nil {
		cs.db, cs.user_, cs.setting = sess.Database, sess.User, sess.Setting
		cs.style = sess.DateStyle
		cs.rolesFn, cs.sessUser = sess.Roles, sess.sessionUser()
		cs.callFn = sess.CallFunction
	}
	b := &binder{cat: cs}
	for _, oid := range declared {
		t := Type{OID: oid, Mod: -1}
		if oid == 0 {
			t = TUnknown
		}
		b.params = append(b.params, &t)
	}
	sc := newScope(nil)
	for i, c := range td.Columns {
		sc.cols = append(sc.cols, scopeCol{table: td.Name, name: c.Name, t: c.Type, idx: i})
	}
	sc.aliases[td.Name] = true
	ex, err := b.bindExprCtx(node, sc, "WHERE")
	if err != nil {
		return nil, nil, err
	}
	return ex, b, nil
}

func (e *Engine) evalSetup(ctx context.Context, sess *Session, b *binder, params []any) (*evalCtx, error) {
	if sess == nil {
		sess = &Session{}
	}
	loc := sess.TimeZone
	if loc == nil {
		loc = time.UTC
	}
	rc := &runCtx{ctx: ctx, loc: loc, style: sess.DateStyle, recursion: e.RecursionLimit, user: sess.User, sessionUser: sess.sessionUser(), rolesFn: sess.Roles,
		database: sess.Database, pid: sess.PID, settings: sess.Setting, now: time.Now(),
		seqs: sess.Sequences, advisory: sess.Advisory, signal: sess.Signal, rowLocks: sess.RowLocks}
	if e.MemoryLimit > 0 {
		rc.budget = &memBudget{limit: e.MemoryLimit}
	}
	ec := &evalCtx{ctx: ctx, loc: loc, run: rc}
	if len(params) < len(b.params) {
		return nil, &Error{Code: CodeProtocolViolation, Message: fmt.Sprintf("%d parameters supplied, %d required", len(params), len(b.params))}
	}
	for i, t := range b.params {
		v, err := paramVec(params[i], *t, loc, sess.DateStyle)
		if err != nil {
			return nil, err
		}
		ec.params = append(ec.params, v)
	}
	return ec, nil
}

// MatchAddresses returns the row addresses of td's rows (through its
// source, so a transaction overlay applies) for which the boolean
// expression where (a parse tree, e.g. a DELETE's WHERE clause) is true.
func (e *Engine) MatchAddresses(ctx context.Context, sess *Session, td *TableDef, where *sqlparse.Node, params []any) ([]uint64, error) {
	pred, b, err := e.bindTableExpr(sess, td, where, nil)
	if err != nil {
		return nil, err
	}
	if pred, err = b.coerceBool(pred, "WHERE"); err != nil {
		return nil, err
	}
	ec, err := e.evalSetup(ctx, sess, b, params)
	if err != nil {
		return nil, err
	}
	cols := make([]int, len(td.Columns))
	for i := range cols {
		cols[i] = i
	}
	var out []uint64
	err = td.Source.Scan(ctx, ScanRequest{Columns: cols, NeedAddrs: true}, func(rec arrow.RecordBatch, addrs []uint64) error {
		if err := checkCancel(ctx); err != nil {
			return err
		}
		b, err := batchFromRecord(rec, td.Columns)
		if err != nil {
			return err
		}
		v, err := pred.Eval(ec, b, nil)
		if err != nil {
			return err
		}
		for i := 0; i < b.N; i++ {
			if !v.IsNull(i) && v.B[i] {
				out = append(out, addrs[i])
			}
		}
		return nil
	})
	if err != nil && Code(err) == "" && ctxErr(err) {
		return nil, checkCancel(ctx)
	}
	return out, err
}

// CheckViolation evaluates a CHECK constraint expression (its parse
// tree) over candidate rows (a record in table column order) and returns
// the index of the first row for which it is false (NULL passes, as in
// SQL), or -1.
func (e *Engine) CheckViolation(ctx context.Context, sess *Session, td *TableDef, check *sqlparse.Node, rows arrow.RecordBatch) (int, error) {
	pred, b, err := e.bindTableExpr(sess, td, check, nil)
	if err != nil {
		return -1, err
	}
	if pred, err = b.coerceBool(pred, "CHECK"); err != nil {
		return -1, err
	}
	ec, err := e.evalSetup(ctx, sess, b, nil)
	if err != nil {
		return -1, err
	}
	bt, err := batchFromRecord(rows, td.Columns)
	if err != nil {
		return -1, err
	}
	v, err := pred.Eval(ec, bt, nil)
	if err != nil {
		return -1, err
	}
	for i := 0; i < bt.N; i++ {
		if !v.IsNull(i) && !v.B[i] {
			return i, nil
		}
	}
	return -1, nil
}

func batchFromRecord(rec arrow.RecordBatch, cols []ColumnDef) (*Batch, error) {
	if int(rec.NumCols()) != len(cols) {
		return nil, ErrSourceShape
	}
	b := &Batch{N: int(rec.NumRows()), Cols: make([]*Vec, len(cols))}
	for i, c := range cols {
		v, err := vecFromArrow(rec.Column(i), c.Type)
		if err != nil {
			return nil, err
		}
		b.Cols[i] = v
	}
	return b, nil
}
