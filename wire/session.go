package wire

import (
	"context"
	"net"
	"time"
)

// Backend creates one Session per authenticated connection. It is the seam
// the SQL layer plugs into; wire never interprets SQL beyond the utility
// statements described by Kind.
type Backend interface {
	// NewSession is called after authentication. Returning an *Error with
	// code 3D000 rejects an unknown database (branch) with that message.
	NewSession(ctx context.Context, info SessionInfo) (Session, error)
}

// SessionInfo describes the connection a session serves.
type SessionInfo struct {
	User       string
	Database   string            // the graph branch the client asked for
	Startup    map[string]string // every startup parameter as sent (incl. options)
	RemoteAddr net.Addr
	ProcessID  uint32
	TLS        bool
	// Settings is the live session settings store owned by the connection.
	// The session reads it (search_path, graph.branch, TimeZone, ...) and
	// may change it only from inside its own method calls.
	Settings *Settings
	// Notice queues a NoticeResponse (severity NOTICE unless set); call it
	// only from inside a Session method.
	Notice func(*Error)
	// NoticeNow sends a NoticeResponse at once (queued ones before it):
	// progress messages of a long statement. Call it only from inside a
	// Session method.
	NoticeNow func(*Error)
	// Signal is pg_cancel_backend (terminate false) and
	// pg_terminate_backend for the session with process id pid, with
	// PostgreSQL's permission rules (42501) and answer: false with a
	// WARNING when no session has that id, or (terminate with wait > 0)
	// when it has not ended within wait. Call it only from inside a
	// Session method.
	Signal func(pid int32, terminate bool, wait time.Duration) (bool, error)
	// Activity lists the server's sessions as pg_stat_activity shows
	// them (activity.go); safe to call from any goroutine.
	Activity func() []Activity
	// Admit applies the connection rules (hba) to another database name:
	// nil when this connection could have connected to it directly with
	// the authentication it already gave, else a 28000 *Error. The SQL
	// layer calls it for every other way of reaching a branch (SET
	// graph.branch, procedures naming a branch), so a rule that refuses
	// a user on a branch cannot be walked around. nil Admit admits all.
	Admit func(database string) error
}

// Session executes statements for one connection. All methods are called
// from the connection's goroutine, one at a time. Every method gets the
// statement context: it is cancelled by a CancelRequest, statement_timeout
// or a forced shutdown (context.Cause says which), and the session must
// return promptly when it ends.
type Session interface {
	// Parse splits sql into statements and classifies each (Kind). A
	// syntax error is an *Error with code 42601 and a Position. An empty
	// string (or only ";" and comments) yields no statements.
	Parse(ctx context.Context, sql string) ([]*Statement, error)
	// Describe reports the parameter types and result columns of a
	// KindQuery statement. declared holds the OIDs the client sent in Parse
	// (0 = infer). The returned parameter slice has one OID per $n, 0 where
	// the type cannot be inferred. No columns means the statement returns
	// no rows (NoData).
	Describe(ctx context.Context, stmt *Statement, declared []uint32) (Description, error)
	// Execute runs a KindQuery or KindCopyTo statement with decoded
	// parameters (Go values; nil = NULL; string for untyped text). The
	// Result is consumed row by row and may be suspended between Execute
	// messages (portals), so it must stay valid until Close.
	Execute(ctx context.Context, stmt *Statement, params []any) (Result, error)
	// CopyFrom runs a KindCopyFrom statement, reading rows from in. It calls
	// in.Start once it knows the target column count, then in.Next until
	// io.EOF, and returns the number of rows loaded.
	CopyFrom(ctx context.Context, stmt *Statement, in *CopyIn) (int64, error)

	// Transaction hooks. wire keeps the PostgreSQL transaction state machine
	// (idle, implicit, explicit block, failed block) and calls these at its
	// edges: Begin when a statement or BEGIN starts a transaction (Implicit
	// set for the per-statement/per-Sync transaction of autocommit), Commit
	// and Rollback when it ends. An implicit transaction that meets BEGIN
	// becomes explicit without another Begin call (PostgreSQL semantics).
	Begin(ctx context.Context, opts TxOptions) error
	Commit(ctx context.Context) error
	Rollback(ctx context.Context) error
	Savepoint(ctx context.Context, name string) error
	ReleaseSavepoint(ctx context.Context, name string) error
	RollbackToSavepoint(ctx context.Context, name string) error

	// Close releases the session; any open transaction is rolled back.
	Close() error
}

