package console

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/pggraph/pggraph/pgerr"
)

// The console reads everything through SQL, as the logged-in role: the
// graph views (graph.commits, graph.branches, graph.tables,
// graph.table_storage, graph.recovery, graph.audit, graph.diff_summary)
// and the PostgreSQL catalogs. What a role may not read, its pages do not
// show.

// commitLimit bounds the commits read per branch for the DAG: the page
// stays small on a long history (the rest is one click away in SQL).
const commitLimit = 200

// ancestryLimit bounds the commit ids read per branch to count how far
// branches are ahead of and behind main.
const ancestryLimit = 20000

type commit struct {
	ID, Parent, MergedParent string
	Branch                   string // the branch it was published on
	Version                  int64
	Actor, Message, Kind     string
	Application, ClientAddr  string
	Recovery                 string
	Time                     time.Time
}

type branch struct {
	Name, Head, ForkedFrom string
	Version                int64
	CreatedAt              *time.Time
	Ahead, Behind          int
	Capped                 bool // ahead/behind counted over the newest ancestryLimit commits only
	Denied                 string
}

// useBranch points the session at branch (hba rules apply to the switch
// as they do to a login).
func useBranch(ctx context.Context, c *pgx.Conn, name string) error {
	_, err := c.Exec(ctx, "SET graph.branch = "+quoteLiteral(name))
	return err
}

func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

func text(v *string) string {
	if v == nil {
		return ""
	}
	return *v
}

func loadBranches(ctx context.Context, c *pgx.Conn) ([]branch, error) {
	rows, err := c.Query(ctx, `SELECT name, coalesce(head, ''), coalesce(manifest_version, 0), coalesce(forked_from, ''), created_at FROM graph.branches`)
	if err != nil {
		return nil, err
	}
	bs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (branch, error) {
		var b branch
		err := r.Scan(&b.Name, &b.Head, &b.Version, &b.ForkedFrom, &b.CreatedAt)
		return b, err
	})
	if err != nil {
		return nil, err
	}
	// main first, then by name: main is the trunk the others are drawn
	// against
	sort.SliceStable(bs, func(i, j int) bool {
		if (bs[i].Name == "main") != (bs[j].Name == "main") {
			return bs[i].Name == "main"
		}
		return bs[i].Name < bs[j].Name
	})
	return bs, nil
}

// selectCommits reads graph.commits in scanCommit's column order.
const selectCommits = `SELECT id, parent, merged_parent, branch, manifest_version, actor, message, writer_kind,
	application_name, client_addr, recovery, time FROM graph.commits`

func scanCommit(r pgx.CollectableRow) (commit, error) {
	var cm commit
	var parent, merged, actor, msg, kind, app, addr, rec *string
	var version *int64
	err := r.Scan(&cm.ID, &parent, &merged, &cm.Branch, &version, &actor, &msg, &kind, &app, &addr, &rec, &cm.Time)
	cm.Parent, cm.MergedParent, cm.Actor, cm.Message, cm.Kind = text(parent), text(merged), text(actor), text(msg), text(kind)
	cm.Application, cm.ClientAddr, cm.Recovery = text(app), text(addr), text(rec)
	if version != nil {
		cm.Version = *version
	}
	return cm, err
}

// loadCommits reads the newest commits of the session's current branch.
func loadCommits(ctx context.Context, c *pgx.Conn, limit int) ([]commit, error) {
	rows, err := c.Query(ctx, fmt.Sprintf(selectCommits+" LIMIT %d", limit))
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanCommit)
}

// loadParents reads the parents of the session branch's newest
// ancestryLimit commits; capped reports that there were more.
func loadParents(ctx context.Context, c *pgx.Conn, into map[string][2]string) (capped bool, err error) {
	rows, err := c.Query(ctx, fmt.Sprintf(`SELECT id, coalesce(parent, ''), coalesce(merged_parent, '') FROM graph.commits LIMIT %d`, ancestryLimit))
	if err != nil {
		return false, err
	}
	var id, parent, merged string
	n, err := pgx.ForEachRow(rows, []any{&id, &parent, &merged}, func() error {
		into[id] = [2]string{parent, merged}
		return nil
	})
	return n.RowsAffected() == ancestryLimit, err
}

// reachable is every commit reachable from head through both parents
// (graph.commits follows first parents only: a merged branch's commits
// are reachable from the merge through its second parent).
func reachable(head string, parents map[string][2]string) map[string]bool {
	seen := map[string]bool{}
	stack := []string{head}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == "" || seen[id] {
			continue
		}
		seen[id] = true
		if p, ok := parents[id]; ok {
			stack = append(stack, p[0], p[1])
		}
	}
	return seen
}

// history is every branch with the newest commits of each, and how far
// each is ahead of and behind main.
type history struct {
	Branches []branch
	Commits  map[string]commit
}

