package sqlparse

import "testing"

// TestBranchAlias: GRANT/REVOKE … ON BRANCH b parses as ON DATABASE b;
// a table named branch and other statements are left alone.
func TestBranchAlias(t *testing.T) {
	tests := []struct {
		sql  string
		want string // the object kind GRANT/REVOKE parses to; "" for a syntax error
	}{
		{"GRANT CONNECT, WRITE ON BRANCH main TO bob", "OBJECT_DATABASE"},
		{"revoke merge on branch \"Main\", dev from public", "OBJECT_DATABASE"},
		{"GRANT SELECT ON branch TO bob", "OBJECT_TABLE"},
		{"GRANT SELECT ON branch, t TO bob", "OBJECT_TABLE"},
		{"GRANT SELECT ON TABLE branch TO bob", "OBJECT_TABLE"},
		{"SELECT 1; GRANT WRITE ON BRANCH dev TO bob", "OBJECT_DATABASE"},
		{"SELECT 'ON BRANCH x' FROM branch ON BRANCH y", ""},
		{"CREATE BRANCH main", ""},
	}
	for _, tt := range tests {
		t.Run(tt.sql, func(t *testing.T) {
			tree, err := Parse(tt.sql)
			if tt.want == "" {
				if err == nil || !IsSyntaxError(err) {
					t.Fatalf("got %v, want a syntax error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stmts := tree.GetStmts()
			g := stmts[len(stmts)-1].GetStmt().GetGrantStmt()
			if g == nil || g.Objtype.String() != tt.want {
				t.Fatalf("parsed as %v, want a GRANT on %s", stmts[len(stmts)-1].GetStmt(), tt.want)
			}
		})
	}
}
