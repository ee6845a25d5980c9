package graphbench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Query is one benchmark query; $1 is the start node of a traversal.
type Query struct {
	Name string
	SQL  string
	// ProxySQL, when set, is what pgproxy runs instead of SQL: the same
	// question as a GRAPH_TABLE pattern (docs/sql.md), which PostgreSQL
	// 15 lacks; the answers must be equal.
	ProxySQL   string
	Traversal  bool // single-node: one start node per round, target 1x
	WholeGraph bool // target 5x
}

// Queries are the benchmark's queries.
var Queries = []Query{
	{Name: "1-hop count", SQL: "SELECT count(*) FROM knows WHERE src = $1", Traversal: true},
	{Name: "1-hop names (lookup through edges)", SQL: "SELECT p.name FROM knows e JOIN person p ON p.id = e.dst WHERE e.src = $1 ORDER BY p.name, e.since", Traversal: true},
	{Name: "top-3 neighbours by w", SQL: "SELECT dst, w FROM knows WHERE src = $1 ORDER BY w DESC, dst LIMIT 3", Traversal: true},
	{Name: "2-hop count", SQL: "SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = $1", Traversal: true},
	{Name: "2-hop distinct, age filter", SQL: "SELECT count(DISTINCT e2.dst) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN person p ON p.id = e2.dst WHERE e1.src = $1 AND p.age > 40", Traversal: true},
	{Name: "3-hop count", SQL: "SELECT count(*), count(DISTINCT e3.dst) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN knows e3 ON e3.src = e2.dst WHERE e1.src = $1", Traversal: true},
	{Name: "3-hop from 100 nodes, names", SQL: "SELECT count(*), count(DISTINCT p.name) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN knows e3 ON e3.src = e2.dst JOIN person p ON p.id = e3.dst WHERE e1.src BETWEEN $1 AND $1 + 99", Traversal: true},
	{Name: "friends-of-friends top 5", SQL: "SELECT e2.dst, count(*) AS c FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = $1 AND e2.dst <> $1 AND NOT EXISTS (SELECT 1 FROM knows x WHERE x.src = $1 AND x.dst = e2.dst) GROUP BY e2.dst ORDER BY c DESC, e2.dst LIMIT 5", Traversal: true},
	{Name: "recursive depth 4 (paths)", SQL: "WITH RECURSIVE r(node, depth) AS (SELECT $1::bigint, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN knows e ON e.src = r.node WHERE r.depth < 4) SELECT count(*), count(DISTINCT node) FROM r", Traversal: true},
	{Name: "recursive depth 4 (reachable)", SQL: "WITH RECURSIVE r(node, depth) AS (SELECT $1::bigint, 0 UNION SELECT e.dst, r.depth + 1 FROM r JOIN knows e ON e.src = r.node WHERE r.depth < 4) SELECT depth, count(*) FROM r GROUP BY depth ORDER BY depth", Traversal: true},
	{Name: "2-hop top-5 by w", SQL: "SELECT e2.dst, e2.w FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = $1 ORDER BY e2.w DESC, e2.dst LIMIT 5", Traversal: true},
	{Name: "recursive depth 4 (CYCLE)", SQL: "WITH RECURSIVE r(node, depth) AS (SELECT $1::bigint, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN knows e ON e.src = r.node WHERE r.depth < 4) CYCLE node SET is_cycle USING path SELECT count(*), count(*) FILTER (WHERE is_cycle) FROM r", Traversal: true},
	{Name: "recursive depth 4 (array path)", SQL: "WITH RECURSIVE r(node, path) AS (SELECT $1::bigint, ARRAY[$1::bigint] UNION ALL SELECT e.dst, r.path || e.dst FROM r JOIN knows e ON e.src = r.node WHERE cardinality(r.path) < 5 AND NOT e.dst = ANY (r.path)) SELECT count(*), count(DISTINCT node), max(cardinality(path)) FROM r", Traversal: true},
	{Name: "shortest path (depth <= 5)", SQL: "WITH RECURSIVE sp(node, depth) AS (SELECT $1::bigint, 0 UNION SELECT e.dst, sp.depth + 1 FROM sp JOIN knows e ON e.src = sp.node WHERE sp.depth < 5) SELECT node, min(depth) FROM sp WHERE node IN (1, 2, 3, 4, 5) GROUP BY node ORDER BY node", Traversal: true},
	// the traversals above as SQL/PGQ patterns on pgproxy, the join or
	// recursive form on PostgreSQL 15
	{Name: "1-hop names, GRAPH_TABLE", SQL: "SELECT p.name FROM knows e JOIN person p ON p.id = e.dst WHERE e.src = $1 ORDER BY p.name, e.since",
		ProxySQL: "SELECT name FROM GRAPH_TABLE (graph MATCH (a IS person WHERE a.id = $1)-[e IS knows]->(p IS person) COLUMNS (p.name, e.since)) g ORDER BY name, since", Traversal: true},
	{Name: "2-hop count, GRAPH_TABLE", SQL: "SELECT count(*) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst WHERE e1.src = $1",
		ProxySQL: "SELECT count(*) FROM GRAPH_TABLE (graph MATCH (a IS person WHERE a.id = $1)-[IS knows]->(b)-[IS knows]->(c) COLUMNS (c.id))", Traversal: true},
	{Name: "3-hop count, GRAPH_TABLE", SQL: "SELECT count(*), count(DISTINCT e3.dst) FROM knows e1 JOIN knows e2 ON e2.src = e1.dst JOIN knows e3 ON e3.src = e2.dst WHERE e1.src = $1",
		ProxySQL: "SELECT count(*), count(DISTINCT id) FROM GRAPH_TABLE (graph MATCH (a IS person WHERE a.id = $1)-[IS knows]->(b)-[IS knows]->(c)-[IS knows]->(d) COLUMNS (d.id))", Traversal: true},
	{Name: "depth 4 (paths), GRAPH_TABLE {0,4}", SQL: "WITH RECURSIVE r(node, depth) AS (SELECT $1::bigint, 0 UNION ALL SELECT e.dst, r.depth + 1 FROM r JOIN knows e ON e.src = r.node WHERE r.depth < 4) SELECT count(*), count(DISTINCT node) FROM r",
		ProxySQL: "SELECT count(*), count(DISTINCT id) FROM GRAPH_TABLE (graph MATCH (a IS person WHERE a.id = $1)-[IS knows]->{0,4}(b) COLUMNS (b.id))", Traversal: true},
	{Name: "depth 4 (array path), ACYCLIC", SQL: "WITH RECURSIVE r(node, path) AS (SELECT $1::bigint, ARRAY[$1::bigint] UNION ALL SELECT e.dst, r.path || e.dst FROM r JOIN knows e ON e.src = r.node WHERE cardinality(r.path) < 5 AND NOT e.dst = ANY (r.path)) SELECT count(*), count(DISTINCT node), max(cardinality(path)) FROM r",
		ProxySQL: "SELECT count(*), count(DISTINCT id), max(len) + 1 FROM GRAPH_TABLE (graph MATCH p = ACYCLIC (a IS person WHERE a.id = $1)-[IS knows]->{0,4}(b) COLUMNS (b.id, path_length(p) AS len))", Traversal: true},
	{Name: "shortest path, ANY SHORTEST", SQL: "WITH RECURSIVE sp(node, depth) AS (SELECT $1::bigint, 0 UNION SELECT e.dst, sp.depth + 1 FROM sp JOIN knows e ON e.src = sp.node WHERE sp.depth < 5) SELECT node, min(depth) FROM sp WHERE node IN (1, 2, 3, 4, 5) GROUP BY node ORDER BY node",
		ProxySQL: "SELECT id, len FROM GRAPH_TABLE (graph MATCH p = ANY SHORTEST (a IS person WHERE a.id = $1)-[IS knows]->{0,5}(b IS person WHERE b.id IN (1, 2, 3, 4, 5)) COLUMNS (b.id, path_length(p) AS len)) g ORDER BY id", Traversal: true},
	{Name: "shortest path depth 6, ANY SHORTEST", SQL: "WITH RECURSIVE sp(node, depth) AS (SELECT $1::bigint, 0 UNION SELECT e.dst, sp.depth + 1 FROM sp JOIN knows e ON e.src = sp.node WHERE sp.depth < 6) SELECT node, min(depth) FROM sp WHERE node IN (1, 2, 3, 4, 5) GROUP BY node ORDER BY node",
		ProxySQL: "SELECT id, len FROM GRAPH_TABLE (graph MATCH p = ANY SHORTEST (a IS person WHERE a.id = $1)-[IS knows]->{0,6}(b IS person WHERE b.id IN (1, 2, 3, 4, 5)) COLUMNS (b.id, path_length(p) AS len)) g ORDER BY id", Traversal: true},
	{Name: "join ORDER BY key DESC LIMIT 2", SQL: "SELECT e.src, e.dst, p.name FROM knows e JOIN person p ON p.id = e.src ORDER BY e.src DESC, e.dst DESC LIMIT 2"},
	{Name: "degree distribution", SQL: "SELECT d, count(*) FROM (SELECT src, count(*) AS d FROM knows GROUP BY src) x GROUP BY d ORDER BY d", WholeGraph: true},
	{Name: "triangle count", SQL: "SELECT count(*) FROM knows a JOIN knows b ON b.src = a.dst JOIN knows c ON c.src = b.dst AND c.dst = a.src WHERE a.src < b.src AND b.src < c.src", WholeGraph: true},
	{Name: "PageRank, 3 iterations", SQL: pageRankSQL, WholeGraph: true},
}

