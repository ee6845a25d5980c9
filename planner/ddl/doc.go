// Package ddl plans SQL schema statements (CREATE/ALTER/DROP TABLE,
// TRUNCATE, sequences, indexes, views, the no-op statements migration
// tools send) into catalog changes, and owns the SQL metadata of a table.
//
// Model:
//   - A table's SQL definition is split in two. graph.TableDef holds what
//     storage needs (columns with stable ids, Lance logical types,
//     nullability, primary key); TableMeta, stored as JSON in
//     TableDef.Extra, holds the rest: the exact PostgreSQL type of every
//     column (OID + typmod, vector(n) dimensions), defaults as SQL text,
//     identity/serial sequences, CHECK / UNIQUE / PRIMARY KEY / FOREIGN KEY
//     constraints with PostgreSQL's generated names (t_pkey, t_col_key,
//     t_col_check, t_col_fkey, t_col_seq, t_col_idx), indexes, the graph
//     role (node / edge with endpoint columns and out-degree bounds /
//     relation) and comments. TableMeta is versioned (MetaVersion); a
//     newer version is refused, never guessed at. Each meta is written
//     with the oldest version that expresses it: tables and sequences
//     as 1, views as 2, relations with an owner or ACL (Owner, ACL: the
//     planner's table privileges) as 3, so builds from before views keep
//     reading every table and refuse only the views, and builds from
//     before privileges refuse a relation whose grants they would ignore.
//   - Plan is a pure function of a parse tree and a Catalog view of the
//     pinned snapshot (plus the transaction's earlier DDL: Overlay). It
//     returns Changes — CreateTable, DropTable, AlterTable (catalog-only
//     or with a RowRewrite), Truncate, SetSequence, NoOp — and never
//     touches storage; the session applies them through the SchemaApply
//     adapter in the transaction's graph commit. Because the catalog is
//     per-branch snapshot state, schema changes work on any branch.
//   - Types (docs/architecture.md, "SQL surface"): int2/4/8 → int16/32/64, float4/8 →
//     float/double, numeric(p,s) with p ≤ 38 → decimal128(p,s); numeric
//     without precision (or p > 38) → utf8 text of the exact value (what
//     exec reads for numeric), bool, text/varchar/char → utf8, bytea →
//     binary, date → date32, timestamp(tz) → timestamp[us] (UTC zone for
//     timestamptz), time → time64[us], uuid → fixed_size_binary(16),
//     json/jsonb → utf8, vector(n) → fixed_size_list<float32, n>, arrays →
//     list<elem> once the catalog's logical types can express lists (until
//     then 0A000). Every type is checked to round-trip through the Lance
//     logical-type string the catalog stores.
//   - Graph role: WITH (graph.kind = edge) makes an edge table whose
//     endpoint columns (src/dst, or graph.source/graph.target) must each
//     REFERENCE the single-column primary key of a node table; endpoints
//     are implicitly NOT NULL. graph.max_out/min_out bound the out-degree.
//     A table with a primary key is a node table, anything else a plain
//     relation.
//   - Sequences: serial/identity columns own a sequence recorded in the
//     column's meta; CREATE SEQUENCE registers a relation of kind
//     "sequence" (like PostgreSQL, sequences share the relation
//     namespace). Each sequence has a globally unique Key (ULID) that the
//     planner/seq allocator uses; a branch inherits the key, so values
//     never repeat across branches that merge later. RESTART (ALTER
//     SEQUENCE, identity columns, TRUNCATE … RESTART IDENTITY) gives the
//     sequence a fresh key in the branch's catalog rather than moving the
//     shared allocator backwards (which would reissue other branches'
//     ids); Planner.Rekey does the same for a session's setval.
//   - Views (view.go): CREATE [OR REPLACE] [RECURSIVE] VIEW registers a
//     relation of kind "view" — one manifest entry, so a view is per
//     branch, time-travels, shares the relation namespace (42P07, 42809
//     "is not a view" / "is not a table" with PostgreSQL's hints) and is
//     created, redefined, renamed and dropped by CreateTable,
//     catalog-only AlterTable and DropTable in the statement's graph
//     commit. Its stored definition has no columns (one placeholder of
//     Lance type null; an older build reading it as a table refuses the
//     type); the meta holds the view's columns (names and exact types,
//     fixed at creation), the query and its dependencies. The query is
//     bound when the view is created (ViewBinder: exec.AnalyzeView
//     against the transaction's catalog, PostgreSQL's 42P01, 42703,
//     42701, 42P02) and stored as normalized SQL text (relations
//     schema-qualified, columns qualified, * expanded, NATURAL spelled as
//     USING, every output named, literals typed: see exec/view_analyze.go)
//     whose meaning does not drift when tables gain columns. Dependencies
//     are stored by name (relation, referenced columns) because a table
//     created in the same transaction has no id yet; every rename of a
//     relation or column a view reads rewrites the view's query in the
//     same statement (exec.RenameInView re-binds it and renames what
//     resolved to the renamed object, then checks the result binds to the
//     same columns), so the definition follows renames as PostgreSQL's
//     does. OR REPLACE keeps the columns (new ones only at the end, 42P16
//     as PostgreSQL) and the comments. DROP TABLE, DROP VIEW and ALTER
//     TABLE … DROP COLUMN of something a view reads answer 2BP01 with
//     PostgreSQL's DETAIL and HINT, or with CASCADE drop the views (and
//     views over them); a type change of a column a view reads is 0A000
//     as in PostgreSQL. Dependents are listed in PostgreSQL's order
//     (ViewMeta.Created for drops, Defined for the type check). What a
//     view reads in FROM (relations and their columns) is all that is
//     recorded: a sequence it calls nextval on is not (PostgreSQL records
//     the regclass constant), so dropping it breaks the view at its next
//     use instead of answering 2BP01.
//
// Decisions (where PostgreSQL has no graph equivalent or pggraph differs):
//   - DROP TABLE … CASCADE drops other tables' foreign keys into the
//     dropped table (as PostgreSQL), and drops edge tables whose endpoint
//     references it (an edge cannot outlive its endpoints' table; the
//     tombstoned tables stay readable by time travel). An edge endpoint
//     reference cannot be dropped on its own (42P16).
//   - Statements migration tools send that have no meaning here are
//     accepted as NoOp with PostgreSQL's command tag: GRANT on objects
//     other than relations (their privileges are not enforced, so every
//     role already holds what such a GRANT gives; REVOKE answers 0A000
//     because it could not take effect; the planner handles GRANT/REVOKE
//     on tables and views, owners and ALTER DEFAULT PRIVILEGES before
//     Plan),
//     … OWNER TO, storage parameters and tuning
//     subcommands, CREATE SCHEMA IF NOT EXISTS public, COMMENT ON objects
//     other than tables, views and columns, DROP MATERIALIZED
//     VIEW/DOMAIN/SCHEMA IF EXISTS of objects that cannot exist.
//   - Enum types (enum.go) and created extensions (extension.go) are
//     manifest entries like views, under names no relation can have
//     (TypeEntryPrefix "type:", ExtensionEntryPrefix "ext:"), with
//     metadata version 4: CREATE TYPE … AS ENUM, ALTER TYPE … ADD VALUE /
//     RENAME VALUE / RENAME TO, DROP TYPE (2BP01 while columns use it),
//     CREATE/DROP EXTENSION of the built-in vector, pgcrypto and
//     uuid-ossp (plpgsql always exists; any other answers PostgreSQL's
//     0A000). A column of an enum type stores the type's OID (chosen at
//     CREATE TYPE from exec's enum range, never changed) and its values
//     as text labels; tables with such a column are metadata version 4.
//   - Domains (domain.go) are type entries too (metadata version 6):
//     CREATE DOMAIN, ALTER DOMAIN (default, NOT NULL, ADD/DROP/VALIDATE
//     CONSTRAINT with Validations of the columns using the domain,
//     RENAME [CONSTRAINT]), DROP DOMAIN (2BP01 while columns use it). A
//     column declared with a domain stores the base type and names the
//     domain's OID (ColumnMeta.Domain, exec's domain range); the writer
//     checks the domain's constraints when values are stored.
//   - Schemas (schema.go) are manifest entries too (SchemaEntryPrefix
//     "schema:", metadata version 6): CREATE SCHEMA [IF NOT EXISTS]
//     [AUTHORIZATION], DROP SCHEMA [CASCADE | RESTRICT], ALTER SCHEMA …
//     RENAME TO (of an empty schema) / OWNER TO, ALTER TABLE | VIEW |
//     SEQUENCE … SET SCHEMA (set_schema.go). A created schema's relations (and indexes) are the entries
//     "schema.name"; Planner.SearchPath resolves unqualified names and
//     picks the creation schema (3F000 when no schema of the path
//     exists).
//   - Property graphs (propgraph.go) are manifest entries too
//     (PropGraphEntryPrefix "propgraph:", metadata version 5): CREATE [OR
//     REPLACE] / ALTER / DROP PROPERTY GRAPH arrive as DO LANGUAGE
//     pggraph_property_graph '<text>' (internal/pgq.Splice) and are
//     planned from the text; table and column renames follow into the
//     graphs, DROP TABLE / DROP COLUMN of what a graph reads is 2BP01.
//   - CREATE INDEX records a (possibly non-btree) index on plain columns
//     for the executor's key-lookup path; expression indexes and partial
//     unique indexes answer 0A000. A unique index is a uniqueness rule
//     like UNIQUE (validated, enforced, usable by REFERENCES).
//   - ALTER that changes stored columns (ADD/DROP/RENAME COLUMN, a type
//     change whose values convert) is a RowRewrite; a binary-coercible
//     type change (varchar(n) → text, wider varchar) is catalog-only.
//   - CREATE TABLE … (LIKE source …) copies source's columns where the
//     clause stands and, per INCLUDING option, defaults, identity,
//     CHECK constraints, keys and indexes and comments (like.go).
//   - Temporary tables, views and sequences are planned as relations of
//     the session's pg_temp_N (temp.go; the planner rewrites CREATE TEMP
//     TABLE / VIEW / SEQUENCE before Plan). A view whose query reads a
//     temporary relation is made temporary, with PostgreSQL's NOTICE
//     (42P16 when its name is qualified by a permanent schema).
//   - Inheritance, partitioning, generated columns,
//     exclusion constraints, MATCH FULL, materialized views and user
//     types answer 0A000 naming the feature; so do WITH
//     CHECK OPTION, view options (check_option, security_barrier,
//     security_invoker; an unknown one is 22023 as in PostgreSQL),
//     ALTER VIEW subcommands other than OWNER TO and RENAME, views whose
//     query has SEARCH/CYCLE, and a column rename a view cannot follow
//     (the column is matched by name in a USING or NATURAL join).
//   - Views are read-only: there are no automatically updatable views
//     (PostgreSQL's simple views are), so writes through a view fail
//     (planner) and information_schema shows views and their columns as
//     not updatable or insertable.
//
// Invariants:
//   - Errors are *pgerr.Error with PostgreSQL's SQLSTATE and message text;
//     unsupported statements answer 0A000 naming the statement.
//   - A planned definition's Extra always decodes (DecodeMeta) to the
//     change's Meta, and its columns match the meta's one to one by name
//     (a view's definition: exactly the placeholder column).
//   - Column ids of surviving columns are preserved; new columns carry id
//     0 for the adapter to allocate.
package ddl
