package ddl

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/pggraph/pggraph/access"
	"github.com/pggraph/pggraph/graph"
)

// MetaVersion is the newest TableMeta encoding this build reads; a
// definition written by a newer build is refused rather than misread.
// Version 2 adds views (Relkind RelView, View). A meta is written with
// the oldest version that can express it: tables and sequences stay at
// version 1, so builds that predate views keep reading them, and refuse
// (rather than misread as a table) only the views. Version 3 adds a
// per-role owner and an ACL (Owner, ACL): a relation that has either is
// written as version 3, so a build that predates privileges refuses it
// rather than ignore its grants (letting every role read it).
//
// Version 5 adds property graphs (Relkind RelPropGraph, PropGraph:
// propgraph.go). Version 6 adds domains (Relkind RelDomain, Domain, and
// ColumnMeta.Domain: domain.go).
// Version 6 also adds functions (Relkind RelFunction, Function:
// function.go) and table triggers (Triggers: trigger.go).
// Version 6 also adds schemas (Relkind RelSchema, Schema: schema.go).
// Version 7 adds expression indexes and partial unique indexes
// (Index.Exprs, Index.Where on a unique index: index.go).
const MetaVersion = 7

// The encodings: tables and sequences, views, privileges.
const (
	metaVersionTables = 1
	metaVersionViews  = 2
	metaVersionACL    = 3
)

// Relation kinds (PostgreSQL's relkind, spelled out).
const (
	RelTable    = "table"
	RelSequence = "sequence"
	RelView     = "view"
)

// Identity flavours of GENERATED … AS IDENTITY columns.
const (
	IdentityAlways    = "always"
	IdentityByDefault = "by default"
)

// ON DELETE actions of a foreign key (PostgreSQL's spelling).
const (
	NoAction   = "NO ACTION"
	Restrict   = "RESTRICT"
	Cascade    = "CASCADE"
	SetNull    = "SET NULL"
	SetDefault = "SET DEFAULT"
)

// TableMeta is what graph.TableDef cannot express about a SQL relation.
// It is stored as JSON in TableDef.Extra. Columns are matched to the
// definition's columns by name, in the same order.
type TableMeta struct {
	Version     int               `json:"v"`
	Relkind     string            `json:"relkind"`
	Columns     []ColumnMeta      `json:"columns"`
	PrimaryKey  *KeyConstraint    `json:"primary_key,omitempty"`
	Uniques     []KeyConstraint   `json:"uniques,omitempty"`
	Checks      []Check           `json:"checks,omitempty"`
	ForeignKeys []ForeignKey      `json:"foreign_keys,omitempty"`
	Indexes     []Index           `json:"indexes,omitempty"`
	Graph       GraphMeta         `json:"graph"`
	Comment     string            `json:"comment,omitempty"`
	Sequence    *Sequence         `json:"sequence,omitempty"` // Relkind == RelSequence
	Options     map[string]string `json:"options,omitempty"`  // other WITH (…) storage options, kept verbatim
	View        *ViewMeta         `json:"view,omitempty"`     // Relkind == RelView (version 2)
	// Owner is the owning role's OID; 0 is the bootstrap superuser (OID
	// 10), the owner of relations created before roles or by it.
	Owner uint32 `json:"owner,omitempty"`
	// ACL is relacl once someone granted or revoked on the relation; nil
	// is PostgreSQL's default (the owner holds everything, PUBLIC
	// nothing). Both are version 3.
	ACL *access.TableACL `json:"acl,omitempty"`
	// Enum is an enum type's definition (Relkind RelEnum, version 4:
	// enum.go).
	Enum *EnumMeta `json:"enum,omitempty"`
	// Extension is a created extension (Relkind RelExtension, version
	// 4: extension.go).
	Extension *ExtensionMeta `json:"extension,omitempty"`
	// PropGraph is a property graph's definition (Relkind RelPropGraph,
	// version 5: propgraph.go).
	PropGraph *PropGraphMeta `json:"propgraph,omitempty"`
	// Domain is a domain's definition (Relkind RelDomain, version 6:
	// domain.go).
	Domain *DomainMeta `json:"domain,omitempty"`
	// Function is a function's definition (Relkind RelFunction, version
	// 6: function.go).
	Function *FunctionMeta `json:"function,omitempty"`
	// Triggers are a table's triggers (version 6: trigger.go).
	Triggers []Trigger `json:"triggers,omitempty"`
	// Schema is a schema's definition (Relkind RelSchema, version 6:
	// schema.go).
	Schema *SchemaMeta `json:"schema,omitempty"`
}

