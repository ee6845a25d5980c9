package exec

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/pggraph/pggraph/internal/pgtest"
)

// TestClientCatalogQueries runs catalog queries real drivers and tools send
// (the shapes they send) and checks the answers a client relies
// on. They cannot be compared row for row with PostgreSQL (its catalogs
// hold hundreds of built-in objects), so each case states what it needs.
func TestClientCatalogQueries(t *testing.T) {
	cat, _ := fuzzCatalog()
	eng := &Engine{Catalog: cat}
	sess := &Session{Database: "main", User: "app"}
	cases := []struct {
		name, sql string
		check     func(rows [][]*string) bool
	}{
		{"postgres.js array types", `select b.oid, b.typarray from pg_catalog.pg_type a left join pg_catalog.pg_type b on b.oid = a.typelem where a.typcategory = 'A' group by b.oid, b.typarray order by b.oid`,
			func(r [][]*string) bool { return has(r, "23", "1007") && has(r, "25", "1009") }},
		{"pgx type by name", `select t.oid, t.typname, t.typtype, t.typelem from pg_type t where t.typname = '_int8'`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][0] == "1016" && *r[0][3] == "20" }},
		{"sqlalchemy hstore probe", `SELECT t.oid, typarray FROM pg_type t JOIN pg_namespace ns ON typnamespace = ns.oid WHERE typname = 'hstore'`,
			func(r [][]*string) bool { return len(r) == 0 }},
		{"sqlalchemy version", `select pg_catalog.version()`, func(r [][]*string) bool { return strings.HasPrefix(*r[0][0], "PostgreSQL 15") }},
		{"sqlalchemy table names", `SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
			func(r [][]*string) bool { return len(r) == 2 && *r[0][0] == "dept" && *r[1][0] == "emp" }},
		{"sqlalchemy columns", `SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef) AS "default", a.attnotnull, a.attrelid as table_oid, pgd.description as comment FROM pg_catalog.pg_attribute a LEFT JOIN pg_catalog.pg_description pgd ON (pgd.objoid = a.attrelid AND pgd.objsubid = a.attnum) WHERE a.attrelid = 'emp'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
			func(r [][]*string) bool {
				return len(r) == 7 && *r[3][1] == "numeric(10,2)" && *r[0][3] == "t" && *r[1][3] == "f"
			}},
		{"sqlalchemy pk", `SELECT a.attname FROM pg_attribute a JOIN pg_constraint c ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey) WHERE c.conrelid = 'emp'::regclass AND c.contype = 'p'`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][0] == "id" }},
		{"jdbc getTables", `SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, c.relname AS TABLE_NAME, CASE n.nspname ~ '^pg_' OR n.nspname = 'information_schema' WHEN true THEN CASE WHEN n.nspname = 'pg_catalog' OR n.nspname = 'information_schema' THEN CASE c.relkind WHEN 'r' THEN 'SYSTEM TABLE' WHEN 'v' THEN 'SYSTEM VIEW' WHEN 'i' THEN 'SYSTEM INDEX' ELSE NULL END ELSE NULL END ELSE CASE c.relkind WHEN 'r' THEN 'TABLE' WHEN 'i' THEN 'INDEX' WHEN 'v' THEN 'VIEW' ELSE NULL END END AS TABLE_TYPE, d.description AS REMARKS FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid AND d.objsubid = 0 AND d.classoid = 'pg_class'::regclass) WHERE c.relnamespace = n.oid AND c.relname LIKE '%' AND n.nspname = 'public' ORDER BY TABLE_TYPE, TABLE_SCHEM, TABLE_NAME`,
			func(r [][]*string) bool {
				return len(r) == 4 && *r[0][3] == "INDEX" && *r[2][2] == "dept" && *r[2][3] == "TABLE"
			}},
		{"jdbc getColumns window", `SELECT * FROM (SELECT n.nspname, c.relname, a.attname, a.atttypid, a.attnotnull, a.atttypmod, a.attlen, row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc, dsc.description, t.typbasetype, t.typtype FROM pg_catalog.pg_namespace n JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid) JOIN pg_catalog.pg_attribute a ON (a.attrelid = c.oid) JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid) LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid = def.adrelid AND a.attnum = def.adnum) LEFT JOIN pg_catalog.pg_description dsc ON (c.oid = dsc.objoid AND a.attnum = dsc.objsubid) WHERE c.relkind IN ('r', 'p', 'v', 'f', 'm') AND a.attnum > 0 AND NOT a.attisdropped AND n.nspname LIKE 'public' AND c.relname LIKE 'dept') c WHERE true ORDER BY nspname, c.relname, attnum`,
			func(r [][]*string) bool { return len(r) == 3 && *r[2][2] == "floor" && *r[2][7] == "3" }},
		{"jdbc getPrimaryKeys", `SELECT result.TABLE_CAT, result.TABLE_SCHEM, result.TABLE_NAME, result.COLUMN_NAME, result.KEY_SEQ, result.PK_NAME FROM (SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, ct.relname AS TABLE_NAME, a.attname AS COLUMN_NAME, 1 AS KEY_SEQ, ci.relname AS PK_NAME, i.indkey FROM pg_catalog.pg_class ct JOIN pg_catalog.pg_attribute a ON (ct.oid = a.attrelid) JOIN pg_catalog.pg_namespace n ON (ct.relnamespace = n.oid) JOIN pg_catalog.pg_index i ON (a.attrelid = i.indrelid) JOIN pg_catalog.pg_class ci ON (ci.oid = i.indexrelid) WHERE true AND ct.relname = 'emp' AND i.indisprimary AND a.attnum = ANY(i.indkey)) result ORDER BY result.table_name, result.pk_name, result.key_seq`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][3] == "id" && *r[0][5] == "emp_pkey" }},
		{"dbeaver database", `SELECT db.oid, db.* FROM pg_catalog.pg_database db WHERE datname = current_database()`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][2] == "main" }},
		{"dbeaver schemas", `SELECT n.oid, n.*, d.description FROM pg_catalog.pg_namespace n LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid = n.oid AND d.objsubid = 0 AND d.classoid = 'pg_namespace'::regclass ORDER BY nspname`,
			func(r [][]*string) bool { return has(r, "2200", "2200", "public") }},
		{"dbeaver settings", `SELECT * FROM pg_catalog.pg_settings WHERE name = 'standard_conforming_strings'`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][1] == "on" }},
		{"metabase schemas", `SELECT nspname AS "TABLE_SCHEM", current_database() AS "TABLE_CATALOG" FROM pg_catalog.pg_namespace WHERE nspname <> 'pg_toast' AND (nspname !~ '^pg_temp_' OR nspname = (pg_catalog.current_schemas(true))[1]) AND (nspname !~ '^pg_toast_temp_') ORDER BY "TABLE_SCHEM"`,
			func(r [][]*string) bool { return has(r, "public", "main") }},
		{"metabase probe", `SELECT TRUE AS "_" FROM "public"."emp" WHERE 1 <> 1 LIMIT 0`, func(r [][]*string) bool { return len(r) == 0 }},
		{"metabase privileges", `with table_privileges as (select NULL as role, t.schemaname as schema, t.objectname as table, pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"', 'update') as update from (select schemaname, tablename as objectname from pg_catalog.pg_tables) t) select * from table_privileges`,
			func(r [][]*string) bool { return len(r) == 2 && *r[0][3] == "t" }},
		{"datagrip identity", `select current_database(), current_schemas(false), current_user`,
			func(r [][]*string) bool { return *r[0][0] == "main" && *r[0][1] == "{public}" && *r[0][2] == "app" }},
		{"psql \\dt", `SELECT n.nspname as "Schema", c.relname as "Name", CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type", pg_catalog.pg_get_userbyid(c.relowner) as "Owner" FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam WHERE c.relkind IN ('r','p','') AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema' AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1,2`,
			func(r [][]*string) bool {
				return len(r) == 2 && *r[1][1] == "emp" && *r[1][2] == "table" && *r[1][3] == "app" // the owner is the session user, as pg_roles shows it
			}},
		{"psql \\d indexes", `SELECT c2.relname, i.indisprimary, i.indisunique, i.indisclustered, i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true), pg_catalog.pg_get_constraintdef(con.oid, true), contype, condeferrable, condeferred, i.indisreplident, c2.reltablespace FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x')) WHERE c.oid = 'emp'::regclass AND c.oid = i.indrelid AND i.indexrelid = c2.oid ORDER BY i.indisprimary DESC, c2.relname`,
			func(r [][]*string) bool {
				return len(r) == 1 && *r[0][0] == "emp_pkey" && strings.Contains(*r[0][5], "USING btree (id)") && *r[0][6] == "PRIMARY KEY (id)"
			}},
		{"psql \\dn", `SELECT n.nspname AS "Name", pg_catalog.pg_get_userbyid(n.nspowner) AS "Owner" FROM pg_catalog.pg_namespace n WHERE n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' ORDER BY 1`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][0] == "public" }},
		{"psql \\l", `SELECT d.datname as "Name", pg_catalog.pg_get_userbyid(d.datdba) as "Owner", pg_catalog.pg_encoding_to_char(d.encoding) as "Encoding", d.datcollate as "Collate" FROM pg_catalog.pg_database d ORDER BY 1`,
			func(r [][]*string) bool { return len(r) == 1 && *r[0][2] == "UTF8" }},
	}
	for _, c := range cases {
		r, err := eng.Query(context.Background(), sess, c.sql)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		rows := r.Rows()
		if !c.check(rows) {
			var dump []string
			for _, row := range rows {
				dump = append(dump, rowString(row))
			}
			t.Errorf("%s: unexpected rows:\n  %s", c.name, strings.Join(dump, "\n  "))
		}
	}
}

