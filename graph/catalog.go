package graph

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/lance/schema"
)

// ColumnDef is one column with its stable id. Ids come from the schema
// row's allocator and are never reused, so a rename keeps the id and a
// drop/re-add gets a new one.
type ColumnDef struct {
	ID       uint64 `json:"id"`
	Name     string `json:"name"`
	Type     string `json:"type"` // Lance logical type ("int64", "string", …)
	Nullable bool   `json:"nullable"`
}

// TableDef is a table's definition as the catalog stores it.
type TableDef struct {
	Columns    []ColumnDef     `json:"columns"`
	PrimaryKey []string        `json:"primary_key,omitempty"`
	Extra      json.RawMessage `json:"extra,omitempty"` // constraints etc., owned by the SQL layer
}

func (d TableDef) clone() TableDef {
	c := d
	c.Columns = append([]ColumnDef(nil), d.Columns...)
	c.PrimaryKey = append([]string(nil), d.PrimaryKey...)
	return c
}

// ArrowSchema is the table's Arrow schema (column order as defined).
func (d TableDef) ArrowSchema() (*arrow.Schema, error) {
	fs := make([]arrow.Field, len(d.Columns))
	for i, c := range d.Columns {
		dt, err := schema.ParseLogicalType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", c.Name, err)
		}
		fs[i] = arrow.Field{Name: c.Name, Type: dt, Nullable: c.Nullable}
	}
	return arrow.NewSchema(fs, nil), nil
}

// ColumnSpec describes a new column (no id yet).
type ColumnSpec struct {
	Name     string
	Type     arrow.DataType
	Nullable bool
}

// Allocate assigns stable ids: it returns the next id and advances the
// allocator of s.
func (s *SchemaRow) Allocate() uint64 {
	if s.NextID == 0 {
		s.NextID = 1
	}
	id := s.NextID
	s.NextID++
	return id
}

// NewTableDef builds a definition with fresh column ids from s.
func NewTableDef(s *SchemaRow, cols []ColumnSpec, pk []string) (TableDef, error) {
	d := TableDef{PrimaryKey: pk}
	seen := map[string]bool{}
	for _, c := range cols {
		if c.Name == "" || seen[c.Name] {
			return TableDef{}, fmt.Errorf("%w: column name %q empty or repeated", ErrInvalidDefinition, c.Name)
		}
		seen[c.Name] = true
		lt, err := schema.LogicalType(c.Type)
		if err != nil {
			return TableDef{}, fmt.Errorf("%w: column %q: %v", ErrInvalidDefinition, c.Name, err)
		}
		d.Columns = append(d.Columns, ColumnDef{ID: s.Allocate(), Name: c.Name, Type: lt, Nullable: c.Nullable})
	}
	for _, k := range pk {
		if !seen[k] {
			return TableDef{}, fmt.Errorf("%w: primary key column %q not defined", ErrInvalidDefinition, k)
		}
	}
	return d, nil
}

// SchemaHash is the content hash of the live catalog: every live table's
// id, incarnation, name, kind and definition, in key order.
func SchemaHash(s State) string {
	h := sha256.New()
	for _, t := range s.Tables {
		if t.State != Live {
			continue
		}
		b, _ := json.Marshal(struct {
			K    TableKey
			N    string
			Kind TableKind
			D    TableDef
		}{t.Key(), t.Name, t.Kind, t.Def})
		h.Write(b)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// Catalog is a read-only view of a snapshot's tables by name.
type Catalog struct{ s State }

// Catalog returns the snapshot's catalog.
func (sn *Snapshot) Catalog() Catalog { return Catalog{s: sn.State} }

// Table returns the live table named name.
func (c Catalog) Table(name string) (TableEntry, bool) { return c.s.TableByName(name) }

// Tables returns every live table in creation (OID) order.
func (c Catalog) Tables() []TableEntry {
	var out []TableEntry
	for _, t := range c.s.Tables {
		if t.State == Live {
			out = append(out, t)
		}
	}
	// in creation order, as PostgreSQL lists relations by OID: key order
	// is that on main, but a table created off main has a random id
	// (BranchID) and its OID from the counter
	sort.SliceStable(out, func(i, j int) bool { return out[i].RelOID() < out[j].RelOID() })
	return out
}
