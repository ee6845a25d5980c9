package wire

import (
	"context"
)

// txState is PostgreSQL's transaction block state as the client sees it.
type txState int

const (
	txIdle     txState = iota // no transaction
	txImplicit                // autocommit transaction of a statement or pipeline (ends at Sync / end of Query)
	txBlock                   // inside BEGIN ... COMMIT
	txFailed                  // inside a block after an error: only ROLLBACK (TO) or COMMIT work
)

// status is the ReadyForQuery indicator.
func (t txState) status() byte {
	switch t {
	case txBlock:
		return 'T'
	case txFailed:
		return 'E'
	}
	return 'I'
}

func errAborted() *Error {
	return Errorf(CodeInFailedSQLTransaction, "current transaction is aborted, commands ignored until end of transaction block")
}

// defaultTxOptions reads the default_transaction_* settings.
func (c *conn) defaultTxOptions() TxOptions {
	return c.memo().txDefaults
}

// ensureTx starts the implicit transaction for a statement outside a block.
func (c *conn) ensureTx(ctx context.Context) error {
	if c.tx != txIdle {
		return nil
	}
	opts := c.defaultTxOptions()
	opts.Implicit = true
	if err := c.sess.Begin(ctx, opts); err != nil {
		return err
	}
	c.settings.beginTx()
	c.tx = txImplicit
	return nil
}

// txFailed moves the state after a statement error: an implicit
// transaction is rolled back, a block becomes failed.
func (c *conn) txFailed() {
	switch c.tx {
	case txImplicit:
		c.endTx(false)
	case txBlock:
		c.tx = txFailed
	}
}

// endTx commits or rolls back the current transaction and returns to idle.
// A failed commit rolls back and reports the session's error.
func (c *conn) endTx(commit bool) error {
	if c.tx == txIdle {
		return nil
	}
	ctx, done := c.statementContext()
	defer done()
	var err error
	if commit && c.tx != txFailed {
		err = c.sess.Commit(ctx)
	} else {
		err = c.sess.Rollback(ctx)
		if err != nil {
			c.log.WithError(err).Warn("wire: rollback failed")
			err = nil
		}
	}
	committed := commit && err == nil && c.tx != txFailed
	c.settings.endTx(committed)
	c.noteTransactionEnd(committed)
	c.tx = txIdle
	c.closePortals()
	if err != nil {
		return toPGError(ctx, err)
	}
	return nil
}

// endImplicit ends the implicit transaction at Sync or end of a Query.
func (c *conn) endImplicit() error {
	if c.tx != txImplicit {
		return nil
	}
	return c.endTx(true)
}

// errNoSavepoint is PostgreSQL's error for an unknown savepoint: wire
// keeps the savepoint list, so sessions only see names that exist.
func errNoSavepoint(name string) *Error {
	return Errorf(CodeSavepointException, "savepoint \"%s\" does not exist", name)
}

func warnNoTx() *Error {
	return &Error{Severity: SeverityWarning, Code: CodeNoActiveSQLTransaction, Message: "there is no transaction in progress"}
}