// has reports whether some row starts with the given values.
func has(rows [][]*string, vals ...string) bool {
	for _, r := range rows {
		ok := len(r) >= len(vals)
		for i := 0; ok && i < len(vals); i++ {
			ok = r[i] != nil && *r[i] == vals[i]
		}
		if ok {
			return true
		}
	}
	return false
}

// jdbcSchema is the schema the pgjdbc DatabaseMetaData and tool query
// comparisons run over (shared with internal/e2e's pgproxy test): single
// and composite keys, UNIQUE constraints and indexes, foreign keys with
// actions, defaults, serial and identity columns, comments and a table
// without a key.
func jdbcSchema(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../internal/e2e/testdata/clients/jdbc_metadata_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJdbcMetadata runs pgjdbc's DatabaseMetaData calls
// (../internal/e2e/testdata/clients/JdbcMetadata.java) against PostgreSQL
// 15 and against the engine behind the wire server over the same schema,
// and requires the same transcript.
func TestJdbcMetadata(t *testing.T) {
	const jar = "/usr/share/java/postgresql.jar"
	pgtest.SkipShort(t, "java and pgjdbc")
	if _, err := osexec.LookPath("java"); err != nil {
		t.Fatalf("java not installed (apt-get install -y openjdk-17-jdk-headless libpostgresql-jdbc-java): %v", err)
	}
	srv := pgtest.Shared(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const db = "jdbcmeta"
	for _, s := range []string{"DROP DATABASE IF EXISTS " + db, "CREATE DATABASE " + db} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, jdbcSchema(t)); err != nil {
		t.Fatal(err)
	}
	cat, err := mirror(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := mirrorKeyOrder(ctx, conn, cat); err != nil {
		t.Fatal(err)
	}
	if err := mirrorOwnership(ctx, conn, cat); err != nil {
		t.Fatal(err)
	}
	ours := serveEngine(t, &Engine{Catalog: cat})
	// compiled once for both runs (the launcher's source mode would
	// compile it again on each)
	classes := t.TempDir()
	if out, err := osexec.Command("javac", "-cp", jar, "-d", classes, "../internal/e2e/testdata/clients/JdbcMetadata.java").CombinedOutput(); err != nil {
		t.Fatalf("javac JdbcMetadata.java (apt-get install -y openjdk-17-jdk-headless): %v\n%s", err, out)
	}
	run := func(host, port string) string {
		c := osexec.Command("java", "-cp", classes+string(os.PathListSeparator)+jar, "JdbcMetadata")
		c.Env = append(os.Environ(), "PGHOST="+host, "PGPORT="+port, "PGUSER=postgres", "PGDATABASE="+db)
		out, err := c.CombinedOutput()
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), "OK") {
			t.Fatalf("JdbcMetadata against %s:%s: %v\n%s", host, port, err, out)
		}
		return string(out)
	}
	want := run("127.0.0.1", fmt.Sprint(srv.Port))
	f := strings.Fields(ours)
	host, port := strings.TrimPrefix(f[0], "host="), strings.TrimPrefix(f[1], "port=")
	got := run(host, port)
	if got != want {
		t.Errorf("DatabaseMetaData transcripts differ (-PostgreSQL +engine):\n%s", lineDiff(want, got))
	}
}

