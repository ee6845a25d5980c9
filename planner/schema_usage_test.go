package planner

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/pggraph/pggraph/wire"
)

// TestSchemaUsageCopy: COPY … FROM STDIN and COPY … TO STDOUT look their
// table up like other statements: without USAGE on public an
// unqualified name is missing (42P01) and public.t is refused (42501),
// as PostgreSQL 15 answers (the script differential cannot run COPY).
func TestSchemaUsageCopy(t *testing.T) {
	ctx := context.Background()
	ts := startServerWith(t, wire.Config{Auth: wire.AuthSCRAM, Users: &wire.Users{},
		HBA: mustHBA(t, "host all all all trust")})
	admin, err := ts.connectAs(t, "admin", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	runRoleSteps(t, admin, []roleStep{
		{"CREATE ROLE alice LOGIN", ""},
		{"CREATE TABLE t (id int PRIMARY KEY)", ""},
		{"GRANT ALL ON t TO alice", ""},
	})
	alice, err := ts.connectAs(t, "alice", "", "main", "")
	if err != nil {
		t.Fatal(err)
	}
	copies := func() []string {
		var out []string
		for _, sql := range []string{"COPY t FROM STDIN", "COPY public.t FROM STDIN"} {
			_, err := alice.PgConn().CopyFrom(ctx, strings.NewReader("1\n"), sql)
			out = append(out, sqlState(err))
		}
		for _, sql := range []string{"COPY t TO STDOUT", "COPY public.t TO STDOUT"} {
			_, err := alice.PgConn().CopyTo(ctx, io.Discard, sql)
			out = append(out, sqlState(err))
		}
		return out
	}
	if got := strings.Join(copies(), " "); got != " 23505  " {
		t.Fatalf("with USAGE: %q", got)
	}
	runRoleSteps(t, admin, []roleStep{{"REVOKE USAGE ON SCHEMA public FROM PUBLIC", ""}})
	if got := strings.Join(copies(), " "); got != "42P01 42501 42P01 42501" {
		t.Fatalf("without USAGE: %q", got)
	}
}
