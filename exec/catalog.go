package exec

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pggraph/pggraph/access"
)

// Catalog is what the engine needs to know about user relations. The graph
// catalog implements it; pg_catalog and information_schema are generated
// from it.
type Catalog interface {
	// Schemas lists the user schemas (besides pg_catalog, information_schema).
	Schemas() []string
	// Tables lists the relations of a schema.
	Tables(schema string) []*TableDef
	// Table resolves schema.name (schema "" = search path). nil when missing.
	Table(schema, name string) *TableDef
}

// TableDef describes one relation.
type TableDef struct {
	OID        uint32
	Schema     string
	Name       string
	Columns    []ColumnDef
	PrimaryKey []int // column indexes; empty when none
	// PrimaryKeyName names the primary-key constraint ("" = <table>_pkey).
	PrimaryKeyName string
	Unique         [][]int
	// UniqueNames names Unique's constraints by position ("" or missing =
	// <table>_<cols>_key).
	UniqueNames []string
	ForeignKeys []ForeignKey
	Checks      []CheckDef
	// Indexes are indexes that are not constraints (CREATE [UNIQUE] INDEX).
	Indexes []IndexDef
	// Adjacency lists an edge table's endpoint columns (source, target):
	// the table's source serves key lookups on them (the adjacency
	// indexes every edge table has, see docs/architecture.md) although no
	// catalog index names them.
	Adjacency []int
	// Kind is the graph kind ("node", "edge" or ""), or "view" for a
	// view-like relation (pg_class.relkind 'v').
	Kind    string
	Comment string
	// Options are pg_class.reloptions: the WITH (…) storage parameters
	// and graph.* options as "name=value", in the order pg_dump writes
	// them back (nil: none).
	Options []string
	Source  TableSource
	// View is set for a SQL view (Kind "view"): its stored query, which
	// the binder expands where the view is referenced (view.go).
	View *ViewDef
	// Owner is the owning role (0: the bootstrap superuser, OID 10) and
	// ACL relacl (nil: PostgreSQL's default, the owner holds all); the
	// planner enforces them, exec shows them (pg_class, has_*_privilege)
	// and reports which relations a statement reads (Prepared.Relations).
	Owner uint32
	ACL   *access.TableACL
}

// CheckDef is a CHECK constraint. Expr is the SQL expression without the
// CHECK keyword or outer parentheses, e.g. "price > 0".
type CheckDef struct {
	Name string
	Expr string
}

// IndexDef is a non-constraint index (CREATE [UNIQUE] INDEX name ON t (cols)).
type IndexDef struct {
	Name string
	// Columns are the key columns (column indexes); -1 at a key that is
	// an expression, whose SQL text is Exprs at the same position. Exprs
	// is nil when every key is a column. An expression index serves no
	// key lookups (docs/sql.md); a unique one is enforced on writes.
	Columns []int
	Exprs   []string
	Unique  bool
	// Method is the access method CREATE INDEX named ("" = btree).
	Method string
	// Where is a partial index's predicate (SQL, "" = the whole table).
	Where string
}

// Computed reports an index whose keys are not plain column values of
// every row (an expression or partial index): it serves no key lookups
// and cannot stand for a column's uniqueness.
func (ix IndexDef) Computed() bool { return ix.Exprs != nil || ix.Where != "" }

// RefAction is a foreign key's ON DELETE / ON UPDATE action, encoded as
// pg_constraint.confdeltype spells it. The zero value means NO ACTION.
type RefAction byte

// Referential actions.
const (
	RefNoAction   RefAction = 0
	RefRestrict   RefAction = 'r'
	RefCascade    RefAction = 'c'
	RefSetNull    RefAction = 'n'
	RefSetDefault RefAction = 'd'
)

// code is the pg_constraint letter ('a' for NO ACTION).
func (a RefAction) code() string {
	if a == RefNoAction {
		return "a"
	}
	return string(rune(a))
}