// mirrorKeyOrder sets each mirrored primary key's column order to the
// key's own (pg_index.indkey), which composite keys need.
func mirrorKeyOrder(ctx context.Context, conn *pgx.Conn, cat *MemCatalog) error {
	rows, err := conn.Query(ctx, `SELECT c.relname, i.indkey::int2[] FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND i.indisprimary`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var tn string
		var key []int16
		if err := rows.Scan(&tn, &key); err != nil {
			return err
		}
		td := cat.Table("public", tn)
		td.PrimaryKey = td.PrimaryKey[:0]
		for _, k := range key {
			td.PrimaryKey = append(td.PrimaryKey, int(k)-1)
		}
	}
	return rows.Err()
}

// lineDiff lists the sections whose lines differ.
func lineDiff(want, got string) string {
	split := func(s string) map[string]string {
		m := map[string]string{}
		var title string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "## ") {
				title = l
			}
			m[title] += l + "\n"
		}
		return m
	}
	w, g := split(want), split(got)
	var out strings.Builder
	var titles []string
	for k := range w {
		titles = append(titles, k)
	}
	sort.Strings(titles)
	for _, k := range titles {
		if w[k] != g[k] {
			fmt.Fprintf(&out, "--- PostgreSQL\n%s+++ engine\n%s\n", w[k], g[k])
		}
	}
	return out.String()
}