// ColumnMeta is one column's SQL definition beyond name and nullability.
type ColumnMeta struct {
	Name     string    `json:"name"`
	Type     PGType    `json:"type"`
	Default  string    `json:"default,omitempty"`  // SQL text of DEFAULT (serial: nextval(…))
	Identity string    `json:"identity,omitempty"` // IdentityAlways | IdentityByDefault
	Sequence *Sequence `json:"sequence,omitempty"` // owned sequence (serial / identity)
	Comment  string    `json:"comment,omitempty"`
	// ACL is the column's attacl once someone granted or revoked a
	// column privilege on it; nil is PostgreSQL's default (none: the
	// table's ACL decides). Column privileges live with the column so
	// renames keep them and DROP COLUMN takes them.
	ACL *access.TableACL `json:"acl,omitempty"`
	// Domain is the domain (or array of one) the column is declared with,
	// Type its base type (version 6: domain.go).
	Domain uint32 `json:"domain,omitempty"`
}

// KeyConstraint is a PRIMARY KEY or UNIQUE constraint (backed by an index
// of the same name, as in PostgreSQL).
type KeyConstraint struct {
	Name             string   `json:"name"`
	Columns          []string `json:"columns"`
	NullsNotDistinct bool     `json:"nulls_not_distinct,omitempty"`
}

// Check is a CHECK constraint.
type Check struct {
	Name string `json:"name"`
	Expr string `json:"expr"` // SQL text, without the surrounding CHECK (…)
}

