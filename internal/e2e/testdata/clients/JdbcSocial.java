// pgjdbc against pgproxy: the social graph flow — DDL, CopyManager COPY
// IN, server-prepared statements (prepareThreshold), batches in a
// transaction, each constraint class's SQLSTATE, rollback, time travel
// and a branch reached as a database. PG* variables carry the
// connection; prints OK at the end. E2E_TARGET=postgres runs only what
// PostgreSQL itself has.
// Run: java -cp /usr/share/java/postgresql.jar JdbcSocial.java
import java.io.StringReader;
import java.sql.*;
import java.util.Properties;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

public class JdbcSocial {
    static final boolean GRAPH = !"postgres".equals(System.getenv("E2E_TARGET"));

    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    static Connection connect(String db) throws SQLException {
        String url = "jdbc:postgresql://" + System.getenv("PGHOST") + ":" + System.getenv("PGPORT") + "/" + db;
        Properties p = new Properties();
        p.setProperty("user", System.getenv("PGUSER"));
        p.setProperty("prepareThreshold", "2");
        return DriverManager.getConnection(url, p);
    }

    interface Sql { void run() throws SQLException; }

    static void expectState(String code, String what, Sql s) {
        try {
            s.run();
        } catch (SQLException e) {
            check(code.equals(e.getSQLState()), what + ": got " + e.getSQLState() + " " + e.getMessage());
            return;
        }
        throw new AssertionError(what + ": no error, want " + code);
    }