// TestRecordFunctions compares record-valued set-returning functions and
// field selection with PostgreSQL: pgjdbc's _pg_expandarray in FROM, in
// the select list (lockstep with other SRFs), through a subquery column,
// and the errors for a field of a non-composite value.
func TestRecordFunctions(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	conn, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	eng := &Engine{Catalog: NewMemCatalog()}
	sess := &Session{Database: "postgres", User: "postgres"}
	for _, sql := range []string{
		`SELECT * FROM information_schema._pg_expandarray(ARRAY[10,20,NULL])`,
		`SELECT k.n, k.x FROM information_schema._pg_expandarray(ARRAY['a','b c']) AS k`,
		`SELECT * FROM information_schema._pg_expandarray(ARRAY[5,6]) WITH ORDINALITY AS e(v, pos, o)`,
		`SELECT * FROM information_schema._pg_expandarray('{}'::int[])`,
		`SELECT x, n FROM information_schema._pg_expandarray('1 2 3'::int2vector) ORDER BY n DESC`,
		`SELECT a.attname FROM (VALUES ('1 3'::int2vector)) v(k), LATERAL (SELECT 'c' || e.x AS attname FROM information_schema._pg_expandarray(v.k) e) a`,
		`SELECT information_schema._pg_expandarray(ARRAY['a','b c','', NULL, 'q"t'])`,
		`SELECT k FROM (SELECT information_schema._pg_expandarray('{3,4}'::int8[]) AS k) s`,
		`SELECT (information_schema._pg_expandarray(ARRAY[7,8])).n, (information_schema._pg_expandarray(ARRAY[7,8])).x ORDER BY 1`,
		`SELECT (s.k).x, (s.k).n FROM (SELECT information_schema._pg_expandarray(ARRAY[3,1,2]) AS k) s WHERE (s.k).x > 1 ORDER BY 2`,
		`SELECT (information_schema._pg_expandarray('1 2 3'::int2vector)).x`,
		`SELECT (s.k).nosuch FROM (SELECT information_schema._pg_expandarray(ARRAY[1]) AS k) s`,
		`SELECT (s.a).x FROM (SELECT 1 AS a) s`,
		`SELECT * FROM pg_catalog.pg_get_keywords() ORDER BY word`,
		`SELECT catcode, barelabel, count(*), min(word), max(word) FROM pg_get_keywords() GROUP BY 1, 2 ORDER BY 1, 2`,
		`SELECT (pg_get_keywords()).word ORDER BY 1 LIMIT 3`,
		`SELECT * FROM unnest(ARRAY[1,2,3], ARRAY['a','b'])`,
		`SELECT * FROM unnest(ARRAY[1,2], NULL::text[], '{x}'::text[]) WITH ORDINALITY AS u(a, b, c, o)`,
		`SELECT u.a + 1, u.b FROM unnest('{10,20}'::int8[], '{t,f}'::bool[]) AS u(a, b) WHERE u.b`,
		`SELECT unnest(ARRAY[1], ARRAY[2])`,
		`SELECT * FROM unnest(ARRAY[1], 5)`,
		`SELECT * FROM aclexplode('{postgres=arwdDxt/postgres,=r*/postgres,postgres=UC*/postgres}'::aclitem[])`,
		`SELECT (aclexplode(NULL::aclitem[])).privilege_type`,
		`SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a WHERE c.relnamespace = 'public'::regnamespace`,
	} {
		want := pgRun(ctx, conn, sql)
		got, gerr := eng.Query(ctx, sess, sql)
		compareResults(t, "record", sql, want, got, gerr)
	}
}