// pageRankSQL runs three PageRank iterations (damping 0.85, dangling
// mass dropped) as SQL and lists the top 10; ranks are rounded so that
// float sums added in another order compare equal.
const pageRankSQL = `WITH n AS (SELECT count(*)::float8 AS n FROM person),
deg AS (SELECT src, count(*)::float8 AS d FROM knows GROUP BY src),
r0 AS (SELECT p.id, 1.0 / n.n AS r FROM person p, n),
r1 AS (SELECT p.id, 0.15 / n.n + 0.85 * coalesce(sum(r0.r / deg.d), 0) AS r FROM person p CROSS JOIN n LEFT JOIN knows e ON e.dst = p.id LEFT JOIN r0 ON r0.id = e.src LEFT JOIN deg ON deg.src = e.src GROUP BY p.id, n.n),
r2 AS (SELECT p.id, 0.15 / n.n + 0.85 * coalesce(sum(r1.r / deg.d), 0) AS r FROM person p CROSS JOIN n LEFT JOIN knows e ON e.dst = p.id LEFT JOIN r1 ON r1.id = e.src LEFT JOIN deg ON deg.src = e.src GROUP BY p.id, n.n),
r3 AS (SELECT p.id, 0.15 / n.n + 0.85 * coalesce(sum(r2.r / deg.d), 0) AS r FROM person p CROSS JOIN n LEFT JOIN knows e ON e.dst = p.id LEFT JOIN r2 ON r2.id = e.src LEFT JOIN deg ON deg.src = e.src GROUP BY p.id, n.n)
SELECT id, round(r::numeric, 9) AS rank FROM r3 ORDER BY round(r::numeric, 9) DESC, id LIMIT 10`