func loadHistory(ctx context.Context, c *pgx.Conn) (*history, error) {
	bs, err := loadBranches(ctx, c)
	if err != nil {
		return nil, err
	}
	h := &history{Commits: map[string]commit{}}
	parents := map[string][2]string{}
	capped := false
	for i := range bs {
		b := &bs[i]
		if err := useBranch(ctx, c, b.Name); err != nil {
			if denied(err) {
				b.Denied = pgMessage(err)
				continue
			}
			return nil, err
		}
		cs, err := loadCommits(ctx, c, commitLimit)
		if err != nil {
			return nil, err
		}
		for _, cm := range cs {
			if _, seen := h.Commits[cm.ID]; !seen {
				h.Commits[cm.ID] = cm
			}
		}
		more, err := loadParents(ctx, c, parents)
		if err != nil {
			return nil, err
		}
		capped = capped || more
	}
	var main map[string]bool
	for _, b := range bs {
		if b.Name == "main" && b.Denied == "" {
			main = reachable(b.Head, parents)
		}
	}
	for i := range bs {
		b := &bs[i]
		if main == nil || b.Name == "main" || b.Denied != "" {
			continue
		}
		own := reachable(b.Head, parents)
		for id := range own {
			if !main[id] {
				b.Ahead++
			}
		}
		for id := range main {
			if !own[id] {
				b.Behind++
			}
		}
		b.Capped = capped
	}
	h.Branches = bs
	return h, nil
}

// denied reports an error that means "not for this role" (pg_hba,
// privileges), shown on the page instead of failing it.
func denied(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == pgerr.InvalidAuthorizationSpecification || pe.Code == pgerr.InsufficientPrivilege)
}

func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

type tableChange struct {
	Table, DiffType         string
	Added, Deleted, Updated int64
	SchemaChange            bool
}

type tableAt struct {
	Name, Kind string
	Rows       int64
}

// commitDetail is one commit with what it changed and the tables at it.
type commitDetail struct {
	Commit  commit
	Changes []tableChange
	Tables  []tableAt
}

func loadCommit(ctx context.Context, c *pgx.Conn, branchName, id string) (*commitDetail, error) {
	if err := useBranch(ctx, c, branchName); err != nil {
		return nil, err
	}
	rows, err := c.Query(ctx, selectCommits+" WHERE id = "+quoteLiteral(id))
	if err != nil {
		return nil, err
	}
	cs, err := pgx.CollectRows(rows, scanCommit)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return nil, &httpError{404, fmt.Sprintf("commit %s is not in the history of branch %s", id, branchName)}
	}
	d := &commitDetail{Commit: cs[0]}
	if d.Commit.Parent != "" {
		rows, err := c.Query(ctx, fmt.Sprintf(`SELECT coalesce(table_name, from_table_name, to_table_name), diff_type,
			coalesce(rows_added, 0), coalesce(rows_deleted, 0), coalesce(rows_updated, 0), coalesce(schema_change, false)
			FROM graph.diff_summary(%s, %s) ORDER BY 1`, quoteLiteral(d.Commit.Parent), quoteLiteral(id)))
		if err != nil {
			return nil, err
		}
		if d.Changes, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (tableChange, error) {
			var tc tableChange
			err := r.Scan(&tc.Table, &tc.DiffType, &tc.Added, &tc.Deleted, &tc.Updated, &tc.SchemaChange)
			return tc, err
		}); err != nil {
			return nil, err
		}
	}
	// the tables as of the commit: the session is pinned to it for one
	// query and released again
	if _, err := c.Exec(ctx, "SET graph.as_of = "+quoteLiteral(id)); err != nil {
		return nil, err
	}
	rows, err = c.Query(ctx, `SELECT name, kind, row_count FROM graph.tables ORDER BY name`)
	if err != nil {
		return nil, err
	}
	if d.Tables, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (tableAt, error) {
		var t tableAt
		err := r.Scan(&t.Name, &t.Kind, &t.Rows)
		return t, err
	}); err != nil {
		return nil, err
	}
	if _, err := c.Exec(ctx, "RESET graph.as_of"); err != nil {
		return nil, err
	}
	return d, nil
}

// diffLimit bounds the rows a table diff page shows.
const diffLimit = 500

// tableDiff is the rows of one table a commit changed, as graph.diff
// reports them (from_ and to_ columns, diff_type).
type tableDiff struct {
	Commit, Parent, Table string
	Columns               []string
	Rows                  [][]*string // text values; nil is NULL
	Truncated             bool
}

func loadTableDiff(ctx context.Context, c *pgx.Conn, branchName, id, table string) (*tableDiff, error) {
	d, err := loadCommit(ctx, c, branchName, id)
	if err != nil {
		return nil, err
	}
	td := &tableDiff{Commit: id, Parent: d.Commit.Parent, Table: table}
	if td.Parent == "" {
		return nil, &httpError{400, "the graph's first commit has no parent to compare with"}
	}
	rows, err := c.Query(ctx, fmt.Sprintf(`SELECT * FROM graph.diff(%s, %s, %s) LIMIT %d`,
		quoteLiteral(table), quoteLiteral(td.Parent), quoteLiteral(id), diffLimit+1))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for _, f := range rows.FieldDescriptions() {
		td.Columns = append(td.Columns, f.Name)
	}
	for rows.Next() {
		if len(td.Rows) == diffLimit {
			td.Truncated = true
			break
		}
		raw := rows.RawValues() // text format: the session uses the simple protocol
		row := make([]*string, len(raw))
		for i, b := range raw {
			if b != nil {
				s := string(b)
				row[i] = &s
			}
		}
		td.Rows = append(td.Rows, row)
	}
	return td, rows.Err()
}
