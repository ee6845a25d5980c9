import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.*;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * Value round trip through pgjdbc: for every line of
 * testdata/types/values.tsv (args[0]) it sends the value's text with
 * setString as a parameter cast to its type, prints what getObject made
 * of the result, then sends that object back with setObject and prints
 * the result again. Errors print their SQLSTATE.
 * internal/e2e/drivers_test.go runs it against PostgreSQL 15 and pgproxy
 * and compares the outputs.
 */
public class JdbcTypes {
    static String show(Object x) throws SQLException {
        if (x == null) return "null";
        if (x instanceof byte[]) {
            StringBuilder sb = new StringBuilder("hex:");
            for (byte b : (byte[]) x) sb.append(String.format("%02x", b));
            return sb.toString();
        }
        if (x instanceof Array) {
            Object a = ((Array) x).getArray();
            return "array:" + Arrays.deepToString((Object[]) a);
        }
        return x.getClass().getSimpleName() + ":" + x;
    }

    static Object query(Connection c, String sql, Object param, boolean asString) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            if (param == null) ps.setNull(1, Types.VARCHAR);
            else if (asString) ps.setString(1, (String) param);
            else if (param instanceof Array) ps.setArray(1, (Array) param);
            else ps.setObject(1, param);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getObject(1);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://" + System.getenv("PGHOST") + ":" + System.getenv("PGPORT") + "/" + System.getenv("PGDATABASE");
        Properties p = new Properties();
        p.setProperty("user", System.getenv("PGUSER"));
        List<String> lines = Files.readAllLines(Paths.get(args[0]));
        try (Connection c = DriverManager.getConnection(url, p)) {
            try (Statement st = c.createStatement()) {
                st.execute("SET TimeZone = 'UTC'");
            }
            for (String line : lines) {
                if (line.isEmpty() || line.startsWith("#")) continue;
                String[] f = line.split("\t", 2);
                String typ = f[0], val = f[1];
                String v = val.equals("\\N") ? null : val;
                String sql = "SELECT ?::" + typ;
                StringBuilder out = new StringBuilder();
                Object x = null;
                boolean ok = false;
                try {
                    x = query(c, sql, v, true);
                    out.append(show(x));
                    ok = true;
                } catch (SQLException e) {
                    out.append("ERROR ").append(e.getSQLState());
                } catch (RuntimeException e) { // the driver cannot decode the value
                    out.append("CLIENT ").append(e.getClass().getSimpleName());
                }
                if (ok) {
                    out.append(" | ");
                    try {
                        out.append(show(query(c, sql, x, false)));
                    } catch (SQLException e) {
                        out.append("ERROR ").append(e.getSQLState());
                    } catch (RuntimeException e) {
                        out.append("CLIENT ").append(e.getClass().getSimpleName());
                    }
                }
                System.out.println(typ + "\t" + val + "\t" + out);
            }
        }
        System.out.println("OK");
    }
}
