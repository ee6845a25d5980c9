package adapters

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/pggraph/pggraph/graph"
	"github.com/pggraph/pggraph/lance/schema"
	"github.com/pggraph/pggraph/protocol"
)

// SchemaApply's stage methods (CREATE/ALTER/DROP TABLE, TRUNCATE). Each
// changes the stage's view of the catalog, so later calls in the same
// stage see the effect (drop + create of one name, rename then insert by
// the new name, truncate then insert).
//
// Physical model: a table's Lance schema is its columns' names and
// logical types, every field nullable. NOT NULL is a catalog property
// (TableDef.Columns[i].Nullable, enforced by the SQL layer's validators,
// 23502), so SET/DROP NOT NULL are catalog-only. A change of the column
// list, a column's name or type is physical: ReplaceTable.

func invalidDef(name string, err error, format string, args ...any) error {
	return protocol.Errorf(protocol.KindInvalidDefinition, err, "table %q: %s", name, fmt.Sprintf(format, args...))
}

// checkDef validates a definition's shape: non-empty unique column
// names, known logical types, primary-key columns defined, column ids
// unique (0 = to be allocated).
func checkDef(name string, d graph.TableDef) error {
	if name == "" {
		return protocol.Errorf(protocol.KindInvalidDefinition, nil, "a table needs a name")
	}
	if len(d.Columns) == 0 {
		return invalidDef(name, nil, "a table needs at least one column")
	}
	seen, ids := map[string]bool{}, map[uint64]bool{}
	for _, c := range d.Columns {
		if c.Name == "" || seen[c.Name] {
			return invalidDef(name, nil, "column name %q is empty or repeated", c.Name)
		}
		seen[c.Name] = true
		if c.ID != 0 && ids[c.ID] {
			return invalidDef(name, nil, "column id %d is repeated", c.ID)
		}
		ids[c.ID] = true
		if _, err := schema.ParseLogicalType(c.Type); err != nil {
			return invalidDef(name, err, "column %q has an unknown type %q", c.Name, c.Type)
		}
	}
	for _, k := range d.PrimaryKey {
		if !seen[k] {
			return invalidDef(name, nil, "primary key column %q is not defined", k)
		}
	}
	return nil
}

// specDef turns a TableSpec into a definition whose column ids are all 0
// (allocated in Prepare).
func specDef(spec TableSpec) (graph.TableDef, error) {
	var d graph.TableDef
	if spec.Def != nil {
		if len(spec.Columns) > 0 || len(spec.PrimaryKey) > 0 {
			return d, protocol.Errorf(protocol.KindInvalidDefinition, nil, "table %q: give either Columns or Def, not both", spec.Name)
		}
		d = *spec.Def
		d.Columns = slices.Clone(d.Columns)
		for _, c := range d.Columns {
			if c.ID != 0 {
				return d, invalidDef(spec.Name, nil, "column %q of a new table has id %d; new tables get fresh ids", c.Name, c.ID)
			}
		}
	} else {
		d.PrimaryKey = slices.Clone(spec.PrimaryKey)
		for _, c := range spec.Columns {
			lt, err := schema.LogicalType(c.Type)
			if err != nil {
				return d, invalidDef(spec.Name, err, "column %q has an unsupported type %s", c.Name, c.Type)
			}
			d.Columns = append(d.Columns, graph.ColumnDef{Name: c.Name, Type: lt, Nullable: c.Nullable})
		}
	}
	if len(spec.Extra) > 0 {
		d.Extra = slices.Clone(spec.Extra)
	}
	return d, checkDef(spec.Name, d)
}

// physicalSchema is the Lance schema of a definition: names and types in
// order, every field nullable (NOT NULL lives in the catalog).
func physicalSchema(d graph.TableDef) (*arrow.Schema, error) {
	as, err := d.ArrowSchema()
	if err != nil {
		return nil, err
	}
	fs := slices.Clone(as.Fields())
	for i := range fs {
		fs[i].Nullable = true
	}
	return arrow.NewSchema(fs, nil), nil
}

// samePhysical reports whether two definitions have the same Lance
// schema (column names and types, in order).
func samePhysical(a, b graph.TableDef) bool {
	return slices.EqualFunc(a.Columns, b.Columns, func(x, y graph.ColumnDef) bool {
		return x.Name == y.Name && x.Type == y.Type
	})
}

