// pgjdbc DatabaseMetaData against a server: prints every result set the
// calls below return (column labels and type names, then the rows) in
// one canonical text form, so the Go tests can diff the transcript from
// pgproxy (or exec's wire server) against PostgreSQL 15's for the same
// schema. PG* variables carry the connection. Values that differ by
// design (OIDs inside SPECIFIC_NAME, built-in functions' REMARKS) are masked; result sets PostgreSQL
// fills with hundreds of built-in objects are restricted to named ones.
// Run: java -cp /usr/share/java/postgresql.jar JdbcMetadata.java
import java.sql.*;
import java.util.*;

public class JdbcMetadata {
    static final StringBuilder out = new StringBuilder();

    interface Call { ResultSet run(DatabaseMetaData md) throws SQLException; }

    // dump prints a result set; keep (when non-null) selects the rows
    // whose column keepCol is one of keep; mask blanks the named columns.
    static void dump(DatabaseMetaData md, String title, Call c, String keepCol, Set<String> keep, String... mask) {
        out.append("## ").append(title).append('\n');
        try (ResultSet rs = c.run(md)) {
            ResultSetMetaData m = rs.getMetaData();
            int n = m.getColumnCount();
            StringBuilder h = new StringBuilder();
            for (int i = 1; i <= n; i++) {
                h.append(i > 1 ? " | " : "").append(m.getColumnLabel(i)).append(':').append(m.getColumnTypeName(i));
            }
            out.append(h).append('\n');
            List<String> rows = new ArrayList<>();
            while (rs.next()) {
                if (keep != null && !keep.contains(rs.getString(keepCol))) {
                    continue;
                }
                StringBuilder r = new StringBuilder();
                for (int i = 1; i <= n; i++) {
                    String v = rs.getString(i);
                    for (String mk : mask) {
                        if (m.getColumnLabel(i).equalsIgnoreCase(mk)) {
                            v = "*";
                        }
                    }
                    r.append(i > 1 ? " | " : "").append(v == null ? "NULL" : v);
                }
                rows.add(r.toString());
            }
            for (String r : rows) {
                out.append(r).append('\n');
            }
            out.append("(").append(rows.size()).append(" rows)\n");
        } catch (SQLException e) {
            out.append("ERROR ").append(e.getSQLState()).append(": ").append(e.getMessage()).append('\n');
        }
    }

