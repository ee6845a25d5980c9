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
)

// TestClientCatalogQueries runs catalog queries real drivers and tools send
// (shapes from reference/pgwire.md) and checks the answers a client relies
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
	if _, err := osexec.LookPath("java"); err != nil {
		t.Fatalf("java not installed (apt-get install -y openjdk-17-jdk-headless libpostgresql-jdbc-java): %v", err)
	}
	srv := startPG(t)
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
	run := func(host, port string) string {
		c := osexec.Command("java", "-cp", jar, "../internal/e2e/testdata/clients/JdbcMetadata.java")
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
	srv := startPG(t)
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

// toolQueries are the catalog queries DBeaver 25 and Metabase 0.55 send
// on connect and when they list a schema (as logged by a PostgreSQL
// server, see reference/pgwire.md), over jdbcSchema. rows: the answer
// must equal PostgreSQL's row for row; otherwise only the columns (names,
// types) must, because PostgreSQL's catalogs hold built-in objects
// pggraph does not have.
var toolQueries = []struct {
	rows bool
	sql  string
}{
	{true, `SELECT current_schema(),session_user`},
	{false, `SELECT n.oid,n.*,d.description FROM pg_catalog.pg_namespace n LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=n.oid AND d.objsubid=0 AND d.classoid='pg_namespace'::regclass ORDER BY nspname`},
	{true, `SELECT n.nspname = ANY(current_schemas(true)), n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid WHERE t.oid = 1034`},
	{true, `SELECT n.nspname = ANY(current_schemas(true)), n.nspname, t.typname FROM pg_catalog.pg_type t JOIN pg_catalog.pg_namespace n ON t.typnamespace = n.oid WHERE t.oid = 1007`},
	{true, `SELECT typinput='pg_catalog.array_in'::regproc as is_array, typtype, typname, pg_type.oid FROM pg_catalog.pg_type LEFT JOIN (select ns.oid as nspoid, ns.nspname, r.r from pg_namespace as ns join ( select s.r, (current_schemas(false))[s.r] as nspname from generate_series(1, array_upper(current_schemas(false), 1)) as s(r) ) as r using ( nspname ) ) as sp ON sp.nspoid = typnamespace WHERE pg_type.oid = 1007 ORDER BY sp.r, pg_type.oid DESC`},
	{false, `SELECT db.oid,db.* FROM pg_catalog.pg_database db WHERE datname=current_database()`},
	{false, `SELECT * FROM pg_catalog.pg_settings where name='standard_conforming_strings'`},
	{true, `SELECT * FROM pg_catalog.pg_enum WHERE 1<>1 LIMIT 1`},
	{true, `SELECT reltype FROM pg_catalog.pg_class WHERE 1<>1 LIMIT 1`},
	{false, `SELECT t.oid,t.*,c.relkind,format_type(nullif(t.typbasetype, 0), t.typtypmod) as base_type_name, d.description FROM pg_catalog.pg_type t LEFT OUTER JOIN pg_catalog.pg_type et ON et.oid=t.typelem LEFT OUTER JOIN pg_catalog.pg_class c ON c.oid=t.typrelid LEFT OUTER JOIN pg_catalog.pg_description d ON t.oid=d.objoid WHERE t.typname IS NOT NULL AND (c.relkind IS NULL OR c.relkind = 'c') AND (et.typcategory IS NULL OR et.typcategory <> 'C')`},
	{false, `SELECT c.oid,c.*,d.description,pg_catalog.pg_get_expr(c.relpartbound, c.oid) as partition_expr, pg_catalog.pg_get_partkeydef(c.oid) as partition_key FROM pg_catalog.pg_class c LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_class'::regclass WHERE c.relnamespace='public'::regnamespace AND c.relkind not in ('i','I','c')`},
	{false, `select c.oid,pg_catalog.pg_total_relation_size(c.oid) as total_rel_size,pg_catalog.pg_relation_size(c.oid) as rel_size FROM pg_class c WHERE c.relnamespace='public'::regnamespace`},
	{false, `SELECT i.*,i.indkey as keys,c.relname,c.relnamespace,c.relam,c.reltablespace,tc.relname as tabrelname,dsc.description,pg_catalog.pg_get_expr(i.indpred, i.indrelid) as pred_expr,pg_catalog.pg_get_expr(i.indexprs, i.indrelid, true) as expr,pg_catalog.pg_relation_size(i.indexrelid) as index_rel_size,pg_catalog.pg_stat_get_numscans(i.indexrelid) as index_num_scans FROM pg_catalog.pg_index i INNER JOIN pg_catalog.pg_class c ON c.oid=i.indexrelid INNER JOIN pg_catalog.pg_class tc ON tc.oid=i.indrelid LEFT OUTER JOIN pg_catalog.pg_description dsc ON i.indexrelid=dsc.objoid WHERE i.indrelid='item'::regclass ORDER BY tabrelname, c.relname`},
	{false, `SELECT c.oid,c.*,t.relname as tabrelname,rt.relnamespace as refnamespace,d.description, case when c.contype='c' then "substring"(pg_get_constraintdef(c.oid), 7) else null end consrc_copy FROM pg_catalog.pg_constraint c INNER JOIN pg_catalog.pg_class t ON t.oid=c.conrelid LEFT OUTER JOIN pg_catalog.pg_class rt ON rt.oid=c.confrelid LEFT OUTER JOIN pg_catalog.pg_description d ON d.objoid=c.oid AND d.objsubid=0 AND d.classoid='pg_constraint'::regclass WHERE c.conrelid='item'::regclass ORDER BY c.oid`},
	{true, `SELECT c.relname, a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid) FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 3`},
	{false, `SELECT nspname AS "TABLE_SCHEM", current_database() AS "TABLE_CATALOG" FROM pg_catalog.pg_namespace WHERE nspname <> 'pg_toast' AND (nspname !~ '^pg_temp_' OR nspname = (pg_catalog.current_schemas(true))[1]) AND (nspname !~ '^pg_toast_temp_' OR nspname = replace((pg_catalog.current_schemas(true))[1], 'pg_temp_', 'pg_toast_temp_')) ORDER BY "TABLE_SCHEM"`},
	{true, `with table_privileges as ( select NULL as role, t.schemaname as schema, t.objectname as table, pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"', 'update') as update, pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"', 'select') as select, pg_catalog.has_any_column_privilege(current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"', 'insert') as insert, pg_catalog.has_table_privilege( current_user, '"' || replace(t.schemaname, '"', '""') || '"' || '.' || '"' || replace(t.objectname, '"', '""') || '"', 'delete') as delete from ( select schemaname, tablename as objectname from pg_catalog.pg_tables union select schemaname, viewname as objectname from pg_catalog.pg_views union select schemaname, matviewname as objectname from pg_catalog.pg_matviews ) t where t.schemaname !~ '^pg_' and t.schemaname <> 'information_schema' and pg_catalog.has_schema_privilege(current_user, t.schemaname, 'usage') ) select t.* from table_privileges t ORDER BY 3`},
	{true, `SELECT "n"."nspname" AS "schema", "c"."relname" AS "name", CASE "c"."relkind" WHEN 'r' THEN 'TABLE' WHEN 'p' THEN 'PARTITIONED TABLE' WHEN 'v' THEN 'VIEW' WHEN 'f' THEN 'FOREIGN TABLE' WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE NULL END AS "type", "d"."description" AS "description", "stat"."n_live_tup" AS "estimated_row_count" FROM "pg_catalog"."pg_class" AS "c" INNER JOIN "pg_catalog"."pg_namespace" AS "n" ON "c"."relnamespace" = "n"."oid" LEFT JOIN "pg_catalog"."pg_description" AS "d" ON ("c"."oid" = "d"."objoid") AND ("d"."objsubid" = '0') AND ("d"."classoid" = 'pg_class'::regclass) LEFT JOIN "pg_stat_user_tables" AS "stat" ON ("n"."nspname" = "stat"."schemaname") AND ("c"."relname" = "stat"."relname") WHERE ("c"."relnamespace" = "n"."oid") AND ("n"."nspname" !~ '^pg_') AND ("n"."nspname" <> 'information_schema') AND c.relkind in ('r', 'p', 'v', 'f', 'm') AND ("n"."nspname" IN ('public')) ORDER BY "type" ASC, "schema" ASC, "name" ASC`},
	{true, `SELECT TRUE AS "_" FROM "public"."item" WHERE 1 <> 1 LIMIT 0`},
	{true, `SELECT c.column_name, c.data_type, c.is_nullable, c.column_default, c.ordinal_position FROM information_schema.columns c WHERE c.table_schema = 'public' AND c.table_name = 'item' ORDER BY c.ordinal_position`},
	{true, `SELECT tc.constraint_name, kcu.column_name, ccu_t.relname AS foreign_table FROM information_schema.table_constraints tc JOIN information_schema.key_column_usage kcu ON tc.constraint_name = kcu.constraint_name JOIN information_schema.referential_constraints rc ON rc.constraint_name = tc.constraint_name JOIN pg_catalog.pg_constraint pc ON pc.conname = tc.constraint_name JOIN pg_catalog.pg_class ccu_t ON ccu_t.oid = pc.confrelid WHERE tc.constraint_type = 'FOREIGN KEY' ORDER BY 1, 2`},
	{true, `select current_database() as a, current_schemas(false) as b`},
	{false, `select N.oid::bigint as id, datname as name, D.description, datistemplate as is_template, datallowconn as allow_connections, pg_catalog.pg_get_userbyid(N.datdba) as "owner" from pg_catalog.pg_database N left join pg_catalog.pg_shdescription D on N.oid = D.objoid order by case when datname = pg_catalog.current_database() then -1::bigint else N.oid::bigint end`},
	{true, `SELECT d.description FROM pg_catalog.pg_database db LEFT JOIN pg_catalog.pg_shdescription d ON d.objoid = db.oid AND d.classoid = 'pg_database'::regclass WHERE db.datname = current_database()`},
	{true, `SELECT * FROM pg_catalog.pg_shdepend WHERE refobjid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace)`},
	{true, `SELECT * FROM pg_catalog.pg_default_acl`},
	{false, `SELECT * FROM pg_catalog.pg_init_privs WHERE false`},
	{true, `SELECT * FROM pg_catalog.pg_seclabel UNION ALL SELECT objoid, classoid, 0, provider, label FROM pg_catalog.pg_shseclabel`},
	{true, `SELECT tc.table_name, tc.constraint_type, regexp_replace(tc.constraint_name, '^[0-9]+_[0-9]+_', 'N_T_') AS name, tc.is_deferrable, tc.initially_deferred, tc.enforced, tc.nulls_distinct, cc.check_clause FROM information_schema.table_constraints tc LEFT JOIN information_schema.check_constraints cc ON cc.constraint_name = tc.constraint_name AND cc.constraint_schema = tc.constraint_schema WHERE tc.table_schema = 'public' ORDER BY 1, 2, 3`},
	{true, `SELECT * FROM information_schema.constraint_column_usage WHERE table_schema = 'public' ORDER BY constraint_name, column_name`},
	{true, `SELECT * FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`},
	{true, `SELECT c.column_name AS name, CASE WHEN c.udt_schema IN ('public', 'pg_catalog') THEN format('%s', c.udt_name) ELSE format('"%s"."%s"', c.udt_schema, c.udt_name) END AS "database-type", c.ordinal_position - 1 AS "database-position", c.table_schema AS "table-schema", c.table_name AS "table-name", pk.column_name IS NOT NULL AS "pk?", COL_DESCRIPTION(CAST(CAST(FORMAT('%I.%I', CAST(c.table_schema AS TEXT), CAST(c.table_name AS TEXT)) AS REGCLASS) AS OID), c.ordinal_position) AS "field-comment", ((column_default IS NULL) OR (LOWER(column_default) = 'null')) AND (is_nullable = 'NO') AND NOT (((column_default IS NOT NULL) AND (column_default LIKE '%nextval(%')) OR (is_identity <> 'NO')) AS "database-required", ((column_default IS NOT NULL) AND (column_default LIKE '%nextval(%')) OR (is_identity <> 'NO') AS "database-is-auto-increment" FROM information_schema.columns AS c LEFT JOIN (SELECT tc.table_schema, tc.table_name, kc.column_name FROM information_schema.table_constraints AS tc INNER JOIN information_schema.key_column_usage AS kc ON (tc.constraint_name = kc.constraint_name) AND (tc.table_schema = kc.table_schema) AND (tc.table_name = kc.table_name) WHERE tc.constraint_type = 'PRIMARY KEY') AS pk ON (c.table_schema = pk.table_schema) AND (c.table_name = pk.table_name) AND (c.column_name = pk.column_name) WHERE c.table_schema !~ '^information_schema|catalog_history|pg_' AND (c.table_schema IN ('public')) ORDER BY "table-schema" ASC, "table-name" ASC, "database-position" ASC`},
	{true, `SELECT fk_ns.nspname AS "fk-table-schema", fk_table.relname AS "fk-table-name", fk_column.attname AS "fk-column-name", pk_ns.nspname AS "pk-table-schema", pk_table.relname AS "pk-table-name", pk_column.attname AS "pk-column-name" FROM pg_constraint AS c INNER JOIN pg_class AS fk_table ON c.conrelid = fk_table.oid INNER JOIN pg_namespace AS fk_ns ON c.connamespace = fk_ns.oid INNER JOIN pg_attribute AS fk_column ON c.conrelid = fk_column.attrelid INNER JOIN pg_class AS pk_table ON c.confrelid = pk_table.oid INNER JOIN pg_namespace AS pk_ns ON pk_table.relnamespace = pk_ns.oid INNER JOIN pg_attribute AS pk_column ON c.confrelid = pk_column.attrelid WHERE (fk_ns.nspname !~ '^information_schema|catalog_history|pg_') AND (c.contype = 'f'::char) AND (fk_column.attnum = ANY(c.conkey)) AND (pk_column.attnum = ANY(c.confkey)) AND (fk_ns.nspname IN ('public')) ORDER BY "fk-table-schema" ASC, "fk-table-name" ASC, 3`},
	{false, `SELECT c.relname,a.*,pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value,dsc.description,dep.objid FROM pg_catalog.pg_attribute a INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid) LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum) LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid) LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid WHERE NOT a.attisdropped AND c.relkind not in ('i','I','c') AND c.oid='tick'::regclass ORDER BY a.attnum`},
	{true, `SELECT c.relname, a.attname, a.attnum, a.attidentity, a.atthasdef, pg_catalog.pg_get_expr(ad.adbin, ad.adrelid, true) as def_value, dsc.description, (SELECT relname FROM pg_class WHERE oid = dep.objid) AS identity_seq FROM pg_catalog.pg_attribute a INNER JOIN pg_catalog.pg_class c ON (a.attrelid=c.oid) LEFT OUTER JOIN pg_catalog.pg_attrdef ad ON (a.attrelid=ad.adrelid AND a.attnum = ad.adnum) LEFT OUTER JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid) LEFT OUTER JOIN pg_depend dep on dep.refobjid = a.attrelid AND dep.deptype = 'i' and dep.refobjsubid = a.attnum and dep.classid = dep.refclassid WHERE NOT a.attisdropped AND a.attnum > 0 AND c.relkind not in ('i','I','c') AND c.relnamespace = 'public'::regnamespace ORDER BY 1, 3`},
	{true, `SELECT c.relname, s.seqtypid::regtype, s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle FROM pg_catalog.pg_class c JOIN pg_catalog.pg_sequence s ON s.seqrelid = c.oid WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S' ORDER BY 1`},
	{true, `SELECT string_agg(word, ',' ) from pg_catalog.pg_get_keywords() where word <> ALL ('{a,abs,absolute,action,ada,add,admin,after,all,allocate,alter,always,and,any,are,array,as,asc,asensitive,assertion,assignment,asymmetric,at,atomic,attribute,attributes,authorization,avg,before,begin,bernoulli,between,bigint,binary,blob,boolean,both,breadth,by,c,call,called,cardinality,cascade,cascaded,case,cast,catalog,char,character,check,close,coalesce,collate,column,commit,constraint,create,cross,current,cursor,cycle,data,date,day,deallocate,dec,decimal,declare,default,not,null,nullif,numeric,of,old,on,only,open,option,or,order,out,outer,over,overlaps,position,precision,prepare,primary,procedure,public,range,read,real,references,release,rollback,row,rows,select,session_user,set,similar,some,table,then,time,to,trailing,transaction,trim,true,union,unique,update,user,using,values,varchar,view,when,where,window,with,without,work,write,year,zone}'::text[])`},
	{true, `SELECT a.attname, d.refobjsubid, d.deptype, t.relname FROM pg_catalog.pg_depend d JOIN pg_catalog.pg_class s ON s.oid = d.objid JOIN pg_catalog.pg_class t ON t.oid = d.refobjid JOIN pg_catalog.pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid WHERE s.relkind = 'S' AND d.classid = 'pg_class'::regclass ORDER BY 1`},
	{true, `SELECT classid::regclass, refclassid::regclass, refobjsubid, deptype, count(*) FROM pg_catalog.pg_depend WHERE refobjid IN (SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r') AND NOT (classid = 'pg_class'::regclass AND objid IN (SELECT oid FROM pg_class WHERE relkind = 't')) GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`},
}

// TestToolStartupQueries compares DBeaver's and Metabase's catalog
// queries with PostgreSQL over the same schema (rows, or the result's
// columns where PostgreSQL lists its built-in objects).
func TestToolStartupQueries(t *testing.T) {
	srv := startPG(t)
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
	for _, q := range toolQueries {
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
