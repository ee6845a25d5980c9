package ddl

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/pggraph/pggraph/adapters"
	"github.com/pggraph/pggraph/graph"
	q "github.com/pggraph/pggraph/internal/sqlparse"
	"github.com/pggraph/pggraph/objstore"
)

// applyToStage stages planned changes the way the session does (rewrites
// of these empty tables carry no rows).
func applyToStage(s *adapters.Stage, cs []Change) error {
	for _, c := range cs {
		var err error
		switch c := c.(type) {
		case *CreateTable:
			d := c.Def
			err = s.CreateTable(adapters.TableSpec{Name: c.Name, Kind: c.Kind, Def: &d})
		case *DropTable:
			err = s.DropTable(c.Name)
		case *AlterTable:
			name := c.Name
			if c.Rewrite != nil {
				err = s.ReplaceTable(c.Name, c.Def, nil)
			}
			if err == nil && (c.Rewrite == nil || c.NewName != "") {
				err = s.Redefine(c.Name, c.NewName, c.Def)
			}
			if c.NewName != "" {
				name = c.NewName
			}
			if err == nil {
				err = s.SetKind(name, c.Meta.Graph.Kind)
			}
		case *Truncate:
			for _, n := range c.Names {
				if err = s.Truncate(n); err != nil {
					break
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// runDDL plans and publishes one statement on a branch.
func runDDL(t *testing.T, g *adapters.Graph, branch, sql string) {
	t.Helper()
	tree, err := q.Parse(sql)
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Write(context.Background(), adapters.WriteOptions{Branch: branch, Message: sql}, func(ctx context.Context, s *adapters.Stage) error {
		cs, err := Plan(tree.Stmts[0].Stmt, s.Base().Catalog())
		if err != nil {
			return err
		}
		return applyToStage(s, cs)
	})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func head(t *testing.T, g *adapters.Graph, branch string) graph.Catalog {
	t.Helper()
	sn, err := g.Head(context.Background(), branch)
	if err != nil {
		t.Fatal(err)
	}
	return sn.Catalog()
}

func colIDs(e graph.TableEntry) map[string]uint64 {
	m := map[string]uint64{}
	for _, c := range e.Def.Columns {
		m[c.Name] = c.ID
	}
	return m
}

// Planned changes are accepted by the SchemaApply adapter, survive a
// publish (Extra decodes, ids allocated and kept), and schema changes on
// a branch leave main alone.
func TestPlansThroughAdapters(t *testing.T) {
	ctx := context.Background()
	g, err := adapters.Open(ctx, objstore.NewMem(), adapters.Options{Create: true, Actor: "test", Location: "/t"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	runDDL(t, g, "main", `CREATE TABLE people (id bigserial PRIMARY KEY, name text NOT NULL, score numeric(6,2), emb vector(2), at timestamptz DEFAULT now(), u uuid)`)
	runDDL(t, g, "main", `CREATE TABLE knows (src bigint REFERENCES people ON DELETE CASCADE, dst bigint REFERENCES people) WITH (graph.kind = edge)`)
	runDDL(t, g, "main", `CREATE SEQUENCE counter START 5`)
	cat := head(t, g, "main")
	people, ok := cat.Table("people")
	if !ok || people.Kind != graph.NodeTable {
		t.Fatalf("people: %+v", people)
	}
	before := colIDs(people)
	for n, id := range before {
		if id == 0 {
			t.Fatalf("column %s has no id after publish", n)
		}
	}
	td, err := ExecTable(people)
	if err != nil || td.Columns[2].Type.String() != "numeric(6,2)" || td.PrimaryKeyName != "people_pkey" {
		t.Fatalf("exec view: %+v %v", td, err)
	}
	if k, _ := cat.Table("knows"); k.Kind != graph.EdgeTable {
		t.Fatalf("knows kind %q", k.Kind)
	}
	if ref, ok, err := LookupSequence(cat, "people_id_seq"); err != nil || !ok || ref.Table != "people" || ref.Column != "id" {
		t.Fatalf("owned sequence: %+v %v %v", ref, ok, err)
	}
	if ref, ok, _ := LookupSequence(cat, "counter"); !ok || ref.Start != 5 || ref.Spec().Key == "" {
		t.Fatalf("standalone sequence: %+v", ref)
	}

	// On a branch: add and rename columns, rename the node table.
	if _, err := g.CreateBranch(ctx, "dev", "main"); err != nil {
		t.Fatal(err)
	}
	runDDL(t, g, "dev", `ALTER TABLE people ADD COLUMN email text UNIQUE`)
	runDDL(t, g, "dev", `ALTER TABLE people RENAME COLUMN name TO full_name`)
	runDDL(t, g, "dev", `ALTER TABLE people RENAME TO persons`)
	runDDL(t, g, "dev", `ALTER TABLE persons ALTER COLUMN score SET NOT NULL`)
	dev := head(t, g, "dev")
	persons, ok := dev.Table("persons")
	if !ok {
		t.Fatal("persons missing on dev")
	}
	after := colIDs(persons)
	if after["full_name"] != before["name"] || after["id"] != before["id"] || after["email"] == 0 || slices.Contains(slices.Collect(maps.Values(before)), after["email"]) {
		t.Fatalf("ids before %v after %v", before, after)
	}
	if persons.ID != people.ID {
		t.Fatalf("table id changed %d → %d", people.ID, persons.ID)
	}
	knows, _ := dev.Table("knows")
	m, err := DecodeMeta(knows.Name, knows.Def)
	if err != nil || m.ForeignKeys[0].RefTable != "persons" {
		t.Fatalf("knows FK after rename: %+v %v", m.ForeignKeys, err)
	}
	if _, ok := head(t, g, "main").Table("persons"); ok {
		t.Fatal("branch rename leaked into main")
	}
	if p, _ := head(t, g, "main").Table("people"); len(p.Def.Columns) != 6 {
		t.Fatalf("main's people changed: %+v", p.Def.Columns)
	}

	// DROP … CASCADE takes the edge table along, on dev only.
	runDDL(t, g, "dev", `DROP TABLE persons CASCADE`)
	dev = head(t, g, "dev")
	if _, ok := dev.Table("knows"); ok {
		t.Fatal("edge table survived its node table")
	}
	if _, ok := head(t, g, "main").Table("knows"); !ok {
		t.Fatal("main lost knows")
	}
	runDDL(t, g, "main", `TRUNCATE people, knows`)

	// RESTART IDENTITY re-keys people's serial sequence on main only.
	oldRef, _, _ := LookupSequence(head(t, g, "main"), "people_id_seq")
	if _, err := g.CreateBranch(ctx, "dev2", "main"); err != nil {
		t.Fatal(err)
	}
	runDDL(t, g, "main", `TRUNCATE people, knows RESTART IDENTITY`)
	newRef, ok, err := LookupSequence(head(t, g, "main"), "people_id_seq")
	if err != nil || !ok || newRef.Key == oldRef.Key || newRef.Key == "" {
		t.Fatalf("restart kept key %q (was %q): %v", newRef.Key, oldRef.Key, err)
	}
	if devRef, _, _ := LookupSequence(head(t, g, "dev2"), "people_id_seq"); devRef.Key != oldRef.Key {
		t.Fatalf("branch dev2's sequence re-keyed too: %q", devRef.Key)
	}
}
