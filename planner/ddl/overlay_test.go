package ddl

import (
	"reflect"
	"testing"

	"github.com/pggraph/pggraph/graph"
)

// listCatalog is a fixed base catalog.
type listCatalog []graph.TableEntry

func (l listCatalog) Table(name string) (graph.TableEntry, bool) {
	for _, e := range l {
		if e.Name == name {
			return e, true
		}
	}
	return graph.TableEntry{}, false
}
func (l listCatalog) Tables() []graph.TableEntry { return l }

func names(c Catalog) []string {
	var out []string
	for _, e := range c.Tables() {
		out = append(out, e.Name)
	}
	return out
}

func TestOverlay(t *testing.T) {
	base := listCatalog{{ID: 1, Name: "a"}, {ID: 2, Name: "b"}, {ID: 3, Name: "c"}}
	ov := NewOverlay(base)
	ov.Apply(
		&CreateTable{Name: "z", Kind: graph.RelationTable},
		&DropTable{Name: "b"},
		&AlterTable{Name: "c", NewName: "c2", Def: graph.TableDef{PrimaryKey: []string{"k"}}, Meta: TableMeta{Graph: GraphMeta{Kind: graph.NodeTable}}},
		&CreateTable{Name: "b", Kind: graph.EdgeTable},
		&NoOp{CommandTag: "GRANT"},
	)
	if got, want := names(ov), []string{"a", "b", "c2", "z"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tables %v, want %v", got, want)
	}
	if _, ok := ov.Table("c"); ok {
		t.Fatal("renamed-away name still resolves")
	}
	c2, ok := ov.Table("c2")
	if !ok || c2.ID != 3 || c2.Kind != graph.NodeTable || c2.Def.PrimaryKey[0] != "k" {
		t.Fatalf("renamed table: %+v %v", c2, ok)
	}
	if b, _ := ov.Table("b"); b.ID != 0 || b.Kind != graph.EdgeTable {
		t.Fatalf("re-created b: %+v", b)
	}
	if got := names(base); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Fatalf("base changed: %v", got)
	}
	// a rename back frees and reuses names consistently
	ov.Apply(&AlterTable{Name: "c2", NewName: "c", Def: c2.Def, Meta: TableMeta{Graph: GraphMeta{Kind: graph.NodeTable}}})
	if _, ok := ov.Table("c2"); ok {
		t.Fatal("c2 still resolves after renaming back")
	}
	if c, ok := ov.Table("c"); !ok || c.ID != 3 {
		t.Fatalf("c after renaming back: %+v %v", c, ok)
	}
}