// claimName checks that a name is free in the stage's view.
func (s *Stage) claimName(name string) error {
	if _, ok := s.lookup(name); ok {
		return protocol.Errorf(protocol.KindDuplicateTable, nil, "relation %q already exists", name)
	}
	return nil
}

// CreateTable stages a new table (registered in the same graph commit;
// rows inserted into it in this stage go into its first version).
func (s *Stage) CreateTable(spec TableSpec) error {
	if err := s.claimName(spec.Name); err != nil {
		return err
	}
	def, err := specDef(spec)
	if err != nil {
		return err
	}
	if spec.Kind == "" {
		spec.Kind = graph.RelationTable
	}
	p := &pendingTable{name: spec.Name, kind: spec.Kind, def: def}
	s.pending = append(s.pending, p)
	s.names[spec.Name] = binding{pending: p}
	return nil
}

// DropTable stages a tombstone for a table (the stage's earlier row
// changes of it are discarded; a table created in this stage is simply
// not created).
func (s *Stage) DropTable(name string) error {
	b, err := s.resolve(name)
	if err != nil {
		return err
	}
	s.names[name] = binding{gone: true}
	if b.pending != nil {
		// not created; a base table it replaced stays tombstoned
		b.pending.dropped = true
		return nil
	}
	s.dropBase(b.key)
	return nil
}

// dropBase tombstones a base table and discards what the stage had for it.
func (s *Stage) dropBase(k graph.TableKey) {
	s.forget(k)
	delete(s.probes, k)
	if _, ok := s.redefs[k]; ok {
		delete(s.redefs, k)
		s.redefOf = slices.DeleteFunc(s.redefOf, func(x graph.TableKey) bool { return x == k })
	}
	s.drops = append(s.drops, k)
}

// Redefine stages a catalog-only change of a table (ALTER TABLE …
// RENAME TO, SET/DROP DEFAULT, SET/DROP NOT NULL, ADD/DROP CONSTRAINT,
// COMMENT): its name becomes newName ("" = unchanged) and its
// definition def, with no Lance effect. The Lance schema must stay the
// same (same column names and types in order; a column ID of 0 keeps the
// current id, any other must equal it); anything else needs
// ReplaceTable (42P16 otherwise). The table's pinned entry joins the
// read set, so a concurrent change of it fails or re-prepares the write.
func (s *Stage) Redefine(name, newName string, def graph.TableDef) error {
	b, err := s.resolve(name)
	if err != nil {
		return err
	}
	if newName == "" {
		newName = name
	}
	if newName != name {
		if err := s.claimName(newName); err != nil {
			return err
		}
	}
	def.Columns = slices.Clone(def.Columns)
	if err := checkDef(newName, def); err != nil {
		return err
	}
	var cur graph.TableDef
	var kind graph.TableKind
	switch {
	case b.pending != nil:
		cur, kind = b.pending.def, b.pending.kind
	case s.redefs[b.key] != nil:
		cur, kind = s.redefs[b.key].def, s.redefs[b.key].kind
	default:
		e := s.baseEntry(b.key)
		cur, kind = e.Def, e.Kind
	}
	if !samePhysical(cur, def) {
		return invalidDef(name, nil, "the new definition changes the stored columns (names or types); that needs a table rewrite, not a catalog-only change")
	}
	for i := range def.Columns {
		switch id := def.Columns[i].ID; {
		case id == 0:
			def.Columns[i].ID = cur.Columns[i].ID
		case id != cur.Columns[i].ID:
			return invalidDef(name, nil, "column %q has id %d, stored as %d (ids are stable)", def.Columns[i].Name, id, cur.Columns[i].ID)
		}
	}
	if b.pending != nil {
		b.pending.def, b.pending.name = def, newName
	} else {
		if s.redefs[b.key] == nil {
			s.redefOf = append(s.redefOf, b.key)
		}
		s.redefs[b.key] = &redef{name: newName, kind: kind, def: def}
	}
	if newName != name {
		s.names[name] = binding{gone: true}
		s.names[newName] = b
	}
	return nil
}