// execTxControl runs BEGIN/COMMIT/ROLLBACK/SAVEPOINT/RELEASE/ROLLBACK TO
// and returns the command tag.
func (c *conn) execTxControl(ctx context.Context, st *Statement) (string, error) {
	switch st.Kind {
	case KindBegin:
		switch c.tx {
		case txFailed:
			return "", errAborted()
		case txBlock:
			c.notice(&Error{Severity: SeverityWarning, Code: CodeActiveSQLTransaction, Message: "there is already a transaction in progress"})
		case txImplicit:
			c.tx = txBlock // the implicit transaction becomes the block
			c.txOpts = st.Tx
			c.applyTxOptions(st.Tx)
		case txIdle:
			opts := c.mergeTxOptions(st.Tx)
			if err := c.sess.Begin(ctx, opts); err != nil {
				return "", err
			}
			c.settings.beginTx()
			c.tx, c.txOpts = txBlock, st.Tx
			c.applyTxOptions(st.Tx)
		}
		if firstKeyword(st.SQL) == "start" {
			return "START TRANSACTION", nil
		}
		return "BEGIN", nil
	case KindCommit, KindRollback:
		commit := st.Kind == KindCommit
		tag := "COMMIT"
		if !commit || c.tx == txFailed {
			tag = "ROLLBACK"
		}
		if c.tx == txIdle || c.tx == txImplicit {
			if st.Chain {
				return "", Errorf(CodeNoActiveSQLTransaction, "%s AND CHAIN can only be used in transaction blocks", map[bool]string{true: "COMMIT", false: "ROLLBACK"}[commit])
			}
			c.notice(warnNoTx())
			if err := c.endTx(commit); err != nil {
				return "", err
			}
			return tag, nil
		}
		opts := c.txOpts
		if err := c.endTx(commit); err != nil {
			return "", err
		}
		if st.Chain {
			if _, err := c.execTxControl(ctx, &Statement{Kind: KindBegin, Tx: opts}); err != nil {
				return "", err
			}
		}
		return tag, nil
	case KindSavepoint, KindRelease:
		name := map[Kind]string{KindSavepoint: "SAVEPOINT", KindRelease: "RELEASE SAVEPOINT"}[st.Kind]
		switch c.tx {
		case txFailed:
			return "", errAborted()
		case txBlock:
		default:
			return "", Errorf(CodeNoActiveSQLTransaction, "%s can only be used in transaction blocks", name)
		}
		if st.Kind == KindRelease && c.settings.findSave(st.Savepoint) < 0 {
			return "", errNoSavepoint(st.Savepoint)
		}
		var err error
		if st.Kind == KindSavepoint {
			err = c.sess.Savepoint(ctx, st.Savepoint)
		} else {
			err = c.sess.ReleaseSavepoint(ctx, st.Savepoint)
		}
		if err != nil {
			return "", err
		}
		if st.Kind == KindSavepoint {
			c.settings.savepoint(st.Savepoint)
			return "SAVEPOINT", nil
		}
		c.settings.release(st.Savepoint)
		return "RELEASE", nil
	case KindRollbackTo:
		if c.tx != txBlock && c.tx != txFailed {
			return "", Errorf(CodeNoActiveSQLTransaction, "ROLLBACK TO SAVEPOINT can only be used in transaction blocks")
		}
		if c.settings.findSave(st.Savepoint) < 0 {
			return "", errNoSavepoint(st.Savepoint)
		}
		if err := c.sess.RollbackToSavepoint(ctx, st.Savepoint); err != nil {
			return "", err
		}
		c.settings.rollbackTo(st.Savepoint)
		c.tx = txBlock
		return "ROLLBACK", nil
	}
	return "", Errorf(CodeInternalError, "not a transaction statement")
}

func (c *conn) mergeTxOptions(o TxOptions) TxOptions {
	d := c.defaultTxOptions()
	if o.Isolation != "" {
		d.Isolation = o.Isolation
	}
	if o.ReadOnly {
		d.ReadOnly = true
	}
	if o.ReadWrite {
		d.ReadOnly, d.ReadWrite = false, true
	}
	if o.Deferrable {
		d.Deferrable = true
	}
	return d
}

// applyTxOptions mirrors BEGIN options into the transaction_* settings.
func (c *conn) applyTxOptions(o TxOptions) {
	m := c.mergeTxOptions(o)
	c.settings.set("transaction_isolation", m.Isolation, true, "")
	ro := "off"
	if m.ReadOnly {
		ro = "on"
	}
	c.settings.set("transaction_read_only", ro, true, "")
}

// firstKeyword is the first token of sql, lower-cased ("" if none).
func firstKeyword(sql string) string {
	toks, _ := lex(sql)
	if len(toks) == 0 || toks[0].kind != tokIdent {
		return ""
	}
	return toks[0].text
}
