package planner

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// replConnect opens a replication=database connection to the branch.
func (ts *testServer) replConnect(t *testing.T, db string) *pgconn.PgConn {
	t.Helper()
	c, err := pgconn.Connect(context.Background(), ts.url(db)+"&replication=database")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// replExec runs a replication command, returning its rows as text.
func replExec(t *testing.T, c *pgconn.PgConn, sql string) ([][]string, error) {
	t.Helper()
	res, err := c.Exec(context.Background(), sql).ReadAll()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, r := range res {
		if r.Err != nil {
			return nil, r.Err
		}
		for _, row := range r.Rows {
			var vals []string
			for _, v := range row {
				if v == nil {
					vals = append(vals, "NULL")
				} else {
					vals = append(vals, string(v))
				}
			}
			out = append(out, vals)
		}
	}
	return out, nil
}

// pgoutputText decodes one pgoutput message into a line of the
// transcript (relations by the names their Relation messages gave).
func pgoutputText(t *testing.T, rels map[uint32]string, b []byte) string {
	t.Helper()
	u32 := func(p []byte) uint32 { return binary.BigEndian.Uint32(p) }
	lsn := func(p []byte) string {
		v := binary.BigEndian.Uint64(p)
		return fmt.Sprintf("%X/%X", uint32(v>>32), uint32(v))
	}
	cstr := func(p []byte) (string, []byte) {
		i := strings.IndexByte(string(p), 0)
		return string(p[:i]), p[i+1:]
	}
	tuple := func(p []byte) (string, []byte) {
		n := int(binary.BigEndian.Uint16(p))
		p = p[2:]
		var vals []string
		for range n {
			switch p[0] {
			case 'n':
				vals = append(vals, "NULL")
				p = p[1:]
			case 't':
				l := int(u32(p[1:]))
				vals = append(vals, string(p[5:5+l]))
				p = p[5+l:]
			default:
				t.Fatalf("tuple value kind %q", p[0])
			}
		}
		return "(" + strings.Join(vals, ",") + ")", p
	}
	switch b[0] {
	case 'B':
		return "BEGIN final=" + lsn(b[1:])
	case 'C':
		return "COMMIT lsn=" + lsn(b[2:]) + " end=" + lsn(b[10:])
	case 'R':
		oid := u32(b[1:])
		ns, p := cstr(b[5:])
		name, p := cstr(p)
		ident := p[0]
		n := int(binary.BigEndian.Uint16(p[1:]))
		p = p[3:]
		var cols []string
		for range n {
			flags := p[0]
			var col string
			col, p = cstr(p[1:])
			col += fmt.Sprintf(":%d", u32(p))
			if flags&1 != 0 {
				col += ":key"
			}
			p = p[8:]
			cols = append(cols, col)
		}
		rels[oid] = name
		return fmt.Sprintf("RELATION %s.%s ident=%c %s", ns, name, ident, strings.Join(cols, " "))
	case 'I':
		tup, _ := tuple(b[6:])
		return "INSERT " + rels[u32(b[1:])] + " new=" + tup
	case 'U':
		p := b[5:]
		s := "UPDATE " + rels[u32(b[1:])]
		if p[0] == 'K' || p[0] == 'O' {
			var old string
			old, p = tuple(p[1:])
			s += " " + string(b[5]) + "=" + old
		}
		tup, _ := tuple(p[1:])
		return s + " new=" + tup
	case 'D':
		tup, _ := tuple(b[6:])
		return "DELETE " + rels[u32(b[1:])] + " " + string(b[5]) + "=" + tup
	}
	t.Fatalf("unknown pgoutput message %q", b[0])
	return ""
}

// streamUntil starts replication of slot and reads the transcript until
// n commits arrived; it confirms the last commit's end and ends the
// stream with CopyDone.
func streamUntil(t *testing.T, c *pgconn.PgConn, slot, pubs string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c.Frontend().Send(&pgproto3.Query{String: fmt.Sprintf(`START_REPLICATION SLOT %s LOGICAL 0/0 ("proto_version" '1', "publication_names" '%s')`, slot, pubs)})
	if err := c.Frontend().Flush(); err != nil {
		t.Fatal(err)
	}
	rels := map[uint32]string{}
	var lines []string
	var lastEnd uint64
	for commits := 0; commits < n; {
		msg, err := c.ReceiveMessage(ctx)
		if err != nil {
			t.Fatalf("after %q: %v", lines, err)
		}
		switch m := msg.(type) {
		case *pgproto3.CopyBothResponse:
		case *pgproto3.ErrorResponse:
			t.Fatalf("START_REPLICATION: %s %s", m.Code, m.Message)
		case *pgproto3.CopyData:
			switch m.Data[0] {
			case 'w':
				payload := m.Data[25:]
				line := pgoutputText(t, rels, payload)
				lines = append(lines, line)
				if payload[0] == 'C' {
					commits++
					lastEnd = binary.BigEndian.Uint64(payload[10:])
				}
			case 'k':
			default:
				t.Fatalf("CopyData %q", m.Data[0])
			}
		default:
			t.Fatalf("unexpected %T", msg)
		}
	}
	// standby status update: written, flushed, applied up to the last end
	st := []byte{'r'}
	for range 3 {
		st = binary.BigEndian.AppendUint64(st, lastEnd)
	}
	st = binary.BigEndian.AppendUint64(st, 0)
	st = append(st, 0)
	c.Frontend().Send(&pgproto3.CopyData{Data: st})
	c.Frontend().Send(&pgproto3.CopyDone{})
	if err := c.Frontend().Flush(); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for {
		msg, err := c.ReceiveMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		switch m := msg.(type) {
		case *pgproto3.CommandComplete:
			tags = append(tags, string(m.CommandTag))
		case *pgproto3.ErrorResponse:
			t.Fatalf("ending the stream: %s %s", m.Code, m.Message)
		case *pgproto3.ReadyForQuery:
			if strings.Join(tags, ",") != "COPY 0,START_REPLICATION" {
				t.Errorf("tags %q, want COPY 0 and START_REPLICATION", tags)
			}
			return lines
		}
	}
}

// TestLogicalReplicationPgoutput: a slot streams the commits after its
// creation as pgoutput transactions of the published tables only,
// resumes after the position the client confirmed, and its position
// survives the connection.
func TestLogicalReplicationPgoutput(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	sqlc := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, q := range []string{
		`CREATE TABLE other (k int PRIMARY KEY, v text)`,
		`CREATE TABLE nokey (a int, b text)`,
		`CREATE PUBLICATION pub FOR TABLE people, nokey`,
	} {
		if _, err := sqlc.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rc := ts.replConnect(t, "main")
	id, err := replExec(t, rc, "IDENTIFY_SYSTEM")
	if err != nil || len(id) != 1 || len(id[0]) != 4 || id[0][1] != "1" || id[0][3] != "main" {
		t.Fatalf("IDENTIFY_SYSTEM: %v %v", id, err)
	}
	slot, err := replExec(t, rc, `CREATE_REPLICATION_SLOT "s1" LOGICAL "pgoutput" (SNAPSHOT 'nothing')`)
	if err != nil || len(slot) != 1 || slot[0][0] != "s1" || slot[0][1] != id[0][2] || slot[0][2] != "NULL" || slot[0][3] != "pgoutput" {
		t.Fatalf("CREATE_REPLICATION_SLOT: %v %v (IDENTIFY_SYSTEM %v)", slot, err, id)
	}
	for _, tc := range []struct{ sql, code string }{
		{`CREATE_REPLICATION_SLOT s1 LOGICAL pgoutput`, "42710"},
		{`CREATE_REPLICATION_SLOT "S-1" LOGICAL pgoutput`, "42602"},
		{`CREATE_REPLICATION_SLOT s2 LOGICAL test_decoding`, "0A000"},
		{`CREATE_REPLICATION_SLOT s2 PHYSICAL`, "0A000"},
		{`DROP_REPLICATION_SLOT nosuch`, "42704"},
		{`START_REPLICATION SLOT nosuch LOGICAL 0/0 (proto_version '1', publication_names 'pub')`, "42704"},
		{`START_REPLICATION SLOT s1 LOGICAL 0/0 (publication_names 'pub')`, "22023"},
		{`START_REPLICATION SLOT s1 LOGICAL 0/0 (proto_version '1')`, "22023"},
		{`START_REPLICATION SLOT s1 LOGICAL 0/0 (proto_version '1', publication_names 'nopub')`, "42704"},
		{`BASE_BACKUP`, "0A000"},
	} {
		if _, err := replExec(t, rc, tc.sql); sqlState(err) != tc.code {
			t.Errorf("%s: %v, want %s", tc.sql, err, tc.code)
		}
	}
	// SQL still runs on a replication=database connection
	if rows, err := replExec(t, rc, `SELECT count(*) FROM people`); err != nil || rows[0][0] != "3" {
		t.Fatalf("SQL on the replication connection: %v %v", rows, err)
	}
	for _, q := range []string{
		`INSERT INTO people VALUES (4, 'cy', 4.5), (5, NULL, NULL)`,
		`INSERT INTO other VALUES (1, 'not published')`,
		`UPDATE people SET name = 'ada2' WHERE id = 1`,
		`UPDATE people SET id = 10 WHERE id = 2`,
		`DELETE FROM people WHERE id = 3`,
		`INSERT INTO nokey VALUES (1, 'x')`,
		`UPDATE nokey SET b = 'y'`,
	} {
		if _, err := sqlc.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	got := streamUntil(t, rc, "s1", "pub", 6)
	want := []string{
		"BEGIN", "RELATION public.people ident=d id:20:key name:25 score:701", "INSERT people new=(4,cy,4.5)", "INSERT people new=(5,NULL,NULL)", "COMMIT",
		"BEGIN", "UPDATE people new=(1,ada2,1.5)", "COMMIT",
		// the change feed pairs rows by key: a changed key is a delete and an insert
		"BEGIN", "DELETE people K=(2,NULL,NULL)", "INSERT people new=(10,NULL,2.25)", "COMMIT",
		"BEGIN", "DELETE people K=(3,NULL,NULL)", "COMMIT",
		"BEGIN", "RELATION public.nokey ident=f a:23 b:25", "INSERT nokey new=(1,x)", "COMMIT",
		// … and a table without a key pairs rows by all their values
		"BEGIN", "DELETE nokey O=(1,x)", "INSERT nokey new=(1,y)", "COMMIT",
	}
	checkTranscript(t, got, want)
	// positions: a commit's messages lie between its Begin and its end
	for i, l := range got {
		if strings.HasPrefix(l, "BEGIN final=") {
			final := strings.TrimPrefix(l, "BEGIN final=")
			if j := i + 1; !strings.Contains(strings.Join(got[j:], "\n"), "COMMIT lsn="+final+" end="+final) {
				t.Errorf("BEGIN %s has no COMMIT at that position", final)
			}
		}
	}
	// the slot resumes after the confirmed commit: only the new one comes
	if _, err := sqlc.Exec(ctx, `INSERT INTO people VALUES (6, 'dee', 6)`); err != nil {
		t.Fatal(err)
	}
	rc2 := ts.replConnect(t, "main")
	got = streamUntil(t, rc2, "s1", "pub", 1)
	checkTranscript(t, got, []string{"BEGIN", "RELATION public.people ident=d id:20:key name:25 score:701", "INSERT people new=(6,dee,6)", "COMMIT"})
	// an active slot cannot be dropped; an idle one can, once
	if _, err := replExec(t, rc2, `DROP_REPLICATION_SLOT s1`); err != nil {
		t.Fatal(err)
	}
	if _, err := replExec(t, rc2, `DROP_REPLICATION_SLOT s1`); sqlState(err) != "42704" {
		t.Fatalf("second drop: %v", err)
	}
}

// checkTranscript compares lines, ignoring the positions printed after
// BEGIN and COMMIT.
func checkTranscript(t *testing.T, got, want []string) {
	t.Helper()
	var g []string
	for _, l := range got {
		if f := strings.Fields(l); f[0] == "BEGIN" || f[0] == "COMMIT" {
			l = f[0]
		}
		g = append(g, l)
	}
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("stream:\n%s\nwant:\n%s", strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

// TestPublications: CREATE/DROP PUBLICATION with PostgreSQL's errors,
// and the catalogs that show publications and slots.
func TestPublications(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	c := ts.connect(t, pgx.QueryExecModeSimpleProtocol)
	for _, tc := range []struct{ sql, code string }{
		{`CREATE PUBLICATION p1 FOR TABLE people`, ""},
		{`CREATE PUBLICATION p1 FOR TABLE people`, "42710"},
		{`CREATE PUBLICATION p2 FOR TABLE nosuch`, "42P01"},
		{`CREATE PUBLICATION p2 FOR TABLE people WHERE (id > 1)`, "0A000"},
		{`CREATE PUBLICATION p2 FOR TABLES IN SCHEMA public`, "0A000"},
		{`CREATE PUBLICATION pall FOR ALL TABLES WITH (publish = 'insert, delete')`, ""},
		{`CREATE PUBLICATION p3 WITH (publish = 'merge')`, "22023"},
		{`ALTER PUBLICATION p1 ADD TABLE people`, "0A000"},
		{`DROP PUBLICATION nosuch`, "42704"},
		{`DROP PUBLICATION IF EXISTS nosuch`, ""},
	} {
		_, err := c.Exec(ctx, tc.sql)
		if sqlState(err) != tc.code || tc.code == "" && err != nil {
			t.Errorf("%s: %v, want %q", tc.sql, err, tc.code)
		}
	}
	tx, err := c.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `CREATE PUBLICATION p4`); sqlState(err) != "25001" {
		t.Errorf("in a transaction block: %v", err)
	}
	tx.Rollback(ctx)
	query := func(q string) string {
		t.Helper()
		rows, err := c.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for rows.Next() {
			vals, _ := rows.Values()
			var cells []string
			for _, v := range vals {
				cells = append(cells, fmt.Sprint(v))
			}
			out = append(out, strings.Join(cells, "|"))
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return strings.Join(out, "; ")
	}
	if got, want := query(`SELECT pubname, puballtables, pubinsert, pubupdate, pubdelete FROM pg_publication ORDER BY pubname`), "p1|false|true|true|true; pall|true|true|false|true"; got != want {
		t.Errorf("pg_publication: %q, want %q", got, want)
	}
	if got, want := query(`SELECT pubname, schemaname, tablename, array_to_string(attnames, ',') FROM pg_publication_tables ORDER BY pubname`), "p1|public|people|id,name,score; pall|public|people|id,name,score"; got != want {
		t.Errorf("pg_publication_tables: %q, want %q", got, want)
	}
	if got, want := query(`SELECT count(*) FROM pg_publication_rel r JOIN pg_publication p ON p.oid = r.prpubid WHERE r.prrelid = 'people'::regclass`), "1"; got != want {
		t.Errorf("pg_publication_rel: %q, want %q", got, want)
	}
	rc := ts.replConnect(t, "main")
	slot, err := replExec(t, rc, `CREATE_REPLICATION_SLOT s LOGICAL pgoutput`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := query(`SELECT slot_name, plugin, slot_type, database, active, confirmed_flush_lsn FROM pg_replication_slots`), "s|pgoutput|logical|main|false|"+slot[0][1]; got != want {
		t.Errorf("pg_replication_slots: %q, want %q", got, want)
	}
	if _, err := c.Exec(ctx, `DROP PUBLICATION p1, pall`); err != nil {
		t.Fatal(err)
	}
	if got := query(`SELECT count(*) FROM pg_publication`); got != "0" {
		t.Errorf("after DROP: %s publications", got)
	}
}

// TestReplicationConnections: the startup parameter's values, and what a
// replication connection refuses.
func TestReplicationConnections(t *testing.T) {
	ts := startServer(t, createPeople(t))
	ctx := context.Background()
	for _, tc := range []struct{ value, code string }{
		{"true", "0A000"}, {"on", "0A000"}, {"bogus", "22023"}, {"false", ""}, {"database", ""},
	} {
		c, err := pgconn.Connect(ctx, ts.url("main")+"&replication="+tc.value)
		if sqlState(err) != tc.code || tc.code == "" && err != nil {
			t.Errorf("replication=%s: %v, want %q", tc.value, err, tc.code)
		}
		if c != nil {
			c.Close(ctx)
		}
	}
	rc := ts.replConnect(t, "main")
	// the extended protocol is refused (PostgreSQL: 08P01), the simple
	// one goes on
	if _, err := rc.Prepare(ctx, "", "SELECT 1", nil); sqlState(err) != "08P01" {
		t.Errorf("Parse on a replication connection: %v", err)
	}
	if rows, err := replExec(t, rc, "SELECT 1"); err != nil || rows[0][0] != "1" {
		t.Errorf("after the refusal: %v %v", rows, err)
	}
	if _, err := replExec(t, rc, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := replExec(t, rc, "CREATE_REPLICATION_SLOT s LOGICAL pgoutput"); sqlState(err) != "25001" {
		t.Errorf("slot in a transaction block: %v", err)
	}
}