    static void dump(DatabaseMetaData md, String title, Call c) {
        dump(md, title, c, null, null);
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + System.getenv("PGHOST") + ":" + System.getenv("PGPORT") + "/" + System.getenv("PGDATABASE");
        Properties p = new Properties();
        p.setProperty("user", System.getenv("PGUSER"));
        try (Connection c = DriverManager.getConnection(url, p)) {
            DatabaseMetaData md = c.getMetaData();
            dump(md, "getSchemas()", m -> m.getSchemas());
            dump(md, "getSchemas(null, pub%)", m -> m.getSchemas(null, "pub%"));
            dump(md, "getTables(public, %, TABLE)", m -> m.getTables(null, "public", "%", new String[] {"TABLE"}));
            dump(md, "getTables(public, %, all)", m -> m.getTables(null, "public", "%", null));
            dump(md, "getTables(null, item, null)", m -> m.getTables(null, null, "item", null));
            dump(md, "getColumns(public, %, %)", m -> m.getColumns(null, "public", "%", "%"));
            dump(md, "getColumns(null, item, q%)", m -> m.getColumns(null, null, "item", "q%"));
            for (String t : new String[] {"cat", "item", "tag", "item_tag", "nokey"}) {
                dump(md, "getPrimaryKeys(" + t + ")", m -> m.getPrimaryKeys(null, "public", t));
                dump(md, "getIndexInfo(" + t + ", false)", m -> m.getIndexInfo(null, "public", t, false, true));
                dump(md, "getIndexInfo(" + t + ", true)", m -> m.getIndexInfo(null, "public", t, true, true));
                dump(md, "getImportedKeys(" + t + ")", m -> m.getImportedKeys(null, "public", t));
                dump(md, "getExportedKeys(" + t + ")", m -> m.getExportedKeys(null, "public", t));
                dump(md, "getBestRowIdentifier(" + t + ")", m -> m.getBestRowIdentifier(null, "public", t, DatabaseMetaData.bestRowSession, true));
            }
            dump(md, "getPrimaryKeys(null, null, item)", m -> m.getPrimaryKeys(null, null, "item"));
            dump(md, "getCrossReference(cat, item)", m -> m.getCrossReference(null, "public", "cat", null, "public", "item"));
            dump(md, "getCrossReference(item, item_tag)", m -> m.getCrossReference(null, "public", "item", null, "public", "item_tag"));
            Set<String> types = new HashSet<>(Arrays.asList("bool", "int2", "int4", "int8", "text", "varchar", "bpchar", "numeric",
                "float4", "float8", "date", "timestamp", "timestamptz", "bytea", "uuid", "jsonb", "json", "_int4", "_text", "interval"));
            dump(md, "getTypeInfo() (builtin subset)", m -> m.getTypeInfo(), "TYPE_NAME", types);
            dump(md, "getFunctions(public, %)", m -> m.getFunctions(null, "public", "%"));
            // built-in functions: pgproxy has no pg_description rows for
            // them (REMARKS) and its own pg_proc OIDs (SPECIFIC_NAME)
            dump(md, "getFunctions(pg_catalog, version)", m -> m.getFunctions(null, "pg_catalog", "version"), null, null, "SPECIFIC_NAME", "REMARKS");
            dump(md, "getFunctions(null, current_database)", m -> m.getFunctions(null, null, "current_database"), null, null, "SPECIFIC_NAME", "REMARKS");
            dump(md, "getProcedures(public, %)", m -> m.getProcedures(null, "public", "%"));
            dump(md, "getFunctionColumns(pg_catalog, version)", m -> m.getFunctionColumns(null, "pg_catalog", "version", null), null, null, "SPECIFIC_NAME", "REMARKS");
            dump(md, "getProcedureColumns(pg_catalog, version)", m -> m.getProcedureColumns(null, "pg_catalog", "version", null), null, null, "SPECIFIC_NAME", "REMARKS");
            dump(md, "getColumnPrivileges(public, item, q%)", m -> m.getColumnPrivileges(null, "public", "item", "q%"));
            dump(md, "getTables(public, %, SEQUENCE)", m -> m.getTables(null, "public", "%", new String[] {"SEQUENCE"}));
            dump(md, "getColumns(null, tick, %)", m -> m.getColumns(null, "public", "tick", "%"));
            dump(md, "getTablePrivileges(public, item)", m -> m.getTablePrivileges(null, "public", "item"));
            dump(md, "getVersionColumns(item)", m -> m.getVersionColumns(null, "public", "item"));
            dump(md, "getUDTs(public)", m -> m.getUDTs(null, "public", "%", null));
            dump(md, "getCatalogs()", m -> m.getCatalogs());
            dump(md, "getTableTypes()", m -> m.getTableTypes());
            // ResultSetMetaData reads pg_attribute/pg_class/pg_attrdef for
            // the result's source columns (nullability, auto-increment)
            for (String q : new String[] {"SELECT * FROM tick", "SELECT i.id, i.qty, c.code, i.price, i.sku, 1 AS one FROM item i JOIN cat c ON c.id = i.cat_id"}) {
                out.append("## ResultSetMetaData ").append(q).append('\n');
                try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(q)) {
                    org.postgresql.PGResultSetMetaData m = rs.getMetaData().unwrap(org.postgresql.PGResultSetMetaData.class);
                    ResultSetMetaData jm = rs.getMetaData();
                    for (int i = 1; i <= jm.getColumnCount(); i++) {
                        out.append(jm.getColumnLabel(i)).append(" | ").append(jm.getColumnTypeName(i))
                            .append(" | ").append(m.getBaseTableName(i)).append(" | ").append(m.getBaseColumnName(i))
                            .append(" | nullable=").append(jm.isNullable(i)).append(" | auto=").append(jm.isAutoIncrement(i))
                            .append(" | ").append(jm.getPrecision(i)).append(',').append(jm.getScale(i))
                            .append(" | ").append(jm.getColumnDisplaySize(i)).append(" | ").append(jm.getColumnClassName(i)).append('\n');
                    }
                } catch (SQLException e) {
                    out.append("ERROR ").append(e.getSQLState()).append('\n');
                }
            }
            out.append("## product\n").append(md.getDatabaseProductName()).append(' ').append(md.getDatabaseMajorVersion()).append('\n');
        }
        System.out.print(out);
        System.out.println("OK");
    }
}
