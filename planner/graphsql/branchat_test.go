package graphsql

import (
	"context"
	"strings"
	"testing"
)

// TestCreateBranchAt: a branch created at an older commit starts from
// that commit's state, takes writes of its own (the table forks lazily
// from the pinned version), and leaves its source untouched.
func TestCreateBranchAt(t *testing.T) {
	g, _ := openLocal(t)
	ctx := context.Background()
	createPeople(t, g)                                   // v2
	ins123 := insertPeople(t, g, "main", "1-3", 1, 2, 3) // v3
	insertPeople(t, g, "main", "5", 5)                   // v4
	people := func(branch string) string {
		sn, err := g.Root.Head(ctx, branch)
		if err != nil {
			t.Fatal(err)
		}
		return peopleAt(t, g, sn)
	}
	call := func(env Env, name string, args ...any) error {
		_, err := Call(ctx, g, env, name, args)
		return err
	}
	steps := []struct {
		do    func() error
		code  string
		check func() string
		want  string
	}{
		{do: func() error { return call(Env{}, "create_branch", "old", "main", "2") },
			check: func() string { return people("old") }, want: ""},
		{do: func() error { insertPeople(t, g, "old", "7", 7); return nil },
			check: func() string { return people("old") + "/" + people("main") }, want: "7/1,2,3,5"},
		{do: func() error { return call(Env{}, "create_branch", "old2", "main", ins123) },
			check: func() string { return people("old2") }, want: "1,2,3"},
		{do: func() error { insertPeople(t, g, "old2", "8", 8); return nil },
			check: func() string { return people("old2") + "/" + people("old") + "/" + people("main") }, want: "1,2,3,8/7/1,2,3,5"},
		// at a version that predates old's own commits: forked from main
		{do: func() error { return call(Env{Branch: "old"}, "create_branch", "old3", nil, "2") },
			check: func() string {
				views, _ := Tables(ctx, g, "main")
				return strings.Join(query(t, WithViews(nil, views), "SELECT forked_from || '@' || forked_at_version FROM graph.branches WHERE name LIKE 'old%' ORDER BY name"), ",")
			}, want: "main@2,main@3,main@2"},
		{do: func() error { return call(Env{}, "create_branch", "old", "main", "2") }, code: CodeDuplicateObject},
		{do: func() error { return call(Env{}, "create_branch", "old/x", "main", "2") }, code: CodeInvalidName},
		{do: func() error { return call(Env{}, "create_branch", "main", "main", "3") }, code: CodeInvalidName},
		// delete and re-create at an older commit: the deleted branch's
		// table fork must not leak into the new incarnation
		{do: func() error { return call(Env{}, "delete_branch", "old2") }},
		{do: func() error { return call(Env{}, "create_branch", "old2", "main", "2") },
			check: func() string { return people("old2") }, want: ""},
		{do: func() error { insertPeople(t, g, "old2", "9", 9); return nil },
			check: func() string { return people("old2") }, want: "9"},
	}
	for i, s := range steps {
		err := s.do()
		if s.code != "" {
			if err == nil {
				t.Fatalf("step %d: no error, want %s", i, s.code)
			}
			wantCode(t, err, s.code)
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if s.check != nil {
			if got := s.check(); got != s.want {
				t.Fatalf("step %d: %q, want %q", i, got, s.want)
			}
		}
	}
}
