package ddl

import (
	"strings"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/pgerr"
)

// Change is one planned catalog effect. Plan returns at least one change
// per statement; the first change's Tag is the statement's command tag.
type Change interface {
	// Tag is the command tag PostgreSQL answers ("CREATE TABLE", …).
	Tag() string
	// Notices are the NOTICE messages PostgreSQL sends for the statement.
	Notices() []*pgerr.Error
}

// notes carries the notices of a change.
type notes struct {
	Notice []*pgerr.Error `json:"-"`
}

func (n notes) Notices() []*pgerr.Error { return n.Notice }

// CreateTable registers a new table (or a standalone sequence, Meta.Relkind
// = RelSequence, or a view, RelView). Def is complete: column ids are 0 (the adapter allocates
// them), Def.Extra is Meta encoded.
type CreateTable struct {
	notes
	Name string          `json:"name"`
	Kind graph.TableKind `json:"kind"`
	Def  graph.TableDef  `json:"def"`
	Meta TableMeta       `json:"meta"`
}

// Tag implements Change.
func (c *CreateTable) Tag() string {
	switch c.Meta.Relkind {
	case RelSequence:
		return "CREATE SEQUENCE"
	case RelView:
		return "CREATE VIEW"
	case RelEnum:
		return "CREATE TYPE"
	case RelDomain:
		return "CREATE DOMAIN"
	case RelExtension:
		return "CREATE EXTENSION"
	case RelPropGraph:
		return "CREATE PROPERTY GRAPH"
	case RelFunction:
		if c.Meta.Function != nil && c.Meta.Function.Proc {
			return "CREATE PROCEDURE"
		}
		return "CREATE FUNCTION"
	case RelSchema:
		return "CREATE SCHEMA"
	}
	return "CREATE TABLE"
}

// DropTable tombstones a table (or a standalone sequence). Cascade says the
// statement asked for CASCADE; dependent objects it removes come as their
// own changes (AlterTable dropping a foreign key, DropTable of an edge
// table whose endpoint referenced the dropped node table).
type DropTable struct {
	notes
	Name       string `json:"name"`
	Cascade    bool   `json:"cascade,omitempty"`
	CommandTag string `json:"tag"` // "DROP TABLE", "DROP SEQUENCE" or "DROP VIEW"
}

// Tag implements Change.
func (c *DropTable) Tag() string { return c.CommandTag }

// AlterTable replaces an existing table's definition. Def is the complete
// new definition (Extra = Meta encoded). Columns that survive keep their
// ids; new columns have id 0 (the adapter allocates them).
//
// Rewrite nil: catalog-only (Stage.Redefine). Rewrite set: the physical
// Lance schema changes and the table is rewritten into a new incarnation
// whose rows are computed by Rewrite from the current rows
// (Stage.ReplaceTable).
//
// Validate lists what must hold on the existing rows (after the rewrite)
// for the change to be accepted; the session checks them with exec.
type AlterTable struct {
	notes
	Name     string         `json:"name"`
	NewName  string         `json:"new_name,omitempty"`
	Def      graph.TableDef `json:"def"`
	Meta     TableMeta      `json:"meta"`
	Rewrite  *RowRewrite    `json:"rewrite,omitempty"`
	Validate []Validation   `json:"validate,omitempty"`
	// CommandTag is the statement's tag: "ALTER TABLE", "CREATE INDEX",
	// "DROP INDEX", "COMMENT", "ALTER SEQUENCE", …
	CommandTag string `json:"tag"`
}

// Tag implements Change.
func (c *AlterTable) Tag() string { return c.CommandTag }

// RowRewrite computes the rows of the new incarnation: Exprs[i] is the SQL
// expression, over the old table's columns, giving the new definition's
// column i (a copied column is its quoted name, a new one its DEFAULT or
// NULL, a retyped one a cast or the USING expression).
type RowRewrite struct {
	Exprs []string `json:"exprs"`
}

// Select is the query producing the new rows from table.
func (r RowRewrite) Select(table string) string {
	return "SELECT " + strings.Join(r.Exprs, ", ") + " FROM " + quoteIdent(table)
}

// Validation kinds.
const (
	ValidateNotNull    = "not_null"
	ValidateCheck      = "check"
	ValidateUnique     = "unique"      // PRIMARY KEY, UNIQUE, unique index
	ValidateForeignKey = "foreign_key" // also edge endpoints
	ValidateMaxOut     = "max_out"
	ValidateMinOut     = "min_out"
)

// Validation is one constraint to verify against existing rows.
type Validation struct {
	Kind       string   `json:"kind"`
	Table      string   `json:"table"`
	Constraint string   `json:"constraint,omitempty"`
	Columns    []string `json:"columns,omitempty"`
	Expr       string   `json:"expr,omitempty"` // check
	RefTable   string   `json:"ref_table,omitempty"`
	RefColumns []string `json:"ref_columns,omitempty"`
	Limit      int64    `json:"limit,omitempty"` // max_out / min_out
}

// Truncate empties tables. With RESTART IDENTITY, Restart lists the
// restarted sequences: each already has a fresh allocator key (so it
// starts again at Start with no allocator call), carried by AlterTable
// changes that follow the Truncate in the same statement.
type Truncate struct {
	notes
	Names   []string   `json:"names"`
	Restart []Sequence `json:"restart,omitempty"`
}

// Tag implements Change.
func (*Truncate) Tag() string { return "TRUNCATE TABLE" }

// SetSequence moves a sequence now: the next nextval returns Value when
// IsCalled is false, the value after it when true. ALTER SEQUENCE …
// RESTART WITH v (v ≠ START) produces it, for the sequence's new key
// (restarts re-key the sequence, so other branches are unaffected).
type SetSequence struct {
	notes
	Sequence Sequence `json:"sequence"`
	Value    int64    `json:"value"`
	IsCalled bool     `json:"is_called"`
	// CommandTag is "ALTER SEQUENCE", or "TRUNCATE TABLE" when it
	// follows a Truncate of the same statement.
	CommandTag string `json:"tag"`
}

// Tag implements Change.
func (c *SetSequence) Tag() string { return c.CommandTag }

// NoOp is a statement accepted without effect (SET search_path, GRANT,
// ALTER … OWNER TO, CREATE SCHEMA IF NOT EXISTS public, IF [NOT] EXISTS
// that found nothing to do, …).
type NoOp struct {
	notes
	CommandTag string `json:"tag"`
}

// Tag implements Change.
func (c *NoOp) Tag() string { return c.CommandTag }

func notice(code, format string, args ...any) *pgerr.Error {
	e := pgerr.Errorf(code, format, args...)
	e.Severity = pgerr.SeverityNotice
	return e
}