// SettingValidator is an optional interface of a Session: wire calls it
// before a SET (or RESET, or startup option) changes a setting, so the SQL
// layer can reject e.g. an unknown graph.branch. value is the normalized
// new value.
type SettingValidator interface {
	ValidateSetting(ctx context.Context, name, value string) error
}

// ParamDecoder is an optional interface of a Session: wire hands it each
// Bind parameter (after checking text parameters are valid UTF-8) instead
// of decoding it through pgtype, so the SQL layer reads every type it has
// with its own input rules, in text and binary format. The value it
// returns reaches Execute unchanged; an *Error is the Bind's error.
type ParamDecoder interface {
	DecodeParam(oid uint32, format int16, src []byte, index int) (any, error)
}

// ValueEncoder is what a row value may be besides a Go value pgtype
// encodes: it appends its own encoding in format (0 text, 1 binary), so
// the SQL layer's text output and binary send formats reach the client
// unchanged.
type ValueEncoder interface {
	AppendWire(format int16, buf []byte) ([]byte, error)
}

// SQLPreparedStatements is implemented by a Session that runs SQL-level
// PREPARE itself: DEALLOCATE and DISCARD ALL drop its statements too
// (one namespace with the protocol-level ones, as in PostgreSQL).
// TempDiscarder is implemented by sessions with temporary tables:
// DISCARD ALL drops them.
type TempDiscarder interface {
	DiscardTemp()
}

type SQLPreparedStatements interface {
	// DeallocateSQL drops the named statement (every one for ""),
	// reporting whether it existed.
	DeallocateSQL(name string) bool
}

// Description is the shape of a prepared statement. Columns is nil for a
// statement without rows (NoData) and empty, not nil, for rows of no
// columns (SELECT;).
type Description struct {
	Params  []uint32
	Columns []Column
}

// Column describes one result column (RowDescription field).
type Column struct {
	Name     string
	TableOID uint32
	AttrNum  uint16
	TypeOID  uint32
	TypeSize int16 // -1 variable
	TypeMod  int32 // -1 none
}

// Result is a statement's outcome: an optional row stream and a command
// tag. Columns must be stable from the first call on.
type Result interface {
	// Columns describes the rows; nil for statements without rows, empty
	// for rows of no columns.
	Columns() []Column
	// Next returns the next row as Go values (nil = NULL) encodable by
	// pgx/pgtype for the column's OID, or ok=false at the end.
	Next(ctx context.Context) (row []any, ok bool, err error)
	// Tag is the command tag, valid after Next returned ok=false
	// ("SELECT 3", "INSERT 0 1", ...). wire counts rows for SELECT/COPY
	// when Tag returns "SELECT" or "COPY" without a count.
	Tag() string
	Close() error
}

// TextRows is what a Result may offer besides Next: the next row with
// every value already in PostgreSQL's text format, appended to buf, with
// ends[i] the end of value i in buf or -1 for NULL (values start where
// the previous one ended). wire uses it when every column travels as
// text (DataRow in text format, COPY TO in text and csv), so a value is
// neither boxed nor encoded a second time.
type TextRows interface {
	NextText(ctx context.Context, buf []byte, ends []int) ([]byte, []int, bool, error)
}

// Kind classifies a statement for wire. Only KindQuery, KindCopyFrom and
// KindCopyTo reach Session.Execute/CopyFrom; wire executes the others
// itself (calling the transaction hooks where needed).
type Kind int