// ForeignKey is a REFERENCES constraint. RefTable is the referenced
// table's SQL name (renames rewrite it).
type ForeignKey struct {
	Name       string   `json:"name"`
	Columns    []string `json:"columns"`
	RefTable   string   `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
	OnDelete   string   `json:"on_delete"` // NoAction, Restrict, Cascade, SetNull, SetDefault
	OnUpdate   string   `json:"on_update"`
}

// Index is an index on columns and expressions. Constraint names the
// PRIMARY KEY or UNIQUE constraint it backs ("" for a CREATE INDEX).
type Index struct {
	Name string `json:"name"`
	// Columns are the key columns in order; "" at a key that is an
	// expression (PostgreSQL's indkey 0), whose SQL text is Exprs at the
	// same position. Exprs is nil for an index on plain columns
	// (version 7: index.go).
	Columns    []string `json:"columns"`
	Exprs      []string `json:"exprs,omitempty"`
	Unique     bool     `json:"unique,omitempty"`
	Primary    bool     `json:"primary,omitempty"`
	Constraint string   `json:"constraint,omitempty"`
	// Method is the access method when not btree (hash, gin, hnsw, …).
	Method           string `json:"method,omitempty"`
	Where            string `json:"where,omitempty"` // partial index predicate (SQL)
	NullsNotDistinct bool   `json:"nulls_not_distinct,omitempty"`
}

// GraphMeta is the table's graph role. Source/Target name the endpoint
// columns of an edge table; MaxOut/MinOut bound the out-degree per source.
type GraphMeta struct {
	Kind graph.TableKind `json:"kind"`
	// Declared says graph.kind was given; otherwise the kind follows the
	// primary key (node with one, relation without).
	Declared bool `json:"declared,omitempty"`
	// Pending marks a declared edge table whose endpoint references are
	// not all declared yet: Kind is RelationTable until they are.
	Pending bool   `json:"pending,omitempty"`
	Source  string `json:"source,omitempty"`
	Target  string `json:"target,omitempty"`
	MaxOut  *int64 `json:"max_out,omitempty"`
	MinOut  *int64 `json:"min_out,omitempty"`
}

// Sequence is a sequence definition: its SQL name, the durable allocator
// key (unique for the sequence's lifetime and shared by every branch that
// inherited it, so values never repeat across branches that later merge)
// and its options.
type Sequence struct {
	Name string `json:"name"`
	Key  string `json:"key"`
	SeqOptions
	OwnedBy string `json:"owned_by,omitempty"` // "table.column" for serial/identity
	// ACL is the relacl of a serial/identity column's sequence (nil:
	// the default, its table's owner holds all); a standalone
	// sequence's is its TableMeta's.
	ACL *access.TableACL `json:"acl,omitempty"`
}

// SeqOptions are CREATE/ALTER SEQUENCE options (PostgreSQL's defaults
// filled in: see DefaultSeqOptions).
type SeqOptions struct {
	Type      PGType `json:"type"` // int2, int4 or int8 (AS …)
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	Cache     int64  `json:"cache"`
	Cycle     bool   `json:"cycle,omitempty"`
}

// errBadMeta marks a definition whose Extra cannot be used.
type errBadMeta struct{ msg string }

func (e *errBadMeta) Error() string { return "ddl: table metadata: " + e.msg }

// IsBadMeta reports a TableDef.Extra that could not be decoded (corrupt,
// or written by a newer build).
func IsBadMeta(err error) bool {
	_, ok := err.(*errBadMeta)
	return ok
}

// Encode renders the meta for TableDef.Extra.
func (m TableMeta) Encode() json.RawMessage {
	m.Version = metaVersionTables
	if m.Relkind == RelView || m.View != nil {
		m.Version = metaVersionViews
	}
	if m.Owner != 0 || m.ACL != nil {
		m.Version = metaVersionACL
	}
	if m.Relkind == RelEnum || m.Relkind == RelExtension || slices.ContainsFunc(m.Columns, func(c ColumnMeta) bool { return c.Type.usesEnum() }) {
		m.Version = metaVersionTypes
	}
	if m.Relkind == RelPropGraph || m.PropGraph != nil {
		m.Version = metaVersionPropGraph
	}
	if m.Relkind == RelDomain || m.Domain != nil || slices.ContainsFunc(m.Columns, func(c ColumnMeta) bool { return c.Domain != 0 }) {
		m.Version = metaVersionDomains
	}
	if m.Relkind == RelFunction || m.Function != nil || len(m.Triggers) > 0 {
		m.Version = metaVersionFunctions
	}
	if m.Relkind == RelSchema || m.Schema != nil {
		m.Version = metaVersionSchemas
	}
	if slices.ContainsFunc(m.Indexes, func(ix Index) bool { return ix.HasExprs() || ix.Unique && ix.Where != "" }) {
		m.Version = metaVersionIndexExprs
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(fmt.Sprintf("ddl: TableMeta is always encodable: %v", err)) // only plain data types
	}
	return b
}

// encodedVersion is the version an encoded meta carries (dflt when it
// cannot be read).
func encodedVersion(extra json.RawMessage, dflt int) int {
	var probe struct {
		Version int `json:"v"`
	}
	if json.Unmarshal(extra, &probe) != nil || probe.Version == 0 {
		return dflt
	}
	return probe.Version
}

// DecodeMeta reads a table's meta from its definition. A definition
// without Extra (created outside SQL) gets a meta derived from the
// definition itself: exact types from the storage types, the primary key
// named <table>_pkey.
func DecodeMeta(name string, def graph.TableDef) (TableMeta, error) {
	if len(def.Extra) == 0 {
		return deriveMeta(name, def)
	}
	var probe struct {
		Version int `json:"v"`
	}
	if err := json.Unmarshal(def.Extra, &probe); err != nil {
		return TableMeta{}, &errBadMeta{fmt.Sprintf("table %q: %v", name, err)}
	}
	if probe.Version < 1 || probe.Version > MetaVersion {
		return TableMeta{}, &errBadMeta{fmt.Sprintf("table %q: metadata version %d (this build reads 1 to %d)", name, probe.Version, MetaVersion)}
	}
	var m TableMeta
	if err := json.Unmarshal(def.Extra, &m); err != nil {
		return TableMeta{}, &errBadMeta{fmt.Sprintf("table %q: %v", name, err)}
	}
	if m.Relkind == RelExtension || m.Extension != nil {
		if m.Relkind != RelExtension || m.Extension == nil || probe.Version < metaVersionTypes || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("extension %q: inconsistent extension metadata", name)}
		}
		return m, nil
	}
	if m.Relkind == RelPropGraph || m.PropGraph != nil {
		if m.Relkind != RelPropGraph || m.PropGraph == nil || probe.Version < metaVersionPropGraph || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("property graph %q: inconsistent property graph metadata", name)}
		}
		return m, nil
	}
	if m.Relkind == RelDomain || m.Domain != nil {
		if m.Relkind != RelDomain || m.Domain == nil || probe.Version < metaVersionDomains || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("type %q: inconsistent domain metadata", name)}
		}
		return m, nil
	}
	if m.Relkind == RelFunction || m.Function != nil {
		if m.Relkind != RelFunction || m.Function == nil || probe.Version < metaVersionFunctions || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("function %q: inconsistent function metadata", name)}
		}
		return m, nil
	}
	if m.Relkind == RelSchema || m.Schema != nil {
		if m.Relkind != RelSchema || m.Schema == nil || probe.Version < metaVersionSchemas || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("schema %q: inconsistent schema metadata", name)}
		}
		return m, nil
	}
	if m.Relkind == RelEnum || m.Enum != nil {
		if m.Relkind != RelEnum || m.Enum == nil || probe.Version < metaVersionTypes || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("type %q: inconsistent enum metadata", name)}
		}
		return m, nil
	}
	if m.Relkind == RelView || m.View != nil {
		// a view's definition stores no columns, only the placeholder
		if m.Relkind != RelView || m.View == nil || probe.Version < metaVersionViews || !isViewPlaceholder(def) {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("view %q: inconsistent view metadata", name)}
		}
		return m, nil
	}
	if len(m.Columns) != len(def.Columns) {
		return TableMeta{}, &errBadMeta{fmt.Sprintf("table %q: %d column definitions for %d columns", name, len(m.Columns), len(def.Columns))}
	}
	for i, c := range m.Columns {
		if c.Name != def.Columns[i].Name {
			return TableMeta{}, &errBadMeta{fmt.Sprintf("table %q: column %d is %q in the metadata and %q in the definition", name, i, c.Name, def.Columns[i].Name)}
		}
	}
	return m, nil
}

// Column returns the meta of the named column.
func (m *TableMeta) Column(name string) (*ColumnMeta, int) {
	for i := range m.Columns {
		if m.Columns[i].Name == name {
			return &m.Columns[i], i
		}
	}
	return nil, -1
}

// DefaultExpr is the SQL expression a missing value of the column takes:
// the DEFAULT, or nextval of the identity sequence ("" = NULL).
func (c ColumnMeta) DefaultExpr() string {
	if c.Identity != "" && c.Sequence != nil {
		return nextvalSQL(c.Sequence.Name)
	}
	return c.Default
}

// jsonRoundTrip copies src into dst through JSON (deep copy of plain data).
func jsonRoundTrip(src, dst any) error {
	b, err := json.Marshal(src)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, dst)
}