// SetKind stages a catalog-only change of a table's graph role (node,
// edge or relation), e.g. after ALTER TABLE … ADD PRIMARY KEY.
func (s *Stage) SetKind(name string, kind graph.TableKind) error {
	b, err := s.resolve(name)
	if err != nil {
		return err
	}
	switch kind {
	case graph.NodeTable, graph.EdgeTable, graph.RelationTable:
	default:
		return invalidDef(name, nil, "unknown table kind %q", kind)
	}
	if b.pending != nil {
		b.pending.kind = kind
		return nil
	}
	r := s.redefs[b.key]
	if r == nil {
		e := s.baseEntry(b.key)
		r = &redef{name: name, def: e.Def}
		s.redefs[b.key] = r
		s.redefOf = append(s.redefOf, b.key)
	}
	r.kind = kind
	return nil
}

// ReplaceTable stages a physical rewrite of a table (ALTER TABLE
// ADD/DROP/RENAME COLUMN, column type changes): a new incarnation of the
// same table id is created with definition def and the rows of rows
// (streamed, any size; nil = no rows), and the old incarnation is
// tombstoned, in one graph commit. In def, a column with ID 0 is new and
// gets a fresh id; any other ID must be one of the table's current
// column ids (a surviving or renamed column keeps its id). rows is the
// complete new content: the stage's earlier inserts and deletes of the
// table are discarded (the caller computed rows from the transaction's
// view). The table keeps its name and kind (Redefine / SetKind after it
// in the same stage change those). On a graph branch this touches only
// the branch: the new incarnation is a fresh dataset only the branch's
// manifest references.
func (s *Stage) ReplaceTable(name string, def graph.TableDef, rows Source) error {
	b, err := s.resolve(name)
	if err != nil {
		return err
	}
	def.Columns = slices.Clone(def.Columns)
	if err := checkDef(name, def); err != nil {
		return err
	}
	var cur graph.TableDef
	switch {
	case b.pending != nil:
		cur = b.pending.def
	case s.redefs[b.key] != nil:
		cur = s.redefs[b.key].def
	default:
		cur = s.baseEntry(b.key).Def
	}
	for _, c := range def.Columns {
		if c.ID != 0 && !slices.ContainsFunc(cur.Columns, func(x graph.ColumnDef) bool { return x.ID == c.ID }) {
			return invalidDef(name, nil, "column %q has id %d, which is not a column of the table", c.Name, c.ID)
		}
	}
	var inserts []Source
	if rows != nil {
		inserts = []Source{rows}
	}
	if b.pending != nil {
		b.pending.def = def
		b.pending.ops = tableOps{inserts: inserts}
		return nil
	}
	e := s.baseEntry(b.key)
	kind := e.Kind
	if r := s.redefs[b.key]; r != nil {
		kind = r.kind
	}
	s.dropBase(b.key)
	p := &pendingTable{name: name, kind: kind, def: def, replaces: &e, ops: tableOps{inserts: inserts}}
	s.pending = append(s.pending, p)
	s.names[name] = binding{pending: p}
	return nil
}

// Truncate stages TRUNCATE: the table becomes empty. It is a new
// incarnation of the same table id with the same definition and no rows
// (the old one tombstoned), like PostgreSQL's new relfilenode: one
// small dataset creation whatever the table's size, no fork of the old
// dataset on a graph branch, and the old rows stay readable by time
// travel. Rows inserted after it in the stage go into the new
// incarnation; earlier row changes are discarded.
func (s *Stage) Truncate(name string) error {
	b, err := s.resolve(name)
	if err != nil {
		return err
	}
	if b.pending != nil {
		b.pending.ops = tableOps{}
		return nil
	}
	def := s.baseEntry(b.key).Def
	if r := s.redefs[b.key]; r != nil {
		def = r.def
	}
	return s.ReplaceTable(name, def, nil)
}

// freshColumnID is the id of a column an ALTER TABLE adds to an existing
// table. A branch's id allocator is a copy of its parent's, so counter
// ids allocated on two branches collide; a column id only has to be
// unique among the columns of one table's incarnations, and a random one
// (bit 62 set, above any counter id) lets a merge of a table both
// branches re-columned line their added columns up by id, now and in
// later merges (merge_recolumn_both.go).
func freshColumnID() uint64 { return randomID() }

// freshTableID is the id of a table created on a branch other than main
// (graph.BranchID): unique across branches, so tables two branches create
// after a fork stay distinct in a merge.
func freshTableID() uint64 { return randomID() }

// randomID is bit 62 and 62 random bits.
func randomID() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	return 1<<62 | binary.LittleEndian.Uint64(b[:])&(1<<62-1)
}