// Config says what to run against.
type Config struct {
	Persons int
	Seed    int64
	Rounds  int
	// Proxy and Postgres are connected clients of the two servers (empty
	// databases: Load creates the tables).
	Proxy, Postgres *pgx.Conn
	Log             io.Writer // progress; nil: none
	// Only picks the queries to run by name; nil: all.
	Only func(name string) bool
}

// Result is one query's measurements.
type Result struct {
	Query      string    `json:"query"`
	Target     string    `json:"target"`
	ProxyMs    []float64 `json:"pgproxy_ms"`
	PostgresMs []float64 `json:"postgres_ms"`
	ProxyP50   float64   `json:"pgproxy_median_ms"`
	ProxyP95   float64   `json:"pgproxy_p95_ms"`
	PgP50      float64   `json:"postgres_median_ms"`
	PgP95      float64   `json:"postgres_p95_ms"`
	Ratio      float64   `json:"ratio"` // postgres median / pgproxy median
	Pass       bool      `json:"meets_target"`
}

// Load creates and fills the tables on both sides.
func Load(ctx context.Context, c Config, g *Graph) error {
	proxyDDL := []string{
		"CREATE TABLE person (id bigint PRIMARY KEY, name text, age int)",
		"CREATE TABLE knows (src bigint NOT NULL REFERENCES person (id), dst bigint NOT NULL REFERENCES person (id), since int, w int) WITH (graph.kind = edge)",
	}
	pgDDL := []string{
		"CREATE TABLE person (id bigint PRIMARY KEY, name text, age int)",
		"CREATE TABLE knows (src bigint NOT NULL REFERENCES person (id), dst bigint NOT NULL REFERENCES person (id), since int, w int)",
	}
	after := []string{"CREATE INDEX knows_src ON knows (src)", "CREATE INDEX knows_dst ON knows (dst)"}
	for side, conn := range map[string]*pgx.Conn{"pgproxy": c.Proxy, "postgres": c.Postgres} {
		ddl := pgDDL
		if side == "pgproxy" {
			ddl = proxyDDL
		}
		for _, s := range ddl {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %s: %w", side, s, err)
			}
		}
		if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(g.PersonCopy), "COPY person FROM STDIN"); err != nil {
			return fmt.Errorf("%s: COPY person: %w", side, err)
		}
		if _, err := conn.PgConn().CopyFrom(ctx, bytes.NewReader(g.KnowsCopy), "COPY knows FROM STDIN"); err != nil {
			return fmt.Errorf("%s: COPY knows: %w", side, err)
		}
		for _, s := range after {
			if _, err := conn.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %s: %w", side, s, err)
			}
		}
	}
	_, err := c.Postgres.Exec(ctx, "VACUUM ANALYZE")
	return err
}

