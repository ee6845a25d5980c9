package planner

// Isolation levels (docs/architecture.md, "Isolation and row-level
// concurrency"). READ UNCOMMITTED is READ COMMITTED, as in PostgreSQL.
const (
	isoReadCommitted  = "read committed"
	isoRepeatableRead = "repeatable read"
	isoSerializable   = "serializable"
)

// isolation is the level of the session's current transaction:
// transaction_isolation (BEGIN ISOLATION LEVEL, SET TRANSACTION, or
// default_transaction_isolation), read when the transaction pins its
// first snapshot — PostgreSQL also fixes the level at the first query.
func (s *session) isolation() string {
	if s.info.Settings == nil {
		return isoReadCommitted
	}
	v, _ := s.info.Settings.Get("transaction_isolation")
	switch v {
	case isoRepeatableRead, isoSerializable:
		return v
	}
	return isoReadCommitted
}

func (tx *txState) serializable() bool { return tx.iso == isoSerializable }

// perStatement reports a READ COMMITTED transaction, whose statements
// each read the latest committed state.
func (tx *txState) perStatement() bool { return tx.iso == isoReadCommitted }

// statementSnapshot starts a statement of a READ COMMITTED transaction
// on the latest committed state: the next txBase pins a new head. A
// transaction with pending DDL, truncations or rewrites keeps its
// snapshot (its catalog changes are planned against it).
func (s *session) statementSnapshot() {
	if tx := s.tx; tx != nil && !tx.implicit && tx.base != nil && tx.perStatement() && tx.pend.rowLevel() {
		tx.base = nil
	}
}
