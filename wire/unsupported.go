package wire

import "context"

// NoSQLBackend is the Backend of pgproxy serve until the SQL layer lands:
// connections, authentication, SET/SHOW/RESET, set_config/current_setting
// and transaction control work (wire executes them); every other statement
// fails with 0A000. It never inspects query text to fake an answer.
type NoSQLBackend struct{}

// NewSession implements Backend.
func (NoSQLBackend) NewSession(context.Context, SessionInfo) (Session, error) {
	return noSQLSession{}, nil
}

type noSQLSession struct{}

func errNoSQL() *Error {
	return Errorf(CodeFeatureNotSupported, "SQL statements are not supported yet").
		WithHint("This server answers only session and transaction commands (SET, SHOW, RESET, BEGIN, COMMIT, ROLLBACK).")
}

func (noSQLSession) Parse(_ context.Context, sql string) ([]*Statement, error) {
	return ParseUtility(sql)
}
func (noSQLSession) Describe(context.Context, *Statement, []uint32) (Description, error) {
	return Description{}, errNoSQL()
}
func (noSQLSession) Execute(context.Context, *Statement, []any) (Result, error) {
	return nil, errNoSQL()
}
func (noSQLSession) CopyFrom(context.Context, *Statement, *CopyIn) (int64, error) {
	return 0, errNoSQL()
}
func (noSQLSession) Begin(context.Context, TxOptions) error            { return nil }
func (noSQLSession) Commit(context.Context) error                      { return nil }
func (noSQLSession) Rollback(context.Context) error                    { return nil }
func (noSQLSession) Savepoint(context.Context, string) error           { return nil }
func (noSQLSession) ReleaseSavepoint(context.Context, string) error    { return nil }
func (noSQLSession) RollbackToSavepoint(context.Context, string) error { return nil }
func (noSQLSession) Close() error                                      { return nil }