// Statement kinds.
const (
	KindQuery          Kind = iota // anything the session executes
	KindBegin                      // BEGIN / START TRANSACTION
	KindCommit                     // COMMIT / END (Chain for AND CHAIN)
	KindRollback                   // ROLLBACK / ABORT (Chain for AND CHAIN)
	KindSavepoint                  // SAVEPOINT name
	KindRelease                    // RELEASE [SAVEPOINT] name
	KindRollbackTo                 // ROLLBACK TO [SAVEPOINT] name
	KindSet                        // SET [SESSION|LOCAL] name ..., SET TIME ZONE, SET TRANSACTION ...
	KindReset                      // RESET name | RESET ALL
	KindShow                       // SHOW name | SHOW ALL
	KindCopyFrom                   // COPY ... FROM STDIN
	KindCopyTo                     // COPY ... TO STDOUT
	KindDiscard                    // DISCARD ALL
	KindPrepareTxn                 // PREPARE TRANSACTION etc.: refused with 0A000
	KindSetConfig                  // SELECT set_config('name', 'value', is_local)
	KindCurrentSetting             // SELECT current_setting('name' [, missing_ok])
	KindDeallocate                 // DEALLOCATE [PREPARE] name | ALL (protocol-level prepared statements)
)

var kindNames = [...]string{"query", "begin", "commit", "rollback", "savepoint", "release",
	"rollback to", "set", "reset", "show", "copy from", "copy to", "discard", "prepare transaction", "set_config", "current_setting", "deallocate"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// Statement is one parsed statement. wire fills it for utility statements
// through ParseUtility; the SQL layer may attach anything in Plan.
type Statement struct {
	SQL  string // the statement text (without the trailing semicolon)
	Kind Kind
	// Offset is where SQL starts in the query string it came from, in
	// characters. Errors from Describe/Execute/CopyFrom carry positions
	// relative to SQL; wire adds Offset so the client sees them relative to
	// its whole query string, as PostgreSQL reports them.
	Offset int

	Tx        TxOptions // BEGIN / SET TRANSACTION options
	Chain     bool      // COMMIT/ROLLBACK AND CHAIN
	Savepoint string    // SAVEPOINT / RELEASE / ROLLBACK TO name (lower-cased unless quoted)
	Prepared  string    // DEALLOCATE target; "" means ALL
	Setting   SettingChange
	Copy      CopyOptions
	// Plan is opaque to wire: the session layer's parse tree or plan.
	Plan any
}

// TxOptions are the options of BEGIN / START TRANSACTION.
type TxOptions struct {
	Implicit   bool   // the autocommit transaction of a single statement or Sync
	Isolation  string // "", "serializable", "repeatable read", "read committed", "read uncommitted"
	ReadOnly   bool
	ReadWrite  bool
	Deferrable bool
}

// SettingChange is the payload of SET, RESET and SHOW.
type SettingChange struct {
	Name    string // canonical lower-case name; "all" for SHOW ALL / RESET ALL
	Value   string // normalized value text (list items joined with ", ")
	Local   bool   // SET LOCAL
	Default bool   // SET x TO DEFAULT (same as RESET x)
	// MissingOK is current_setting's second argument: NULL instead of an
	// error for an unknown setting.
	MissingOK bool
}

// CopyFormat is the COPY data format.
type CopyFormat int

// COPY formats.
const (
	CopyText CopyFormat = iota
	CopyCSV
	CopyBinary
)

// CopyOptions are the options of a COPY statement relevant to framing.
type CopyOptions struct {
	Format    CopyFormat
	Delimiter byte   // default tab (text) or comma (csv)
	Null      string // default \N (text) or "" (csv)
	NullSet   bool   // Null was given explicitly (NULL '' in text format)
	Header    bool
	Quote     byte // csv, default "
	Escape    byte // csv, default same as Quote
	Table     string
	Columns   []string
}