    static long count(Connection c, String sql) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            check(rs.next(), "a count row");
            return rs.getLong(1);
        }
    }

    public static void main(String[] args) throws Exception {
        String edge = GRAPH ? " WITH (graph.kind = edge)" : "";
        try (Connection c = connect(System.getenv("PGDATABASE")); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE people (id int8 PRIMARY KEY, name text NOT NULL, email text UNIQUE, age int4 CHECK (age >= 0))");
            st.execute("CREATE TABLE companies (id int4 PRIMARY KEY, name text NOT NULL UNIQUE, founded date)");
            st.execute("CREATE TABLE knows (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, "
                + "dst int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, since int4, UNIQUE (src, dst))" + edge);
            st.execute("CREATE TABLE works_at (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, "
                + "dst int4 NOT NULL REFERENCES companies (id) ON DELETE RESTRICT, role text NOT NULL DEFAULT 'engineer')" + edge);
            CopyManager cm = new CopyManager((BaseConnection) c);
            long n = cm.copyIn("COPY people (id, name, email, age) FROM STDIN", new StringReader(
                "1\tAda\tada@example.com\t36\n2\tGrace\tgrace@example.com\t45\n3\tLinus\tlinus@example.com\t\\N\n"
                + "4\tBarbara\tbarbara@example.com\t52\n5\tKen\t\\N\t61\n6\tEdsger\tedsger@example.com\t70\n"));
            check(n == 6, "COPY people " + n);
            n = cm.copyIn("COPY companies FROM STDIN WITH (FORMAT csv, HEADER true)", new StringReader(
                "id,name,founded\n1,Analytical Engines,1843-09-01\n2,\"Compilers, Inc.\",1952-05-03\n3,Kernel Co,\n"));
            check(n == 3, "COPY companies " + n);

            // a batch of edges in one transaction (autocommit off pipelines BEGIN)
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO knows (src, dst, since) VALUES (?, ?, ?)")) {
                long[][] edges = {{1, 2, 1990}, {2, 1, 1990}, {1, 3, 0}, {2, 4, 2001}, {3, 5, 2011}, {4, 6, 1975}, {5, 6, 1980}, {6, 1, 1968}};
                for (long[] e : edges) {
                    ps.setLong(1, e[0]);
                    ps.setLong(2, e[1]);
                    if (e[2] == 0) ps.setNull(3, Types.INTEGER); else ps.setInt(3, (int) e[2]);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                check(counts.length == 8 && counts[7] == 1, "batch counts");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO works_at (src, dst, role) VALUES (?, ?, ?)")) {
                Object[][] jobs = {{1L, 1, "founder"}, {2L, 2, "admiral"}, {3L, 3, "maintainer"}, {4L, 2, "engineer"}, {5L, 3, "engineer"}, {6L, 2, "professor"}};
                for (Object[] j : jobs) {
                    ps.setLong(1, (Long) j[0]);
                    ps.setInt(2, (Integer) j[1]);
                    ps.setString(3, (String) j[2]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            c.setAutoCommit(true);

            // a server-prepared query reused past prepareThreshold
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT p.name FROM knows k JOIN people p ON p.id = k.dst WHERE k.src = ? ORDER BY p.name")) {
                String[][] want = {{"Grace", "Linus"}, {"Ada", "Barbara"}, {"Ken"}, {"Edsger"}, {"Edsger"}, {"Ada"}};
                for (int i = 0; i < want.length; i++) {
                    ps.setLong(1, i + 1);
                    try (ResultSet rs = ps.executeQuery()) {
                        for (String w : want[i]) {
                            check(rs.next(), "row for " + (i + 1));
                            check(w.equals(rs.getString(1)), "friend of " + (i + 1) + ": " + rs.getString(1));
                        }
                        check(!rs.next(), "extra row for " + (i + 1));
                    }
                }
            }
            try (ResultSet rs = st.executeQuery("SELECT founded FROM companies WHERE id = 1")) {
                check(rs.next() && rs.getDate(1).toString().equals("1843-09-01"), "founded date");
            }

            expectState("23505", "primary key", () -> st.execute("INSERT INTO people (id, name) VALUES (1, 'Dup')"));
            expectState("23505", "unique", () -> st.execute("INSERT INTO people (id, name, email) VALUES (7, 'Dup', 'ada@example.com')"));
            expectState("23502", "not null", () -> {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO people (id, name) VALUES (?, ?)")) {
                    ps.setLong(1, 7);
                    ps.setNull(2, Types.VARCHAR);
                    ps.executeUpdate();
                }
            });
            expectState("23514", "check", () -> st.execute("UPDATE people SET age = -1 WHERE id = 2"));
            expectState("23503", "edge endpoint", () -> st.execute("INSERT INTO knows (src, dst) VALUES (1, 999)"));
            expectState("23503", "restrict", () -> st.execute("DELETE FROM companies WHERE id = 3"));
            check(count(c, "SELECT count(*) FROM people") == 6, "failed statements changed nothing");

            c.setAutoCommit(false);
            st.executeUpdate("INSERT INTO people (id, name) VALUES (7, 'Alan')");
            check(count(c, "SELECT count(*) FROM people") == 7, "read your writes");
            c.rollback();
            check(count(c, "SELECT count(*) FROM people") == 6, "rolled back");
            expectState("23505", "in a transaction", () -> st.execute("INSERT INTO people (id, name) VALUES (2, 'Dup')"));
            expectState("25P02", "failed transaction", () -> st.executeQuery("SELECT 1").close());
            c.rollback();
            c.setAutoCommit(true);

            String before = null;
            if (GRAPH) {
                try (ResultSet rs = st.executeQuery("SHOW graph.last_commit")) {
                    check(rs.next(), "last_commit row");
                    before = rs.getString(1);
                }
            }
            check(st.executeUpdate("DELETE FROM people WHERE id = 6") == 1, "delete Edsger");
            check(count(c, "SELECT count(*) FROM knows WHERE 6 IN (src, dst)") == 0, "cascade");
            if (GRAPH) {
                st.execute("SET graph.as_of = '" + before + "'");
                check(count(c, "SELECT count(*) FROM knows WHERE 6 IN (src, dst)") == 3, "as of before the delete");
                expectState("25006", "write as of", () -> st.execute("DELETE FROM knows"));
                st.execute("RESET graph.as_of");
                st.execute("CALL graph.create_branch('jdbc')");
                try (Connection b = connect("jdbc"); Statement bst = b.createStatement()) {
                    bst.executeUpdate("INSERT INTO people (id, name) VALUES (6, 'Edsger again')");
                    check(count(b, "SELECT count(*) FROM people") == 6, "branch has the new row");
                }
                check(count(c, "SELECT count(*) FROM people") == 5, "main does not");
            }
        }
        System.out.println("OK");
    }
}
