package exec

import (
	q "github.com/pggraph/pggraph/internal/sqlparse"
)

// Procedures (CREATE PROCEDURE, CALL; docs/sql.md, "Procedures"). CALL
// binds as a one-row query: its row holds the INOUT parameters' values,
// and a procedure without any has no columns (the session sends the row
// only when there are some, and tags the statement CALL). The body runs
// through the session as a function's does (CallFunction), inside the
// statement's transaction, so an autocommit CALL is one graph commit.

// bindCall binds CALL proc(args).
func (b *binder) bindCall(cs *q.CallStmt) (*bound, error) {
	fc := cs.Funccall
	name, err := funcName(fc.Funcname)
	if err != nil {
		return nil, err
	}
	sc := newScope(nil)
	args, err := b.bindUserArgs(fc, sc)
	if err != nil {
		return nil, err
	}
	f, in, ok, err := b.resolveUser(name, args, fc.FuncVariadic, true)
	if err != nil {
		return nil, b.at(err, fc.Location)
	}
	if !ok {
		if _, _, isFn, ferr := b.resolveUser(name, args, fc.FuncVariadic, false); isFn && ferr == nil || funcs[name] != nil {
			return nil, b.at(&Error{Code: CodeWrongObjectType, Message: callSignature(name, args) + " is not a procedure", Hint: "To call a function, use SELECT."}, fc.Location)
		}
		return nil, b.at(noUserFunction(name, args, true), fc.Location)
	}
	if err := b.cat.checkExecute(f); err != nil {
		return nil, err // function_acl.go
	}
	call := b.cat.callFn
	if call == nil {
		return nil, unsupported("CALL outside a session is not supported")
	}
	b.volatile = true
	t := f.ResultType()
	n := &callNode{call: &opExpr{name: name, t: t, args: in, k: userKernel(f, t, call), volatile: true}}
	if fields, ok := RecordFields(t); ok {
		for _, fl := range fields {
			n.cols = append(n.cols, colInfo{name: fl.Name, t: fl.Type})
		}
	}
	return &bound{plan: n, cols: n.cols}, nil
}

// callNode runs a procedure once: one row of its INOUT parameters (no
// columns without any).
type callNode struct {
	call Expr
	cols []colInfo
}

func (c *callNode) columns() []colInfo { return c.cols }

func (c *callNode) run(ec *evalCtx, emit func(*Batch) error) error {
	v, err := c.call.Eval(ec, &Batch{N: 1}, nil)
	if err != nil {
		return err
	}
	if len(c.cols) == 0 {
		return emit(&Batch{N: 1})
	}
	return emit(&Batch{N: 1, Cols: expandRecords(ec, v)})
}
