package ddl

import (
	"slices"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/graph"
)

// FirstUserOID is where PostgreSQL starts user object OIDs; a table's OID
// is derived from its stable id so it survives renames.
const FirstUserOID = 16384

// ExecTable is the exec view of a table (schema public) without Source:
// exact PostgreSQL types, NOT NULL, defaults (serial: nextval(…)),
// primary key, unique constraints, foreign keys and comments.
func ExecTable(e graph.TableEntry) (*exec.TableDef, error) {
	m, err := DecodeMeta(e.Name, e.Def)
	if err != nil {
		return nil, err
	}
	td := &exec.TableDef{OID: uint32(FirstUserOID + e.ID), Schema: "public", Name: e.Name, Comment: m.Comment}
	idx := func(name string) int {
		return slices.IndexFunc(td.Columns, func(c exec.ColumnDef) bool { return c.Name == name })
	}
	for i, c := range m.Columns {
		td.Columns = append(td.Columns, exec.ColumnDef{
			Name:    c.Name,
			Type:    c.Type.Exec(),
			NotNull: !e.Def.Columns[i].Nullable,
			Default: c.Default,
			Comment: c.Comment,
		})
	}
	cols := func(names []string) []int {
		out := make([]int, 0, len(names))
		for _, n := range names {
			if i := idx(n); i >= 0 {
				out = append(out, i)
			}
		}
		return out
	}
	if m.PrimaryKey != nil {
		td.PrimaryKey = cols(m.PrimaryKey.Columns)
	}
	for _, u := range m.Uniques {
		td.Unique = append(td.Unique, cols(u.Columns))
	}
	for _, f := range m.ForeignKeys {
		td.ForeignKeys = append(td.ForeignKeys, exec.ForeignKey{
			Name: f.Name, Columns: cols(f.Columns), RefSchema: "public", RefTable: f.RefTable,
			RefColumns: append([]string(nil), f.RefColumns...),
		})
	}
	return td, nil
}
