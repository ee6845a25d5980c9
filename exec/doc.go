// Package exec is pggraph's SQL executor: a vectorized engine in Go over
// Arrow-backed column batches with PostgreSQL 15 semantics. It runs SELECT
// (and is the evaluator DML predicates will use) against table sources
// that yield snapshot-pinned Arrow record batches plus a transaction's
// pending overlay.
//
// # Model
//
// SQL text is parsed by internal/sqlparse (libpg_query, cached per text),
// bound by the binder (name resolution with nested scopes, PostgreSQL's
// literal typing, implicit-cast and overload rules for the types below,
// output column naming as FigureColname does) into a tree of physical
// operators. Operators push batches (≤ 1024 rows) of typed column vectors
// (Vec: []int64, []float64, []string, []bool, apd decimals, intervals,
// arrays; plus a null mask) downstream. Filters narrow a selection vector
// instead of copying; expressions evaluate only the selected rows, so an
// error (division by zero, a failed cast) is raised only for rows that
// PostgreSQL would evaluate, and CASE/COALESCE/AND/OR evaluate later
// branches only on the rows that need them. Kernels are typed loops (no
// boxed rows in hot loops); rare functions use a boxed per-row kernel.
//
// Output: Prepared.Columns (name, type OID, typmod, typlen, table OID,
// attnum) for RowDescription; Prepared.Stream hands out batches as they
// are produced (Execute collects them into a Result); values render with
// FormatText (PostgreSQL
// text output: DateStyle ISO, IntervalStyle postgres, extra_float_digits
// 1, bytea hex; FormatTextStyle and AppendTextStyle print dates and
// intervals in a session's DateStyle and IntervalStyle, Session.DateStyle,
// which casts to text and text input inside a statement also follow) and AppendBinary (PostgreSQL's binary send format,
// checked byte-for-byte against PostgreSQL 15); Result also offers Rows,
// Value (Go values for pgx) and Records (Arrow). Command tag "SELECT n".
//
// Prepared statements: Engine.Prepare parses and binds once, infers $n
// types from context (declared OIDs win), and Execute runs with Go
// parameter values (text form strings are parsed with the type's input
// function).
//
// Scans: a TableSource yields Arrow batches with row addresses. The binder
// pushes column projection (only referenced columns are fetched; others
// arrive as NULL placeholders) and single-column predicate hints into the
// ScanRequest. Joins likewise materialize only the output columns the
// operators above read (join_need.go); the others are shared NULL
// placeholders. `pk = const/$n` and `pk IN (consts)` on a key column of a
// KeyLookupSource read only the matching rows (MemTable and
// exec/lancesrc build a per-version hash index on first use; the index is
// never stale because a version is immutable). WithOverlay applies a
// transaction's pending writes: rows whose address is deleted are
// skipped, pending inserts are appended; its key lookups use the base
// index and match the pending inserts by key. A lookup of one key of an
// identity type (integers, text/varchar: equal keys are the same value)
// fills the key column from the key instead of reading it, and when the
// compared value has the key's type (at most through an integer cast) the
// conjunct leaves the filter: the lookup alone answers it.
//
// Range lookups (keyrange.go): a source whose index lists an integer,
// text or varchar key column's values in order (KeyRangeSource:
// lancesrc, MemTable, a transaction overlay adding its pending inserts'
// keys; text in byte order, the C collation the engine compares in)
// answers range conjuncts on that column (col > e, >=, <, <=, BETWEEN;
// e an expression of the column's kind of constants and parameters) by
// looking up the keys in range, while they are at most a sixteenth of
// the table's rows; the conjuncts stay in the filter above. col LIKE
// a constant pattern with a fixed prefix is the range prefix <= col <
// prefix with its last byte incremented, as PostgreSQL's btree serves
// LIKE under the C collation. A
// multi-column index serves through its leading column (equality, range
// or order on it; the later columns' conjuncts filter the rows found).
// ORDER BY … LIMIT in index order
// (ordered_topn.go): a top-N sort whose first key is such a column,
// reached through filters, projections and inner/semi lookup joins,
// runs over a copy of its input that reads the keys in order a growing
// number at a time and stops once no later row can enter the top N.
//
// Key-only lookups (scan_keyonly.go): a key lookup that reads no column
// but the key (of an identity type) and no row address — count(*) of
// `k = 1`, the last hop of a counted traversal, a semi join's test — is
// answered from the index's counts (KeyCountSource) without reading a
// row, as PostgreSQL's index-only scans are.
//
// Enum types (enums.go): a catalog that implements EnumCatalog lists
// user enum types (OIDs from their own range, EnumOIDBase). A value is its
// label in a string slot; the binder validates input of the type against
// the labels of its catalog (unknown literals and parameters always, text
// only by an explicit cast: 22P02, 55P04 for a label the open transaction
// added) and compares and sorts enum values by their sort position
// (declaration order), so a type's labels may differ between branches,
// snapshots and transactions. pg_type has the type and its array type,
// pg_enum the labels (OIDs in sort order). Created extensions
// (ExtensionCatalog) are pg_extension rows; uuid-ossp's and pgcrypto's
// functions are built in and resolve once the catalog has their extension
// (extension_funcs.go).
//
// Domains (domains.go): a catalog that implements DomainCatalog lists
// domains (OIDs from their own range, DomainOIDBase). Values of a domain
// are values of its base type: a domain column's ColumnDef.Type is the
// base type and ColumnDef.Domain names the domain, so operators and
// functions resolve on the base type; a cast to a domain checks the
// domain's NOT NULL and CHECK constraints (Engine.DomainViolation serves
// the planner's writes). pg_type, pg_constraint, information_schema and
// format_type show the domain.
//
// Literals as parameters: NormalizeLiterals rewrites the literals in
// value positions (after = <> < > <= >=, IN lists, BETWEEN bounds,
// LIMIT/OFFSET) as $n declared with the literal's own type (int4, int8,
// numeric, unknown), for a session's cache of simple-protocol plans;
// ordinals, type modifiers, typed/escape/dollar strings and statements
// calling side-effecting functions are left alone. The differential
// suite runs every query it can rewrite both ways against PostgreSQL.
//
// Row addresses: every table scan offers the hidden system column
// _rowaddr (RowAddrColumn): int8 = int64(the address the source passed
// with the row; pending overlay inserts have the top bit set, so they are
// negative). It resolves as _rowaddr or t._rowaddr unless a real column
// has that name, works through joins, subqueries and CTEs, and never
// appears in *, t.*, NATURAL/USING joins or the catalogs. DML finds its
// target rows with a SELECT that projects t._rowaddr (UPDATE … FROM,
// DELETE … USING and MERGE are rewritten into such joins).
//
// Filter hints: single-column comparisons with a constant (and integer
// literals against integer or float columns) and IS [NOT] NULL reach the
// source as ScanRequest.Filters; ScanFilter.Matches/Narrow evaluate them
// with the engine's semantics. exec/lancesrc uses them for late
// materialization (see its doc).
//
// Pipelining: an aggregate or top-N sort over a plain scan (filters made
// of columns, constants, parameters, comparisons, arithmetic, boolean
// logic) runs the scan and filter in a second goroutine feeding batches
// through a bounded channel, so decoding overlaps aggregation on two
// cores; errors from either side, cancellation and early stops end both.
//
// Parallel aggregation: an aggregate whose input is a pipeline over a
// table of at least 256K estimated rows (a scan under plain filters,
// projections and inner/left hash-join probes) runs on min(GOMAXPROCS, 8)
// workers. The scan's records are cut into 16K-row units dealt to the
// workers round-robin by position; each worker converts, filters, probes
// (the build side is built once and shared read-only; only columns read
// above are materialized) and folds into its own partial groups. Partial
// states merge in worker order and groups come out in first-appearance
// order, as in a serial run. Eligible aggregates: count, sum, avg, min,
// max, bool_and, bool_or, every (DISTINCT/ORDER BY aggregates and the
// others stay serial). Float sums and averages may differ from a serial
// run in the last bits (as in PostgreSQL's parallel plans) but are
// deterministic for a worker count. Errors report the earliest failing
// unit; cancellation and the memory budget apply to every worker.
// DISTINCT and ORDER BY aggregates buffer their input and sort it per
// group; agg(DISTINCT x) of one integer argument without NULLs or ORDER
// BY sorts (group, value) pairs instead (agg.go, distinctIntPerm). A
// serial aggregate or top-N over a plain table scan reads it in a second
// goroutine (prefetch.go); a key lookup is not prefetched (a few rows, and
// the hand-off would cost a thread wake-up per query).
// ORDER BY ... LIMIT over such a pipeline keeps a top-N collector per
// worker and merges them by the sort keys and then serial position, so
// the rows and their order (ties included) are a serial run's.
//
// DML: MatchAddresses evaluates a WHERE expression over a table source
// (overlay included) and returns the matching row addresses for
// DELETE/UPDATE; CheckViolation evaluates a CHECK expression over
// candidate rows. Both use the same binder and kernels as SELECT.
//
// Joins: equi-joins hash the smaller estimated input; one int64 key (or
// several packed into one) is indexed in compressed-sparse-row form —
// slots from the key itself when its range is compact, else from an
// open-addressing table (int_slots.go) — with the build side put in key
// order so that one key's rows are adjacent (join_csr.go); comma joins
// take their keys from WHERE; uncorrelated IN/NOT IN subqueries probe a
// hash set. WHERE conjuncts that read one join input only (no
// subqueries, no volatile calls) move below the join to that input —
// both inputs of an inner join, the preserved side of left/semi/anti
// joins — so e1.src = 1 becomes a key lookup on e1 under a join
// (bind_pushdown.go). Then a tree of 3 to 10 inner joins is reordered by
// estimated cost (join_order_cost.go: item rows from row counts, key
// lookups, ranges and filter selectivities, join sizes from distinct
// keys — ANALYZE statistics or primary keys —, dynamic programming over
// left-deep orders, lookup joins costed per incoming row); the written
// order stays unless estimated at least twice as costly, and a
// projection keeps the written column order. A LEFT JOIN under inner
// joins, (A ⟕ B) ⋈ C with no inner condition reading B, is applied
// after them, (A ⋈ C) ⟕ B (PostgreSQL's outer-join identity;
// join_order_outer.go), when the inner joins are estimated to keep at
// most half of A's rows and B is a table scan: a selective C then
// drives lookups into A and B. WHERE conjuncts reading B stay above. Hash aggregation groups by
// one int key directly, by several plain keys through a column-wise
// hash compared value by value (agg_hashkeys.go), and by a grouped
// primary key alone when the table's other columns are grouped because
// they depend on it.
//
// Lookup joins (ops_indexjoin.go): when one input of an inner, left,
// semi or anti equi-join is a table scan (under filters) whose source
// serves key lookups on a join key column — primary key, UNIQUE or
// CREATE INDEX leading column, an edge table's endpoints
// (TableDef.Adjacency) — and the other input is small, the join is an
// index nested loop: each batch of outer rows looks up its distinct keys
// at once (one LookupKeys call per batch), the found rows pass the scan's
// filters, and the batch is probed against a hash table of just those
// rows by the hash join's own probe, so residuals, NULL keys and the
// output order are the hash join's. The choice is made at run time: the
// outer input is buffered up to a sixteenth of the indexed table's rows
// (past that, while its distinct keys stay under that count, up to four
// times as many rows, looked up at once);
// if it ends first the lookups run, else the join hashes the indexed
// table and probes the buffered batches first (a whole-table outer scan
// hashes at once; an indexed table under 1024 rows is always hashed). An
// inner join whose build side is the small one looks up into the other
// side with the columns put back in order. enable_nestloop = off (no
// lookup joins) and enable_hashjoin = off (lookup joins wherever an index
// allows) force one method, as PostgreSQL's settings do; the differential
// suite runs its join scripts both ways (difftest_joins_test.go). A
// top-level WHERE conjunct [NOT] EXISTS (or a correlated x IN) whose
// subquery reads only tables and joins, and whose correlation is only
// equalities between inner and enclosing-row expressions, is a hash semi
// (anti) join on those keys (bind_decorrelate.go; EXISTS may carry a
// positive literal LIMIT); other shapes (OR, OFFSET, aggregates, set
// operations, volatile calls) re-run per row.
//
// EXPLAIN (explain.go): Prepared.Explain prints the bound operator tree
// in PostgreSQL's text layout with PostgreSQL's node names (Seq Scan on
// <table> [<alias>], Index Scan using <key or index> with its Index
// Cond, Hash Join over a Hash, Nested Loop over an inner Index Scan for
// lookup joins, Aggregate, Sort, Limit, Recursive Union, WorkTable Scan,
// a one-row VALUES as Result, ...), "(rows=N)" from the executor's
// estimates (no costs; ANALYZE statistics where a table has them), and
// the join method it predicts; ANALYZE runs the statement with every
// node wrapped in a counter and prints the method each join used and
// actual time, rows and loops per node (serially: the wrapped plan is no
// parallel pipeline). ExplainJSON (explain_json.go) is the same plan in
// PostgreSQL's FORMAT JSON keys (Node Type, Join Type, Relation Name,
// Alias, Index Name, Plan Rows, the conditions, Actual Rows/Loops/Times,
// Execution Time); ExplainModifyJSON puts a ModifyTable node above a
// writing statement's row source.
//
// Statistics (stats.go): AnalyzeTable computes PostgreSQL 15's ANALYZE
// statistics per column over the whole table up to 30000 rows, else a
// reservoir sample of 30000 rows kept in table order (fixed seed):
// null_frac, avg_width (typlen, or the stored size of variable-width
// values), n_distinct (-1 × non-null share when no value repeats, the
// sample's count when every value repeats, else Haas-Stokes; negative
// beyond 10% of the rows), the most common values (values seen more
// than once, at most 100, trimmed by PostgreSQL's analyze_mcv_list when
// sampled) with their frequencies, a histogram of up to 101 bounds over
// the other values, and the correlation of table and sorted order; json
// and vector columns get null_frac and avg_width only. A source that
// implements StatsSource keeps them (lancesrc per dataset version,
// MemTable per table); pg_stats shows them (syscat_stats.go), and key
// lookups and lookup joins are estimated at rows per distinct value, a
// lookup join's outer-row limit shrinking for keys with many rows.
// ANALYZE of an empty table keeps what the table had, as PostgreSQL.
//
// Catalogs: pg_catalog and information_schema relations are generated from
// the Catalog interface when a statement references them, with
// PostgreSQL's OIDs for built-in objects, and are scanned by the same
// engine; nothing answers by matching query text.
//
// Limits: Engine.MemoryLimit bounds the bytes a query buffers (sorts, hash
// tables, materialized CTEs and subqueries, window partitions, the values
// string_agg and array_agg build); exceeding it fails the query with 53200
// and leaves the engine usable (membudget.go). A process-wide account
// (SetServerMemoryBudget) adds up every running statement's bytes: a
// reservation past it fails that statement with 53200, and past three
// quarters of it spilling operators spill at once. Spilling
// (spill*.go) follows the session's work_mem (DefaultWorkMem without
// settings), at most an eighth of the statement's cap: a full sort writes stably sorted runs to spill files and
// merges them (mergeFanIn runs per pass, ties to the earlier run, so the
// order is the in-memory sort's); a serial hash aggregate whose groups
// pass work_mem folds rows of known groups and writes the others to hash
// partitions, aggregated after the in-memory groups (up to four levels
// deep; group keys with volatile calls do not spill); a hash join whose
// build side passes work_mem partitions both sides by key hash (keys of
// the same kind on both sides) and joins partition pairs in memory —
// also under a parallel pipeline (which then gives up and hands its
// builds to the serial run, parallel_spill.go) and in a lookup join that
// falls back to hashing. Spill
// files are unlinked at creation (SpillDir), never fsynced, and closed
// when their operator ends; a full disk answers 53100. Not spilled: the
// parallel aggregate, top-N, window partitions, DISTINCT, materialized
// CTEs, hashed IN sets. A value past PostgreSQL's 1 GB limit
// (value_limit.go: string_agg, repeat, text concatenation) fails with
// 54000; string_agg builds its value in chunks never copied while it
// grows (textbuilder.go), so a budget a little above 1 GB reaches that
// limit instead of failing with 53200 on a doubling buffer's copy. Cancelling
// the context stops scans, joins, aggregation and recursion at the next
// batch with 57014. WITH RECURSIVE stops with 54000 after
// Engine.RecursionLimit iterations (default 10000) instead of truncating.
//
// Volatile calls (nextval, random, clock_timestamp, ...) in a select list
// are drawn in PostgreSQL's order: row by row, left to right across the
// targets (project_volatile.go evaluates only those expressions one row
// at a time; the rest stay vectorized); a volatile ORDER BY key is
// computed once per row and select-list entries equal to it repeat its
// value, as PostgreSQL's sort input does. Not modelled: the extra calls
// PostgreSQL's ProjectSet makes for non-SRF targets after the last SRF
// row (visible only through currval afterwards).
//
// Invariants: every error is an *Error with a SQLSTATE; a panic inside
// Prepare or Execute is converted to XX000 (and is a bug). Vecs are never
// mutated after an operator emits them. Collation is "C" (byte order).
//
// # Supported SQL
//
//   - SELECT with FROM (tables, subqueries, VALUES, CTEs, set-returning
//     functions incl. WITH ORDINALITY), WHERE, GROUP BY (expressions, ordinals, output names, (),
//     primary-key functional dependency), HAVING, window functions, ORDER
//     BY (ordinals, output names, expressions; ASC/DESC; NULLS FIRST/LAST
//     with PostgreSQL's defaults), LIMIT/OFFSET/FETCH FIRST [WITH TIES], DISTINCT and
//     DISTINCT ON; FOR UPDATE/SHARE are accepted (snapshot reads).
//   - Joins: [INNER], LEFT, RIGHT, FULL, CROSS, comma; ON, USING, NATURAL;
//     LATERAL subqueries and functions as comma items and as the right
//     side of [INNER|CROSS|LEFT] JOIN ... ON (re-executed per left row;
//     a function reading the left side is implicitly lateral; RIGHT/FULL
//     answer 42P10 as PostgreSQL); aliases on JOIN expressions
//     ((a JOIN b USING (id)) AS j(c1, ...));
//     hash join on equi-keys with residual predicates, nested loop
//     otherwise.
//   - UNION / INTERSECT / EXCEPT [ALL] with PostgreSQL's type unification;
//     VALUES lists.
//   - Subqueries: scalar, EXISTS, IN / NOT IN, op ANY/ALL, ARRAY(...),
//     also with a row on the left ((a, b) IN (SELECT x, y), (a, b) op
//     ANY/ALL (...), (a, b) op (SELECT x, y));
//     correlated ones are re-executed per outer row, except the
//     [NOT] EXISTS / IN conjuncts decorrelated into semi/anti joins.
//   - WITH and WITH RECURSIVE (UNION and UNION ALL, iteration cap;
//     CYCLE ... SET ... USING and SEARCH DEPTH/BREADTH FIRST, bind_cycle.go).
//   - Aggregates: count, sum, avg (also over interval, agg_interval.go), min, max, bool_and, bool_or, every,
//     string_agg, array_agg, json_agg, jsonb_agg, bit_and, bit_or, bit_xor, stddev, stddev_samp,
//     stddev_pop, variance, var_samp, var_pop, corr, covar_pop, covar_samp,
//     regr_count/sxx/syy/sxy/avgx/avgy/r2/slope/intercept (agg_regr.go:
//     PostgreSQL's float8_regr_accum and final functions), and the ordered-set
//     percentile_cont / percentile_disc (a fraction, or an array of them) and mode() WITHIN GROUP (ORDER BY x)
//     (bind_mode.go); json_object_agg, jsonb_object_agg; DISTINCT, ORDER BY and
//     FILTER on aggregates.
//   - GROUP BY ROLLUP / CUBE / GROUPING SETS (nested, mixed with plain
//     items, parenthesised units) and GROUPING() (grouping_sets.go): the
//     input is buffered and aggregated once per grouping set. Float
//     aggregates accumulate in input order; where PostgreSQL's plan sorts
//     the input first (GroupAggregate) the last digits can differ, as
//     between its own sorted and hashed plans.
//   - Window functions: row_number, rank, dense_rank, percent_rank,
//     cume_dist, ntile, lag, lead, first_value, last_value, nth_value,
//     and every aggregate above (with FILTER) over PARTITION BY / ORDER BY
//     (inline or named in a WINDOW clause)
//     with ROWS, GROUPS and RANGE frames (UNBOUNDED/CURRENT ROW/offset
//     PRECEDING|FOLLOWING; RANGE offsets on integer, numeric, float,
//     date/time/timestamp[tz] (interval offsets) and interval keys) and
//     EXCLUDE CURRENT ROW/GROUP/TIES/NO OTHERS.
//   - Set-returning functions generate_series, unnest,
//     json(b)_array_elements[_text], json(b)_object_keys, regexp_matches,
//     regexp_split_to_table, string_to_table in FROM (implicitly
//     lateral when their arguments read earlier FROM items) and in the
//     select list (run in lockstep as in PostgreSQL 10+; over the
//     grouped rows in aggregated queries);
//     json(b)_each[_text] (key, value) in FROM (also lateral);
//     information_schema._pg_expandarray (pgjdbc's key queries): in FROM
//     (also lateral, after earlier items) its columns x, n, in the select list a record whose fields
//     (f(...)).x and (rec).x select (types.go RecordType: a record's
//     shape travels in its typmod, as PostgreSQL's blessed records);
//     pg_get_keywords() (PostgreSQL 15's keyword list, syscat_keywords.go);
//     aclexplode(aclitem[]); unnest(a, b, ...) in FROM (arrays side by
//     side, NULL-padded).
//   - Types: bool, int2/int4/int8, float4/float8, numeric[(p,s)] (arbitrary
//     precision, PostgreSQL's display scales), text, varchar(n), char(n),
//     name, "char", bytea, uuid, json, jsonb, date, time, timestamp,
//     timestamptz (session TimeZone), interval, oid, regclass, regtype,
//     regnamespace, and one-dimensional arrays of these; pgvector's
//     vector(n) ('[1,2,3]' text form, binary send, casts from numeric
//     arrays and to real[], stored as Arrow fixed_size_list<float32>[n];
//     functions vector_dims, vector_norm, l2_distance, l1_distance,
//     inner_product, cosine_distance, and the distance operators <-> <+>
//     <#> <=>, also in ORDER BY ... LIMIT);
//     record values of known shape; xid and aclitem in catalog columns.
//   - Operators: + - * / % ^ |/ @ & | # ~ << >> with overflow (22003) and
//     division by zero (22012); comparisons; AND/OR/NOT with three-valued
//     logic; IS [NOT] NULL/TRUE/FALSE/UNKNOWN/DISTINCT FROM; BETWEEN
//     [SYMMETRIC]; IN; any boolean operator with ANY/ALL (array or subquery), e.g.
//     ILIKE ANY (ARRAY[...]); LIKE/ILIKE and SIMILAR TO with ESCAPE (like_escape), ~ ~* !~
//     !~* (RE2 syntax: back-references or look-around fail with 2201B;
//     '.' matches newlines unless the n flag is given, as in PostgreSQL);
//     || for text, arrays and jsonb; -> ->> #> #>> ? ?| ?& @> <@ - #- on
//     json/jsonb (jsonb - text|text[]|int);
//     @> <@ && on arrays; date/time/interval arithmetic; AT TIME ZONE;
//     ^@ and the pattern comparisons ~<~ ~<=~ ~>=~ ~>~; bytea || and
//     LIKE; prefix |/ ||/ @ ~ - + (ops_pattern.go). Operator resolution
//     answers as PostgreSQL: no such operator for the operand types is
//     42883 (with its HINT), untyped literals with several candidate
//     operators ('1' + '1', -'1') are 42725 (bind_ops.go).
//   - jsonb compares by value in PostgreSQL's order (numbers
//     numerically, object > array > boolean > number > string > null,
//     sizes first); equality, ordering and hashing agree
//     (jsonb_order.go).
//   - Row comparisons (a, b) op (c, d) for = <> < <= > >= (keyset
//     pagination with $n), row IN lists and subqueries, row IS [NOT]
//     NULL and IS [NOT] DISTINCT FROM, with PostgreSQL's NULL rules;
//     ROW(...) values and whole-row references (t) as records
//     (bind_record.go).
//   - Interval field qualifiers and precision on casts: INTERVAL '1'
//     DAY, x::interval hour to minute, interval(3) (PostgreSQL's typmod,
//     truncation and bare-number rules; bind_interval.go).
//   - CASE, COALESCE, NULLIF, GREATEST, LEAST, CAST / :: (PostgreSQL text
//     input and output formats), ARRAY[...], subscripts.
//   - Functions: length, char_length, octet_length, bit_length, lower,
//     upper, initcap, substr, substring (incl. regex and SIMILAR forms), convert_to/convert_from (UTF8), left, right,
//     lpad, rpad, trim/btrim/ltrim/rtrim, replace, translate, repeat,
//     reverse, position, strpos, starts_with, split_part, concat,
//     concat_ws, format (%[n$][-][width|*|*n$] with s I L), quote_ident, quote_literal,
//     quote_nullable, md5, ascii, chr, to_hex, regexp_replace,
//     regexp_match, regexp_split_to_array, string_to_array (with null string), parse_ident,
//     array_to_string, array_remove, encode/decode (hex, base64, escape), sha256; abs, round, trunc, ceil, ceiling,
//     floor, sign, sqrt, cbrt, exp, ln, log, log10, power, pow, mod, div,
//     pi, degrees, radians, sin, cos, tan, asin, acos, atan, atan2, gcd,
//     random, gen_random_uuid, num_nulls, num_nonnulls, lcm, factorial,
//     scale (numeric overloads of sqrt, exp, ln, log, log10, gcd, lcm
//     with PostgreSQL's result scales, numeric_special.go; numeric NaN and
//     ±Infinity in arithmetic as PostgreSQL 14+); now,
//     current_timestamp, current_date, localtimestamp, date_trunc,
//     extract, date_part, make_date, to_timestamp, to_char (timestamps,
//     dates: YYYY YY MM DD DDD D Q HH24 HH12 HH MI SS MS US AM/PM Month
//     Mon Day Dy with FM/fm and quoted text, TH/th suffixes, FF1-FF6 SSSS
//     SSSSS WW W CC J RM rm Y,YYY IDDD (tochar.go); numbers: 9 0 . D , G S MI PL SG
//     PR L V RN FM with '#' overflow (tochar_num.go); IYYY IW ID; intervals: YYYY MM
//     DD HH24 HH12 MI SS MS US AM), age, justify_days,
//     justify_hours, isfinite, timezone, OVERLAPS (overlaps.go); special
//     inputs epoch/now/today/tomorrow/yesterday/allballs; common zone
//     abbreviations (PST, CEST, ...); ISO 8601 interval input (P1Y2M...);
//     date/timestamp/interval range checks (22008, timerange.go);
//     time(p)/timestamp(p) rounding; to_char TZ/tz/OF/TZH/TZM; json_build_object,
//     jsonb_build_object, json_build_array, jsonb_build_array, to_json,
//     to_jsonb, row_to_json, json(b)_typeof, json(b)_array_length,
//     jsonb_set, jsonb_insert, jsonb_strip_nulls, json_strip_nulls,
//     jsonb_pretty, json_object_agg, jsonb_object_agg, json(b)_extract_path[_text]
//     (fn_json.go); to_timestamp(text, template) and to_date
//     (builtins_totimestamp.go); overlay (fn_string.go); justify_interval,
//     make_timestamp, make_timestamptz, make_time, make_interval (named
//     arguments too), date_bin (fn_datetime.go); sha224/sha256/sha384/sha512,
//     encode, decode (fn_bytea.go); trim_scale, min_scale, scale, width_bucket,
//     lcm, factorial (fn_numeric.go); array_replace, array_to_json, array_fill
//     (one dimension), array_ndims, array_dims (fn_array.go);
//     regexp_count/regexp_substr/regexp_instr (pattern, start) (fn_regex.go);
//     bit_and, bit_or, bit_xor (agg_bit.go); to_number (builtins_tonumber.go); array_length,
//     array_upper, array_lower, cardinality, array_append, array_prepend,
//     array_cat, array_position (with a start), array_positions;
//     one-dimensional slices a[lo:hi] (arrays.go); version, current_database, current_user,
//     session_user, current_schema, current_schemas, pg_backend_pid,
//     pg_cancel_backend, pg_terminate_backend (through SessionHooks.Signal,
//     signal.go),
//     pg_typeof, format_type, pg_table_is_visible, pg_type_is_visible,
//     has_*_privilege, pg_get_constraintdef, pg_get_indexdef, pg_get_expr,
//     obj_description, col_description, pg_get_userbyid,
//     pg_encoding_to_char, pg_char_to_encoding, getdatabaseencoding
//     (PostgreSQL's encoding numbers, sysfn_encoding.go),
//     pg_relation_size, pg_table_size, pg_indexes_size,
//     pg_total_relation_size, pg_database_size, pg_tablespace_size
//     (the Lance files of the pinned version, syscat_size.go),
//     pg_tablespace_location, pg_describe_object, pg_function_is_visible,
//     pg_operator_is_visible, pg_collation_is_visible (the other kinds'
//     _is_visible answer NULL: no such objects), pg_get_function_sqlbody
//     (NULL), pg_size_pretty (bigint and numeric), pg_get_serial_sequence, pg_get_function_result,
//     pg_get_function_arguments, pg_get_function_identity_arguments,
//     pg_relation_is_publishable, pg_get_statisticsobjdef_columns,
//     pg_get_triggerdef / pg_get_ruledef (NULL; pg_class.relhastriggers
//     stays false, so psql's \d does not list triggers),
//     pg_get_viewdef (a SQL view's text, see below), current_setting
//     (session, then server defaults),
//     pg_is_in_recovery, pg_postmaster_start_time, pg_conf_load_time;
//     every advisory lock function (exclusive and _shared, session and
//     _xact, try and blocking; bigint and int4, int4 keys) in the
//     AdvisorySession the context carries (WithAdvisorySession; else
//     owned by Session.PID in a process-wide space; see advisory.go);
//     nextval, currval, setval, lastval through the SequenceFunctions
//     the context carries (WithSequenceFunctions; else 0A000);
//     set-returning generate_subscripts, pg_partition_ancestors,
//     pg_partition_tree (no rows: no partitioning) and pg_options_to_table;
//     the functions PostgreSQL implements operators and casts with
//     (int4pl(1, 2), textcat, int4(x), text(5)) bind as that operator
//     or cast when no function of the name exists (bind_implfunc.go).
//   - User functions (CREATE FUNCTION, user_functions.go) from a catalog
//     implementing FunctionCatalog, bound after the built-in functions
//     of the name (argument defaults, implicit casts, PostgreSQL's
//     best-candidate rule); a call runs the body through
//     Session.CallFunction row by row (STRICT skips NULL arguments,
//     VOLATILE counts as a volatile call), with named (name => value)
//     and VARIADIC arguments (user_calls.go). Set-returning and
//     record-returning user functions (SETOF, RETURNS TABLE, OUT
//     parameters, RETURNS record with a column definition list) run in
//     FROM as a funcScanNode and at the top of a select list as a
//     projectSet SRF (user_srf.go); CALL binds as a one-row callNode
//     (procedures.go). Refused with 0A000: a set-returning user function
//     inside a select-list expression, a record-returning one without a
//     column definition list outside FROM. pg_proc lists user functions with
//     prosrc, prolang, provolatile, proargtypes, proretset (OIDs from
//     the catalog entry); pg_trigger lists a TriggerCatalog's triggers
//     (tgqual NULL).
//   - Every table scan offers the system column tableoid (rowaddr.go):
//     the relation's OID, on user tables and the generated catalogs
//     (pg_attribute lists it at attnum -6).
//   - Catalogs: their column lists, OIDs, relkinds (views 'v') and
//     pg_attribute rows are PostgreSQL 15's own, from pg15/*.tsv, which
//     TestCatalogFactsPG15 writes from and checks against a real
//     PostgreSQL 15 (syscat_facts.go); pg_proc lists each PostgreSQL
//     overload of the engine's function names that the engine binds with
//     PostgreSQL's argument and result types (probed once per process,
//     syscat_proc.go) with PostgreSQL's OIDs, plus the functions other
//     catalogs reference and pgvector's; pg_operator likewise
//     (syscat_operator.go); pg_cast lists PostgreSQL's casts between the
//     engine's types with the engine's contexts, which are PostgreSQL's
//     (syscat_cast.go); pg_type describes the engine's types with
//     PostgreSQL's rows (syscat_type.go); pg_am (all seven methods),
//     pg_language (with plpgsql), pg_tablespace and the built-in schemas'
//     descriptions and ACLs are PostgreSQL's (syscat_builtin.go);
//     pg_settings reports each parameter's source (syscat_settings.go);
//     pg_roles, pg_user and pg_auth_members list the root's role catalog
//     (Session.Roles, syscat_roles.go; one superuser with OID 10, the
//     session user, on a root without roles), pg_has_role answers from
//     it, current_user follows SET ROLE and session_user does not. A
//     relation's owner and ACL are TableDef.Owner/ACL (the planner stores
//     and enforces them): pg_class.relowner/relacl, pg_tables.tableowner,
//     pg_views.viewowner, has_table_privilege, has_column_privilege and
//     has_any_column_privilege (the table's answer),
//     has_sequence_privilege and a sequence's relacl
//     (sequence_privileges.go),
//     information_schema.table_privileges, role_table_grants,
//     column_privileges, role_column_grants, routine_privileges and
//     role_routine_grants (syscat_privileges.go; routines are the user
//     functions and procedures, whose owner and ACL are stored,
//     function_acl.go), has_function_privilege and built-in functions'
//     proacl (their ACLs live in the role catalog per branch and are
//     checked when a call or a binary operator binds;
//     builtin_function_acl.go), has_type_privilege and a user type's
//     typacl (type_privileges.go);
//     other objects are owned by the role with OID 10. exec enforces
//     one rule itself, schema USAGE on name lookups (schema_usage.go:
//     without USAGE on public its objects are off the search path and
//     public.x is refused with 42501); for the rest,
//     Prepared.Relations reports the user relations a bound statement
//     names (after CTE names, leaving out those only an unreferenced
//     WITH query names; a view's relations marked with the view's
//     owner) for the planner to check (relation_uses.go). PostgreSQL's predefined pg_* roles and
//     pg_authid are not listed.
//     The relations: pg_namespace, pg_class, pg_attribute, pg_type, pg_constraint,
//     pg_index, pg_attrdef, pg_description, pg_database, pg_roles, pg_user,
//     pg_settings, pg_proc, pg_operator, pg_cast, pg_am, pg_collation, pg_enum, pg_range,
//     pg_inherits, pg_trigger, pg_rewrite, pg_sequence, pg_policy,
//     pg_statistic_ext, pg_publication (and pg_publication_tables,
//     pg_replication_slots: syscat_replication.go), pg_extension, pg_tablespace,
//     pg_tables, pg_views, pg_matviews, pg_indexes, pg_publication_rel,
//     pg_publication_namespace, pg_partitioned_table, pg_foreign_table,
//     pg_foreign_server, pg_foreign_data_wrapper, pg_event_trigger,
//     pg_language, pg_auth_members, pg_sequences, pg_statistic_ext_data,
//     pg_depend (PostgreSQL's deptype rules: schema, row type,
//     constraint, index, default and serial/identity sequence ownership,
//     see syscat_depend.go), pg_stat_user_tables (no statistics: counters
//     0), pg_stats and pg_statistic (ANALYZE's statistics, see above,
//     in PostgreSQL's slots; no element statistics of array columns), pg_shdescription, pg_shdepend, pg_default_acl (the role catalog's
//     default privileges), pg_init_privs,
//     pg_seclabel, pg_shseclabel, pg_ts_config, pg_ts_config_map,
//     pg_ts_dict, pg_ts_parser, pg_ts_template (syscat_textsearch.go),
//     pg_largeobject_metadata, pg_db_role_setting, pg_conversion,
//     pg_subscription, pg_user_mappings, pg_opclass, pg_opfamily, pg_amop,
//     pg_amproc (syscat_absent.go) (features pggraph lacks are present with
//     PostgreSQL's columns and no rows); each table's row type and its array type in pg_type
//     (pg_class.reltype); pg_type.typinput/typoutput/typreceive/typsend
//     name the type I/O functions ('array_in'::regproc) listed in
//     pg_proc; TableDef's constraint names, CHECK constraints, FK
//     actions and plain indexes show in pg_constraint, pg_index, pg_class
//     and pg_get_constraintdef/pg_get_indexdef; every psql 15 describe
//     command prints what PostgreSQL prints, with the differences
//     listed below (../internal/e2e/psql_describe_test.go); information_schema
//     schemata, tables, columns (all of PostgreSQL 15's columns), views,
//     table_constraints (NOT NULL constraints as CHECKs, as PostgreSQL
//     15), check_constraints, constraint_column_usage, key_column_usage,
//     referential_constraints, sequences.
//   - Created schemas (schemas.go): a catalog implementing SchemaCatalog
//     lists them (pg_namespace with their OIDs and owners); a relation of
//     schema s has TableDef.Schema s and the storage name "s.name"
//     (../docs/architecture.md, "Schemas"), which catalogs show as
//     RelName(). Unqualified names resolve through search_path
//     (userTableOnPath, sequenceByName), current_schema() is its first
//     existing schema, and a created schema only its owner may use.
//     Temporary tables are relations of the session's pg_temp_N schema
//     (SchemaDef.Temp), searched first and relpersistence 't'
//     (temp_schema.go).
//   - SQL views (view.go): a TableDef with View set is expanded where it
//     is referenced into its stored query, bound as a subquery in a scope
//     of its own (the referencing query's CTEs and columns are not
//     visible; a view reaching itself is 42P17 "infinite recursion
//     detected in rules"); its columns take the view's names and types.
//     A condition on a view over a plain filtered scan moves into it,
//     after the view's own condition (key lookups and scan hints work
//     through views), and once a statement is bound the scans under its
//     views read only the columns it reads through them.
//     AnalyzeView checks and normalizes CREATE VIEW's query and lists
//     what it reads (view_analyze.go), RenameInView rewrites a stored
//     query for a rename (view_rename.go). pg_get_viewdef(view [, pretty])
//     and the definition columns of pg_views and information_schema.views
//     print the stored query in PostgreSQL's layout (viewdef.go:
//     PostgreSQL 15's text for the shapes planner/testdata/viewdefs_*.sql
//     compare; known differences are listed there); views have
//     pg_rewrite _RETURN rules, pg_depend rows for what they read,
//     relkind 'v' in pg_class and table_type VIEW (syscat_views.go).
//
// # Answered with 0A000 (feature_not_supported)
//
// ../docs/sql.md lists the migration, ORM and BI statements and which of
// them are implemented.
// NATURAL/USING joins with a LATERAL item; a base
// table's whole-row reference as a result column (PostgreSQL types it as the table's row
// type; inside expressions such as row_to_json(t) it works) and nested records; ordered-set aggregates other than
// percentile_cont/percentile_disc/mode (hypothetical-set: rank(x) WITHIN GROUP, ...);
// DISTINCT or ORDER BY inside window aggregates (PostgreSQL answers 0A000 too);
// multidimensional arrays, array literals with explicit bounds, slices
// mixed with other subscripts; collations other than "C";
// bit-string literals; text search (text @@ text, tsvector); ORDER BY ... USING; TABLESAMPLE; ROWS FROM and
// column definition lists; other set-returning functions (pg_get_keywords, ...); (rec).* and field
// selection on records of unknown shape and json(b)_each[_text] in the
// select list; SRFs in the
// select list of windowed queries; interval field
// qualifiers outside casts (column types, arrays); SEARCH/CYCLE with * in the recursive query;
// data-modifying CTEs; SELECT INTO (the planner runs it: planner/ctas.go);
// non-SELECT statements (the planner owns DML/DDL and EXPLAIN, which
// prints Prepared.Explain: explain.go); regexp
// flags p, w, b, e (i c n m s x t q g work, regex_flags.go); encodings other
// than UTF8 in convert_to/convert_from; numeric NaN or
// Infinity to integer; generate_series over floats; 'infinity'/'-infinity' dates and timestamps; to_char patterns other than those listed (EEEE, TH, ...); the PostgreSQL built-ins listed in
// knownPostgresFunction (xmlagg,
// jsonb_path_*, jsonb_to_record, ...) and types listed in knownPostgresType (money,
// inet, ranges, tsvector, ...). An unknown function name answers 42883 as in PostgreSQL.
//
// set_config in a query answers the current value when it would not
// change it and 0A000 when it would (a query cannot change its session's
// settings; the wire layer serves the plain SELECT set_config(...) form),
// set_config.go. For pg_dump: acldefault, name[i], sequences read as
// relations (last_value, log_cnt, is_called from the durable position),
// pg_class.reloptions, and the graph schema as members of the built-in
// extension pggraph (OID below 16384), which pg_dump leaves out.
// pg_authid (passwords to superusers only) and pg_parameter_acl serve
// pg_dumpall. Monitoring catalogs (syscat_activity.go): pg_stat_activity
// from Session.Activity, pg_locks from Session.AdvisoryHolds (held and
// waiting requests; pg_blocking_pids from the same lock space) and
// Session.RowLocks (transactionid and tuple locks of row-lock holders and
// waiters, syscat_rowlocks.go), all read
// at every scan (liveRels); pg_show_all_settings() in FROM binds to
// pg_settings (rangefunc_settings.go); DDL's DEFAULT and CHECK
// expressions are bound, not evaluated, by BindDefault/BindCheck
// (ddl_exprs.go); the pg_stat/pg_statio views have zero
// counters; pg_stat_database_conflicts has zeros (no standbys) and
// pg_prepared_xacts no rows (PREPARE TRANSACTION is refused). ROWS FROM (…) zips its functions' results (rowsfrom.go).
//
// Known differences kept visible: regular expressions are RE2, not
// PostgreSQL's ARE; math functions use Go's libm (cbrt and friends can
// differ from glibc in the last place); pg_get_constraintdef prints a
// CHECK expression as PostgreSQL's analyzer stores it (implicit casts
// such as "price > 0::numeric", BETWEEN expanded, IN as = ANY (ARRAY[…]);
// checkdef.go) for the shapes it models and as written otherwise (a
// timestamp literal keeps its input text);
// relation sizes are the bytes of the Lance files a table's pinned
// version references (data files; pg_table_size adds deletion files and
// the manifest), not 8 kB heap pages, indexes (built in memory) and the
// generated catalogs occupy 0 bytes, a sequence its claimed value blocks,
// and a database is the sum of its tables and sequences (syscat_size.go);
// the system catalogs have no indexes (psql's \d on one lists no
// "Indexes:"); the built-in functions' and operators' pg_description
// comments are not reproduced (only the schemas', access methods',
// languages' and extension's are), nor the SQL bodies of PostgreSQL's
// SQL-language built-ins (prosrc is empty, pg_get_function_sqlbody NULL)
// or its views' definitions (pg_get_viewdef NULL); proargdefaults is NULL
// (pg_get_function_arguments shows the defaults); pg_proc and pg_operator
// list fewer overloads than PostgreSQL where the engine lacks them
// (md5(bytea), ranges, enums) and pg_cast fewer casts (between types the
// engine lacks); there is no text search, so the text-search catalogs are
// empty where PostgreSQL lists its built-in configurations;
// pg_settings lists pggraph's parameters (not the server installation's
// paths, ports or memory settings), and client_encoding's built-in value
// is UTF8; sequences appear only when the Catalog also
// implements SequenceCatalog, and pg_depend shows a column's sequence
// ownership only when the Catalog fills ColumnDef.OwnedSequence;
// pgvector's type
// is built in (pg_catalog, fixed OID OIDVector) rather than an
// extension's.
//
// # Testing
//
// ../internal/e2e/psql_describe_test.go (TestPsqlDescribeCommands) runs
// the real psql 15 with every describe command against a pgproxy server
// and a PostgreSQL 15 holding the same schema and compares the output,
// with an explicit list of allowed differences (sizes, the graph schema,
// databases other than main, installation settings, built-in objects
// pgproxy lacks, built-in descriptions, catalog indexes).
// TestCatalogFactsPG15 keeps pg15/*.tsv equal to PostgreSQL 15's catalogs.
// psql_test.go runs psql 15's describe commands through the wire server
// against the engine and against PostgreSQL over the same tables and
// compares the printed text. clients_test.go does the same for pgjdbc's
// DatabaseMetaData (../internal/e2e/testdata/clients/JdbcMetadata.java)
// and DBeaver's/Metabase's catalog queries; vector_test.go checks
// pgvector's documented behaviour (pgvector is not installed in the
// PostgreSQL the tests start). prefetch_test.go and rowaddr_test.go cover
// the pipeline and the hidden column.
//
// The differential harness (difftest_test.go) runs ../testdata/sql/*.sql
// against a real PostgreSQL 15 started by internal/pgtest and against the
// engine, comparing column names, type OIDs, typmods, rows and SQLSTATEs.
// A "-- params: v1 | v2" line before a query binds $1, $2 as untyped text
// on both sides; "-- unsupported" expects 0A000 from the engine;
// DIFFTEST_FILES=<glob> runs other scripts (scratch checks).
package exec