// toolQuery is one tool query; rows: compare the rows, not only the columns.
type toolQuery struct {
	rows bool
	sql  string
}

// toolQueries reads the catalog queries DBeaver, Metabase and DataGrip
// send (../internal/e2e/testdata/clients/tool_metadata_queries.sql, shared
// with the pgproxy test). rows: the answer must equal PostgreSQL's row
// for row; otherwise only the columns (names, types) must, because
// PostgreSQL's catalogs hold built-in objects pggraph does not have.
func toolQueries(t *testing.T) []toolQuery {
	t.Helper()
	b, err := os.ReadFile("../internal/e2e/testdata/clients/tool_metadata_queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []toolQuery
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "rows: "):
			out = append(out, toolQuery{true, l[6:]})
		case strings.HasPrefix(l, "cols: "):
			out = append(out, toolQuery{false, l[6:]})
		}
	}
	if len(out) == 0 {
		t.Fatal("no tool queries")
	}
	return out
}

// TestToolStartupQueries compares DBeaver's and Metabase's catalog
// queries with PostgreSQL over the same schema (rows, or the result's
// columns where PostgreSQL lists its built-in objects).
func TestToolStartupQueries(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	admin, err := srv.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	const db = "toolcat"
	for _, s := range []string{"DROP DATABASE IF EXISTS " + db, "CREATE DATABASE " + db} {
		if _, err := admin.Exec(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	conn, err := pgx.Connect(ctx, srv.ConnString(db))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, jdbcSchema(t)+`CREATE TABLE counter (id serial PRIMARY KEY, n bigint GENERATED ALWAYS AS IDENTITY);`); err != nil {
		t.Fatal(err)
	}
	cat, err := mirror(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := mirrorKeyOrder(ctx, conn, cat); err != nil {
		t.Fatal(err)
	}
	if err := mirrorOwnership(ctx, conn, cat); err != nil {
		t.Fatal(err)
	}
	eng := &Engine{Catalog: cat}
	sess := &Session{Database: db, User: "postgres"}
	for _, q := range toolQueries(t) {
		want := pgRun(ctx, conn, q.sql)
		got, gerr := eng.Query(ctx, sess, q.sql)
		if want.code != "" {
			t.Errorf("PostgreSQL fails %s: %s %s", q.sql, want.code, want.msg)
			continue
		}
		if !q.rows && gerr == nil {
			// compare the columns only
			want.rows = nil
			got = &Result{Columns: got.Columns}
		}
		compareResults(t, "tool", q.sql, want, got, gerr)
	}
}

// TestRecordExpandNode expands a record column produced by a lateral
// record-returning function into its fields.
func TestRecordExpandNode(t *testing.T) {
	arr := NewVec(Type{OIDInt2Vector, -1}, 1)
	if err := parseText(arr, 0, "3 1", nil); err != nil {
		t.Fatal(err)
	}
	rt := RecordType([]RecordField{{"x", TInt2}, {"n", TInt4}})
	fs := &funcScanNode{name: "_pg_expandarray", args: []Expr{newConst(arr)}, cols: []colInfo{{name: "k", t: rt}}}
	p, fields, ok := expandRecordColumn(fs, 0, []string{"attnum"})
	if !ok || len(fields) != 2 {
		t.Fatalf("expandRecordColumn: %v %v", ok, fields)
	}
	if cols := p.columns(); len(cols) != 3 || cols[1].name != "attnum" || cols[2].name != "n" || cols[1].t != TInt2 {
		t.Fatalf("columns %+v", cols)
	}
	ec := &evalCtx{ctx: context.Background(), run: &runCtx{ctx: context.Background()}}
	buf, err := collect(ec, p)
	if err != nil {
		t.Fatal(err)
	}
	b := buf.batch()
	var got []string
	for i := 0; i < b.N; i++ {
		got = append(got, FormatText1(b.Cols[0], i)+" "+FormatText1(b.Cols[1], i)+" "+FormatText1(b.Cols[2], i))
	}
	if want := "(3,1) 3 1;(1,2) 1 2"; strings.Join(got, ";") != want {
		t.Errorf("rows %q, want %q", strings.Join(got, ";"), want)
	}
	if _, _, ok := expandRecordColumn(fs, 0, nil); !ok {
		t.Error("names are optional")
	}
	if _, _, ok := expandRecordColumn(&funcScanNode{cols: []colInfo{{name: "r", t: TRecord}}}, 0, nil); ok {
		t.Error("an anonymous record has no fields to expand")
	}
}