// startNode is round r's start node: spread over the ids, the same on
// both sides.
func startNode(r, persons int) int64 {
	return int64((r*7919+17)%persons + 1)
}

// Run times every query (see the package doc). A differing answer is an
// error naming the query and start node.
func Run(ctx context.Context, c Config) ([]Result, error) {
	var out []Result
	for _, q := range Queries {
		if c.Only != nil && !c.Only(q.Name) {
			continue
		}
		args := func(r int) []any {
			if strings.Contains(q.SQL, "$1") {
				return []any{startNode(r, c.Persons)}
			}
			return nil
		}
		// warm-up: every start node's answer compared once
		sqlOn := func(conn *pgx.Conn) string {
			if conn == c.Proxy && q.ProxySQL != "" {
				return q.ProxySQL
			}
			return q.SQL
		}
		for r := 0; r < c.Rounds; r++ {
			a, _, err := runQuery(ctx, c.Proxy, sqlOn(c.Proxy), args(r))
			if err != nil {
				return nil, fmt.Errorf("pgproxy: %s: %w", q.Name, err)
			}
			b, _, err := runQuery(ctx, c.Postgres, q.SQL, args(r))
			if err != nil {
				return nil, fmt.Errorf("postgres: %s: %w", q.Name, err)
			}
			if !slices.Equal(a, b) {
				return nil, fmt.Errorf("%s (start node %v): pgproxy answered %v, PostgreSQL %v", q.Name, args(r), clip(a), clip(b))
			}
			if !q.Traversal {
				break
			}
		}
		res := Result{Query: q.Name, Target: ">= 1x"}
		if q.WholeGraph {
			res.Target = ">= 5x"
		}
		var ours, theirs []time.Duration
		for r := 0; r < c.Rounds; r++ {
			sides := []*pgx.Conn{c.Proxy, c.Postgres}
			if r%2 == 1 {
				sides[0], sides[1] = sides[1], sides[0]
			}
			for _, conn := range sides {
				_, d, err := runQuery(ctx, conn, sqlOn(conn), args(r))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", q.Name, err)
				}
				if conn == c.Proxy {
					ours = append(ours, d)
				} else {
					theirs = append(theirs, d)
				}
			}
		}
		res.ProxyMs, res.PostgresMs = msList(ours), msList(theirs)
		res.ProxyP50, res.ProxyP95 = ms(quantile(ours, 0.5)), ms(quantile(ours, 0.95))
		res.PgP50, res.PgP95 = ms(quantile(theirs, 0.5)), ms(quantile(theirs, 0.95))
		if res.ProxyP50 > 0 {
			res.Ratio = float64(int(100*res.PgP50/res.ProxyP50+0.5)) / 100
		}
		res.Pass = (q.WholeGraph && res.Ratio >= 5) || (!q.WholeGraph && res.Ratio >= 1)
		if c.Log != nil {
			fmt.Fprintf(c.Log, "%-36s %10.3f %10.3f %10.3f %10.3f %7.2fx %6s\n", q.Name, res.ProxyP50, res.ProxyP95, res.PgP50, res.PgP95, res.Ratio, res.Target)
		}
		out = append(out, res)
	}
	return out, nil
}