// SQL is the clause text pg_get_constraintdef prints ("" for NO ACTION).
func (a RefAction) SQL() string {
	switch a {
	case RefRestrict:
		return "RESTRICT"
	case RefCascade:
		return "CASCADE"
	case RefSetNull:
		return "SET NULL"
	case RefSetDefault:
		return "SET DEFAULT"
	}
	return ""
}

// ColumnDef describes one column.
type ColumnDef struct {
	Name    string
	Type    Type
	NotNull bool
	Default string // SQL text of the default expression, "" when none
	Comment string
	// Identity is pg_attribute.attidentity: IdentityAlways, IdentityByDefault
	// or 0. An identity column shows no default in the catalogs (its
	// Default, nextval of its sequence, is for the writer only).
	Identity byte
	// OwnedSequence names the sequence this column owns (serial and
	// identity columns; schema as the table's), "" when none: pg_depend
	// records it, so psql prints "Owned by" and pg_get_serial_sequence
	// finds identity sequences.
	OwnedSequence string
	// ACL is the column's attacl (nil: none; column_privileges.go).
	ACL *access.TableACL
	// Domain is the domain (or array of a domain) the column is declared
	// with, 0 when none: Type is then the domain's base type (or an
	// array of it), what the column stores (domains.go).
	Domain uint32
}

// Identity kinds (pg_attribute.attidentity).
const (
	IdentityAlways    byte = 'a'
	IdentityByDefault byte = 'd'
)

// ForeignKey is a REFERENCES constraint.
type ForeignKey struct {
	Name       string
	Columns    []int
	RefSchema  string
	RefTable   string
	RefColumns []string
	OnDelete   RefAction
	OnUpdate   RefAction
}

// TableSource yields the rows of one table version as Arrow record batches
// with their row addresses. Implementations: MemTable (tests, catalogs) and
// the Lance-backed source.
type TableSource interface {
	// Scan streams the table. The engine re-checks every predicate, so
	// Filters are hints a source may use to skip data (never to add rows).
	Scan(ctx context.Context, req ScanRequest, emit func(rec arrow.RecordBatch, addrs []uint64) error) error
	// RowCount is an estimate used for planning.
	RowCount() int64
}

// KeyLookupSource is implemented by sources that can find rows by key
// without a full scan (a primary-key index).
type KeyLookupSource interface {
	TableSource
	// LookupKeys streams the rows whose key column (index into the table's
	// columns) equals one of keys. Keys are of the column's Vec kind.
	LookupKeys(ctx context.Context, column int, keys *Vec, req ScanRequest, emit func(rec arrow.RecordBatch, addrs []uint64) error) error
	// KeyColumns lists the columns LookupKeys accepts.
	KeyColumns() []int
}

// KeyCountSource is implemented by key-lookup sources that can count the
// live rows holding each key from the index alone. A lookup that needs no
// column but the key (a count, a semi join, the last hop of a traversal
// counted) is answered this way without reading any row, as PostgreSQL's
// index-only scans are.
type KeyCountSource interface {
	KeyLookupSource
	// CountKeys returns, for each value of keys (of the column's Vec
	// kind), the number of live rows whose column equals it (NULL: 0).
	CountKeys(ctx context.Context, column int, keys *Vec) ([]int, error)
}

// ScanRequest says what a scan needs.
type ScanRequest struct {
	// Columns to read (indexes into the table's columns), in output order.
	Columns []int
	// Filters are conjunctive predicate hints on single columns.
	Filters []ScanFilter
	// NeedAddrs asks for row addresses; without it a source may pass nil.
	NeedAddrs bool
}

// ScanFilter is "column op constant".
type ScanFilter struct {
	Column int
	Op     string // = < <= > >= <> IS NULL, IS NOT NULL
	Value  *Vec   // one row; nil for IS [NOT] NULL
}

// Overlay is a transaction's pending writes against a table snapshot:
// pending deletes are skipped by row address, pending inserts are appended
// (as full-width records in table column order).
type Overlay struct {
	Deleted func(addr uint64) bool
	Inserts []arrow.RecordBatch
}
