// pgjdbc (extended protocol, prepareThreshold, pipelined BEGIN, batches,
// CopyManager, query timeout cancel) against the wire test server.
// Run: java -cp /usr/share/java/postgresql.jar JdbcClient.java
import java.io.StringReader;
import java.io.StringWriter;
import java.sql.*;
import java.util.Properties;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

public class JdbcClient {
    static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + System.getenv("PGHOST") + ":" + System.getenv("PGPORT") + "/" + System.getenv("PGDATABASE");
        Properties p = new Properties();
        p.setProperty("user", System.getenv("PGUSER"));
        p.setProperty("password", System.getenv("PGPASSWORD"));
        p.setProperty("sslmode", System.getenv("PGSSLMODE"));
        try (Connection c = DriverManager.getConnection(url, p)) {
            try (PreparedStatement ps = c.prepareStatement("select echo_int(?, ?)")) {
                for (int i = 0; i < 7; i++) { // named server-side statement after 5 uses
                    ps.setLong(1, 40 + i);
                    ps.setString(2, "j" + i);
                    try (ResultSet rs = ps.executeQuery()) {
                        check(rs.next(), "row");
                        check(rs.getLong(1) == 40 + i, "echo int " + rs.getLong(1));
                        check(rs.getString(2).equals("j" + i), "echo text " + rs.getString(2));
                    }
                }
            }
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select gen(3)")) {
                int n = 0;
                while (rs.next()) n++;
                check(n == 3, "gen rows " + n);
            }
            // autocommit off: BEGIN is pipelined before the batch
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("insert into t values (?)")) {
                for (int i = 0; i < 10; i++) {
                    ps.setString(1, "b" + i);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                check(counts.length == 10 && counts[9] == 1, "batch counts");
            }
            c.commit();
            CopyManager cm = new CopyManager((BaseConnection) c);
            long copied = cm.copyIn("COPY t (a, b) FROM STDIN", new StringReader("1\tx\n2\ty\n"));
            check(copied == 2, "copy in " + copied);
            StringWriter w = new StringWriter();
            long out = cm.copyOut("COPY (select gen(2)) TO STDOUT WITH (FORMAT csv)", w);
            check(out == 2 && w.toString().equals("1,row-1\n2,row-2\n"), "copy out " + w);
            c.commit();
            try (Statement st = c.createStatement()) {
                st.executeQuery("select fail()");
                check(false, "no error");
            } catch (SQLException e) {
                check("42P01".equals(e.getSQLState()), "state " + e.getSQLState());
            }
            try (Statement st = c.createStatement()) {
                st.executeQuery("select 1");
                check(false, "no error in failed transaction");
            } catch (SQLException e) {
                check("25P02".equals(e.getSQLState()), "state " + e.getSQLState());
            }
            c.rollback();
            long start = System.currentTimeMillis();
            try (Statement st = c.createStatement()) {
                st.setQueryTimeout(1); // pgjdbc sends a CancelRequest
                st.executeQuery("select sleep(10000)");
                check(false, "not cancelled");
            } catch (SQLException e) {
                check("57014".equals(e.getSQLState()), "state " + e.getSQLState());
            }
            check(System.currentTimeMillis() - start < 5000, "cancel took too long");
            c.rollback();
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("select 1")) {
                check(rs.next() && rs.getInt(1) == 1, "select 1 after cancel");
            }
        }
        System.out.println("OK");
    }
}