// Header is the column line of Run's log.
func Header() string {
	return fmt.Sprintf("%-36s %10s %10s %10s %10s %8s %6s", "query (ms)", "pgproxy", "p95", "postgres", "p95", "ratio", "target")
}

// runQuery runs sql and returns its rows as text, and the elapsed time.
func runQuery(ctx context.Context, conn *pgx.Conn, sql string, args []any) ([]string, time.Duration, error) {
	start := time.Now()
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, 0, err
	}
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return nil, 0, err
		}
		out = append(out, fmt.Sprint(vals...))
	}
	rows.Close()
	took := time.Since(start)
	return out, took, rows.Err()
}

func clip(rows []string) []string {
	if len(rows) > 5 {
		return append(slices.Clone(rows[:5]), fmt.Sprintf("… (%d rows)", len(rows)))
	}
	return rows
}

func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := int(q*float64(len(s)-1) + 0.5)
	return s[min(i, len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func msList(d []time.Duration) []float64 {
	out := make([]float64, len(d))
	for i, x := range d {
		out[i] = ms(x)
	}
	return out
}

// Explain writes both sides' EXPLAIN ANALYZE of the selected queries
// (from the first round's start node), to see why a ratio is what it is.
func Explain(ctx context.Context, c Config, w io.Writer) error {
	for _, q := range Queries {
		if c.Only != nil && !c.Only(q.Name) {
			continue
		}
		var args []any
		if strings.Contains(q.SQL, "$1") {
			args = []any{startNode(0, c.Persons)}
		}
		for _, side := range []struct {
			name string
			conn *pgx.Conn
		}{{"pgproxy", c.Proxy}, {"postgres", c.Postgres}} {
			sql := q.SQL
			if side.conn == c.Proxy && q.ProxySQL != "" {
				sql = q.ProxySQL
			}
			lines, _, err := runQuery(ctx, side.conn, "EXPLAIN ANALYZE "+sql, args)
			if err != nil {
				return fmt.Errorf("%s: EXPLAIN ANALYZE %s: %w", side.name, q.Name, err)
			}
			fmt.Fprintf(w, "-- %s, %s:\n%s\n\n", q.Name, side.name, strings.Join(lines, "\n"))
		}
	}
	return nil
}
