// Package planner is pggraph's SQL session layer: it implements
// wire.Backend and wire.Session on top of the executor (package exec),
// the graph root (package graph) and the write path (adapters.Graph:
// every graph-visible change is one graph commit through the write
// protocol).
//
// # Reads
//
// A statement reads one snapshot: in autocommit the head of the
// session's branch (the connection's database name, or SET
// graph.branch), read when the statement is described or executed;
// inside a transaction the snapshot pinned at the transaction's first
// statement (PostgreSQL takes its snapshot at the first query, not at
// BEGIN), plus the transaction's own pending changes (read-your-writes:
// exec.WithOverlay hides deleted rows and appends pending inserts, whose
// row addresses have the top bit set). SET graph.as_of pins a read-only
// snapshot of the branch's history (planner/graphsql resolves commit ids,
// manifest versions and timestamps). Each snapshot's tables become an
// exec catalog (schema public, definitions from planner/ddl: exact
// PostgreSQL types, defaults, constraints) whose rows come from
// exec/lancesrc at the pinned Lance version; schema graph holds the
// graph.* views. Results stream (exec runs as a coroutine resumed only
// while wire waits for a row), so memory is one batch plus what the plan
// buffers (Backend.MemoryLimit), and a prepared statement re-binds when
// its snapshot or the pending state changed.
//
// Per-statement cost of an autocommit read (the served point lookup that
// exec/cmd/execbench measures): the head is re-read every statement — graph.Root.Head checks
// for a newer manifest version with one Stat, which is how commits of
// other processes on the same data directory become visible (a lookup
// sees every commit acknowledged before it started;
// TestLookupSeesOtherProcessCommits) — and everything derived from it is
// cached per snapshot: the catalog (built once per snapshot and shared
// by the Backend's sessions, catalog_cache.go: a snapshot is immutable,
// so its catalog needs no invalidation), the table definitions with
// their Lance sources and key indexes (shared by sessions), and the plan
// of a prepared statement. The coroutine is the session's queryRunner, reused
// from query to query (a new goroutine per statement re-grew its stack
// every time); the session also keeps its TimeZone location and result
// type map.
//
// Literal cache (literal_cache.go): a simple-protocol query whose text
// differs from an earlier one only in literals (exec.NormalizeLiterals,
// and the literals' types) runs the plan bound once for the normalized
// text, with its literals as the parameters. A shape gets its plan at
// its second occurrence and keeps it only when the normalized
// statement's columns equal the written one's; the plan serves only the
// snapshot catalog (and pending generation) and the binding-relevant
// settings (wire.Settings.BindGeneration) it was bound under; a failure
// before the first row runs the statement as written (so an error is its
// own, with its position). At most 256 shapes per session.
//
// # Writes
//
// INSERT (VALUES, SELECT, DEFAULT, DEFAULT VALUES, column lists, ON
// CONFLICT DO NOTHING / DO UPDATE with EXCLUDED and WHERE, RETURNING),
// UPDATE (SET, multi-column SET, FROM, WHERE, RETURNING), DELETE (USING,
// WHERE, RETURNING), MERGE (PostgreSQL 15–17 forms including WHEN NOT
// MATCHED BY SOURCE and RETURNING), TRUNCATE [CASCADE] and COPY … FROM
// STDIN (text, csv, binary) are turned into exec queries: the new rows
// come from one query that casts every value to its column type
// (PostgreSQL's assignment rules: varchar(n)/char(n) checked, not
// truncated), and the rows to change are found by projecting exec's
// hidden _rowaddr column, so every expression, join and subquery keeps
// exec's semantics. The changes join the pending state: per table, new
// rows as Arrow records in table column order and removed rows as a
// bitmap per fragment of snapshot row addresses (addrbits.go; an UPDATE
// is both). Past a quarter of the session's memory limit (at most 64 MB)
// a transaction's insert records are staged to an unlinked temporary
// file and read back column by column on demand (pending_staged.go); a
// staged record is the same object as before, so savepoint copies and
// statementDelta see no difference. An INSERT … SELECT (also with ON
// CONFLICT DO NOTHING, or DO UPDATE of no key column and without
// subqueries), and an UPDATE or MERGE that assigns no unique or
// referenced key, add their rows chunk by chunk as they stream, their
// query reading a snapshot of the pending state from before the
// statement (chunked_writes.go), so one statement is staged like a
// transaction; a statement that cannot stream says why in its 53200
// (writer.heldWhy); DELETE streams too (deleteChunks). RETURNING rows of any DML past the staging
// threshold go to a spill file read back as they are sent
// (holdReturning). The COMMIT's checks against concurrent commits read
// only the key columns of staged rows (pendingColumns). Serial and identity
// defaults draw from planner/seq's durable allocator (never twice, gaps
// allowed, not transactional, as in PostgreSQL). DDL is planned by
// planner/ddl against the snapshot plus the transaction's earlier DDL and
// joins the same pending state (created tables get pending rows, a
// rewriting ALTER computes the table's complete new content with exec).
// CREATE TABLE … AS and SELECT … INTO (ctas.go) plan the CREATE TABLE of
// the query's result columns and insert its rows into the same pending
// state: one graph commit, or none when the query fails. SQL-level
// PREPARE / EXECUTE (prepare_sql.go) and cursors (DECLARE, FETCH, MOVE,
// CLOSE; cursor.go) are session state outside the graph, and so are
// temporary tables (temp_tables.go): pending state inside a transaction,
// taken out of it before the graph commit, kept in the session's memory.
// DO blocks (do.go, do_vars.go, plpgsql.go, plpgsql_control.go) run a
// PL/pgSQL subset — variables (a nested block's declared on entry),
// blocks with EXCEPTION handlers, IF, CASE, loops with labels, FOREACH,
// SQL statements (… INTO), PERFORM, EXECUTE with INTO and USING, CALL,
// GET DIAGNOSTICS, RAISE — compiled by PostgreSQL's PL/pgSQL grammar and refused whole
// (0A000) when they use anything else; their statements go through the
// session like a client's, inside the DO's transaction (an autocommit DO
// is one commit), with variables read as typed literals where the
// grammar has a column reference, and a block with handlers runs under
// an internal savepoint. User functions (function_call.go) run on the
// same machinery: exec binds a call after the built-ins and hands each
// row's arguments to the session (exec.Session.CallFunction); a PL/pgSQL
// body runs with its parameters as variables (RETURN, RETURN NEXT,
// RETURN QUERY collect the result), a SQL body with $n and parameter
// names as typed literals, both inside the calling statement's
// transaction (an autocommit statement turns pending, so the body's
// writes publish with it). CALL (procedures.go) is a one-row query exec
// binds (exec/procedures.go), tagged CALL. Triggers (triggers.go) fire
// from INSERT, UPDATE, DELETE, COPY FROM and TRUNCATE inside the
// statement: BEFORE ROW
// triggers change or skip the computed rows before constraints are
// checked, AFTER ROW and STATEMENT triggers run after the write joined
// the pending state, so their writes are part of the same graph commit:
// an autocommit statement on a table with triggers runs as a transaction
// (dmlFiresTriggers), since a trigger function's statements would
// otherwise each publish on their own.
//
// Validators run at the statement that causes a violation, against the
// view the statement sees, with PostgreSQL's SQLSTATEs, messages and
// details: NOT NULL 23502, CHECK 23514 (exec.Engine.CheckViolation),
// PRIMARY KEY/UNIQUE 23505, FOREIGN KEY and edge endpoints 23503 — each
// one batched probe per constraint for all rows of a statement (through
// the key index of the key's leading column when the snapshot source has
// one; pending rows searched in memory) — with ON DELETE and ON UPDATE
// NO ACTION, RESTRICT (per row, as PostgreSQL; 23503), CASCADE
// (referencing rows deleted or updated in the same commit, recursively),
// SET NULL and SET DEFAULT, referential actions applied set-based per
// level; unique indexes like UNIQUE, graph.max_out (23514, at
// the statement) and graph.min_out (23514, when the change is published:
// at COMMIT, or before an autocommit statement answers, since a node is
// inserted before its edges). Every table a statement reads, writes or
// probes joins the transaction's read set.
//
// # Transactions and commits
//
// wire keeps PostgreSQL's transaction state machine (including the
// failed state) and calls the hooks. An autocommit statement publishes
// its changes at once, before answering, as one graph commit whose read
// set is every table it read or probed: when one of them moved before
// the effects, its rows are staged unchanged on the new head if they
// commute with what committed (writeset.go), else the statement runs
// again against the new head (bounded, Backend.MaxReprepare, default
// 64). An explicit BEGIN … COMMIT publishes all its pending changes (DDL
// first, in order, then rows) as one graph commit.
//
// Isolation (isolation.go, writeset.go, readset.go, fklocks.go,
// rowlocks.go, rowstmt.go;
// docs/architecture.md, "Isolation and row-level concurrency").
// transaction_isolation is fixed at the first statement. READ COMMITTED
// (the default) reads a new snapshot per statement (a transaction with
// pending DDL, TRUNCATE or a rewrite keeps its first); REPEATABLE READ
// and SERIALIZABLE one per transaction. A transaction of row changes
// commits with row-level arbitration: COMMIT fails with 40001 only when
// a commit since it first touched a table deleted a row version it
// deletes, inserted a live unique key it inserts, removed a parent key
// its new rows reference, changed a child table its deletes checked, or
// (SERIALIZABLE) inserted or deleted a row matching something it read:
// each statement's reads are logged by the Lance sources at the
// granularity they served them (keys, key ranges, addresses, filter
// hints; readset.go), a table read otherwise counts whole; the intervening changes are read back from the tables' Lance
// versions (deleted addresses, new fragments), so other processes'
// commits count like this one's. A compaction version changes no row:
// addresses are followed through its address map and the delete set is
// rebased onto the compacted head (rebase.go), so compaction by any
// process never fails a transaction; a background compaction of this
// process waits only for the row locks of the fragments it rewrites
// (rowlocks.go reserveCompactions), never for key locks or rows
// elsewhere. Otherwise its rows are staged on
// the newer head (recompute, never patch). A transaction with DDL, TRUNCATE
// or a rewrite commits strictly (any change of a table it read or wrote
// is 40001). Within the process, writes lock the row versions they
// change (FOR NO KEY UPDATE for an UPDATE assigning no key column,
// else FOR UPDATE), the unique keys they insert and, FOR KEY SHARE, the
// parent rows their new rows reference (fklocks.go) until the transaction ends
// (after the publish; a failed statement without savepoints ends them
// at once): a second writer waits, then recomputes its statement on a
// new snapshot (READ COMMITTED) or fails with 40001 when the holder
// committed a change (REPEATABLE READ, SERIALIZABLE; 23505 for a
// duplicate key, as PostgreSQL); a READ COMMITTED INSERT of a key whose
// committed row another transaction deletes or updates waits for it
// and runs again (dupwait.go); waiters of one row queue as on
// PostgreSQL's tuple lock, one re-running its statement per commit of
// the row (rowlocks_queue.go); lock_timeout gives 55P03 and a wait
// that closes a cycle 40P01. Past 4,096 locks of one table a statement
// holds them as one bulk set of 64-bit ids (rowlocks_bulk.go). Across processes a same-row or same-key
// conflict is 40001 at the second COMMIT. SELECT … FOR UPDATE / FOR NO
// KEY UPDATE / FOR SHARE / FOR KEY SHARE [NOWAIT | SKIP LOCKED] of one
// table in an explicit transaction locks the rows it returns
// (forupdate.go; SKIP LOCKED skips before LIMIT counts); other locking
// shapes, and LOCK TABLE, lock optimistically at table level (COMMIT
// fails with 40001 when the table moved). 40001 details name tables and
// keys by their SQL names. A row-level COMMIT below SERIALIZABLE, and an
// autocommit UPDATE/DELETE, share a graph commit with concurrent ones
// (group commit) where no member can invalidate another unseen
// (group.go: no UNIQUE besides the primary key, no edge cardinality
// bound, deletes only from tables no foreign key references, no
// table-level FOR UPDATE lock); each member is arbitrated at row level
// against the group's base. A READ COMMITTED statement failing with
// 23505 because a key the transaction inserted earlier was committed
// meanwhile by another process answers 40001 (pendingConflict).
//
// SAVEPOINT copies the pending state (records are immutable and
// shared); ROLLBACK TO restores the copy and keeps the read set. READ
// ONLY transactions (BEGIN READ ONLY, SET TRANSACTION READ ONLY,
// default_transaction_read_only) and SET graph.as_of sessions answer
// writes with 25006. Write-path errors keep their SQLSTATE (40001,
// 55000 naming the operation, 55P03, 54000, 3D000, …). SET
// graph.commit_message is recorded on the next commit; SHOW
// graph.last_commit answers the id of the session's last commit.
//
// Advisory locks are exec's (every pg_advisory_* and pg_try_advisory_*
// form: exclusive and _shared, session and _xact scope, anywhere an
// expression is allowed), in one lock space per Backend: each session is
// an exec.AdvisorySession handed to its queries through the context;
// transaction holds end at COMMIT/ROLLBACK (or with the autocommit
// statement or pipeline), all holds when the session closes. They are
// honoured within this process: sessions of other pgproxy processes over
// the same root do not see them (table writes stay safe across processes
// regardless: commits are arbitrated by the write protocol).
//
// nextval, currval, setval and lastval work anywhere an expression is
// allowed (VALUES, INSERT … SELECT, UPDATE SET, WHERE, CTEs, ON CONFLICT
// DO UPDATE SET, MERGE actions — a MERGE clause's values are computed
// only for the rows that clause changes): exec calls the session
// (exec.Session.Sequences), which resolves the name against the
// statement's catalog and draws from planner/seq, with PostgreSQL's
// errors (42P01, 42809, 55000 currval/lastval not yet defined, 22003
// setval out of bounds, 2200H limit reached, 25006 in a read-only
// transaction). One difference: exec evaluates a batch expression by
// expression, so several sequence calls in one query draw column by
// column (SELECT nextval('s'), nextval('s') FROM two rows gives 1|3,
// 2|4 where PostgreSQL gives 1|2, 3|4; values stay unique).
//
// # Views
//
// CREATE/DROP/ALTER VIEW are DDL like the rest (planner/ddl/view.go):
// the view's query is bound against the statement's catalog (the
// transaction's earlier DDL included: viewBinder) and the view joins the
// pending catalog changes, so it is rolled back by ROLLBACK and published
// with the transaction's graph commit. Reads expand views (exec); what a
// view reads, transitively, joins the read set of a statement that reads
// through it (sqlviews.go), so a conflicting change of a base table fails
// COMMIT with 40001 as a direct read would. Views are read-only unless
// an INSTEAD OF trigger handles the statement (instead_of.go): INSERT,
// UPDATE and DELETE on a view without one answer 0A000 (PostgreSQL's
// automatically updatable views are not implemented), MERGE,
// COPY view TO/FROM and TRUNCATE answer PostgreSQL's 42809. EXPLAIN of a
// query over a view shows the scans of the tables under it. graph.merge binds every
// view of the merged graph and refuses (40001) a merge that leaves one
// that no longer binds to its columns.
//
// Logical replication (replication.go, replication_stream.go,
// publications.go): the session implements wire.Replicator for
// replication=database connections. Slots and publications are the
// root's (package replication); a slot streams its branch's commits
// after its confirmed position as pgoutput transactions built from the
// change feed (graph_changes.go's changedTables and diffTable), tables
// filtered by the named publications (docs/architecture.md, "Logical
// replication (pgoutput)").
//
// Roles (roles.go, login.go): CREATE/ALTER/DROP ROLE|USER|GROUP, ALTER
// ROLE … RENAME TO, GRANT/REVOKE role [WITH ADMIN OPTION] change the
// root's role catalog (package access) at once, with PostgreSQL 15's
// permission rules and messages (testdata/roles/roles.sql is compared
// with PostgreSQL); inside an explicit transaction block they are
// staged and published at COMMIT, forgotten at ROLLBACK (roles_txn.go).
// Schema USAGE is checked on the names a writing or utility statement
// looks up before anything else (schema_usage.go); GRANT/REVOKE on
// functions is validated and then refused, 0A000 (function_privileges.go).
// SET ROLE needs membership; current_user follows it and commits
// are attributed to it (attribution.go). Backend.NewSession admits a
// session only for an existing role with LOGIN and within its
// CONNECTION LIMIT; Backend.Credentials gives wire the stored secret
// (none after VALID UNTIL). graph.create_branch and graph.delete_branch
// need CREATEDB. Every branch a session reaches other than its startup
// database passes wire.SessionInfo.Admit (hba rules) and the CONNECT
// privilege. GRANT/REVOKE … ON DATABASE b (branch_privileges.go): a
// branch's CONNECT, WRITE (checked before every publishing statement)
// and MERGE (graph.merge's target), with PostgreSQL's grant options,
// grantor choice and dependent-privilege rules; CREATE guards CREATE
// SCHEMA and ALTER SCHEMA … RENAME/OWNER TO, TEMPORARY a session's
// temporary objects (database_privileges.go). GRANT role … GRANTED BY
// records the grantor (superusers only for another role); on object
// grants GRANTED BY must name the current role (0A000, PostgreSQL 15's
// answer). Enum and domain types carry owner and ACL like functions
// (type_privileges.go: GRANT/REVOKE USAGE ON TYPE|DOMAIN, USAGE
// checked on the planned changes that declare something of the type,
// ALTER TYPE … OWNER TO). ALTER ROLE … SET answers 0A000.
//
// Table and view privileges (table_privileges.go): a relation's owner
// and ACL are in its definition (ddl.TableMeta.Owner/ACL), so GRANT and
// REVOKE ON [TABLE] t | ALL TABLES IN SCHEMA public are catalog-only
// redefinitions published like DDL (in the transaction, on the branch,
// merged with the schema). CREATE records the acting role as owner
// (bootstrap superuser: 0), ALTER TABLE|VIEW|SEQUENCE … OWNER TO changes
// it with PostgreSQL 15's checks, DROP/ALTER/RENAME/CREATE INDEX need
// ownership (DROP: of the relation or of its created schema) and a
// foreign key REFERENCES on its target. Types, functions, triggers and
// commented indexes are their owner's too (object_owner_checks.go:
// DROP/ALTER/RENAME/COMMENT and CREATE OR REPLACE FUNCTION need
// ownership, CREATE TRIGGER needs TRIGGER on the table, CREATE
// FUNCTION/TYPE/DOMAIN need CREATE on the schema); REINDEX and CLUSTER
// need the table's ownership, and VACUUM/ANALYZE skip tables the role
// does not own with PostgreSQL's WARNING. Enforcement is
// for the client's statements only: prepare checks SELECT on every
// relation exec.Prepared.Relations reports (a view's relations as the
// view's owner; cached plans are keyed by role catalog version and
// current role, so a reused plan passed the checks), runWrite checks the
// target's INSERT/UPDATE/DELETE/TRUNCATE (+SELECT where the statement
// reads its columns) and arms writer.checkReads for the statement's
// first query only, so the planner's own FK checks, cascades and
// validations run unchecked. DROP ROLE refuses a role that owns or has
// grants on relations or sequences of any branch. Sequences'
// privileges (sequence_privileges.go) are checked by the sequence
// functions and a serial column's default. ALTER DEFAULT PRIVILEGES
// (default_privileges.go) is a role statement: it changes the role
// catalog's default ACLs, which ownCreated gives the relations and
// sequences a role creates; for functions, types and schemas it answers
// 0A000, as do column privileges. REASSIGN OWNED (reassign_owned.go)
// changes the owner of the branch's relations as ALTER … OWNER TO does,
// in one commit; DROP OWNED (drop_owned.go) drops and revokes on the
// branch in one commit and publishes the role-catalog part (branch
// privileges, default privileges) once that is planned, never inside a
// transaction block. ALTER … OWNER TO
// of other objects (checkOwnerChange): they have no per-role owner, so
// a superuser's OWNER TO an existing role is accepted without effect
// and anyone else's is 42501.
//
// # Maintenance statements (maintenance.go)
//
// VACUUM, ANALYZE, CHECKPOINT, REINDEX, CLUSTER and LOCK TABLE check
// their arguments and answer as PostgreSQL 15 does, doing what they mean
// here: VACUUM FULL compacts (graph.optimize), ANALYZE collects
// PostgreSQL's column statistics from the statement's snapshot
// (exec.AnalyzeTable; Backend.Analyze replaces the collector when set),
// LOCK TABLE locks optimistically like FOR UPDATE; the rest have nothing
// to do and say so in a NOTICE where PostgreSQL would have done work
// (plain VACUUM, CLUSTER).
//
// # Not supported yet (0A000 naming the statement, never a made-up answer)
//
// COPY to or from a file, EXPLAIN of a writing statement or in another
// format than TEXT (EXPLAIN [ANALYZE] of a query answers the executor's
// plan tree in PostgreSQL's text layout, exec/explain.go, and the
// snapshot it reads, explain.go),
// LISTEN/NOTIFY,
// data-modifying CTEs (exec refuses them), graph.min_out on a streamed
// (autocommit) COPY, DDL statements planner/ddl refuses. Sequence
// allocation is shared by branches (merged branches never collide), so
// setval on a branch moves the sequence for every branch.
// (RETURNING: UPDATE's sees the new
// rows and FROM, * being the target's then each FROM item's columns;
// DELETE's the old rows and USING; MERGE's the changed rows, the source
// row that caused each — NULL for NOT MATCHED BY SOURCE — and
// merge_action(), * being the target's columns then the source's, as
// PostgreSQL 17.)
// A multi-statement simple query with a write among its statements is one
// transaction, as in PostgreSQL: its writes stay pending until the query
// ends and publish as one commit, arbitrated like an explicit
// transaction's (40001 on a conflict: the statements were already
// answered), and a failing statement undoes
// them all; statements after a BEGIN that is not the query's first join
// that block. An extended-protocol pipeline (statements before one
// Sync, as pgx batches, node-postgres and pgjdbc send them) is one
// implicit transaction the same way: a writing statement that shares it
// (wire.InPipeline) keeps its writes pending until the Sync, later
// statements read them, and an error rolls all of them back. (The first
// statement of a pipeline is seen as shared only when the client's next
// Execute has already arrived; otherwise it publishes alone, as an
// autocommit statement.) A syntax error is still 42601, as PostgreSQL
// reports it first.
//
// # Branch merges
//
// graph.merge (planner/graphsql → adapters.Graph.Merge) is checked
// against the SQL constraints before it publishes: the Backend registers
// checkMerge (adapters.SetMergeCheck), which queries the merged result —
// the target's tables with the merge's catalog and each replayed table's
// deletions and additions as a pending state — for duplicate PRIMARY
// KEY/UNIQUE/unique-index keys (23505 naming the constraint and key),
// CHECK violations (23514), NULLs in NOT NULL columns (23502) and rows
// without their referenced row (23503, worded after the side that
// caused it), for every table the merge changes and every foreign key
// into or out of one. A violation refuses the merge: nothing is
// published. Rows a merge carries into a table re-columned on the other
// branch take the DEFAULT of the columns that branch added, evaluated
// once per merge (mergeDefaults, adapters.SetMergeDefaults).
//
// graph.merge(…, strategy => 'stop') in a transaction block stages the
// merge in the transaction (merge_stage.go): the snapshot becomes the
// staged merged graph, the pending state its row changes (the target's
// row kept where both branches changed one; a row both updated staged
// as its per-column merge, a pending row followed by handle:
// pending_follow.go), graph.conflicts lists the
// conflicting rows, ordinary SQL (or DELETE FROM graph.conflicts)
// resolves them, and COMMIT publishes one strict merge commit
// (adapters.Graph.PublishMerge), refused with 55000 while a conflict is
// left. graph.changes(since [, table]) is the change feed
// (graph_changes.go).
//
// # COPY FROM and memory
//
// In autocommit, COPY FROM streams: batches of rows are converted and
// validated while the Load adapter stages them into Lance files, so
// memory is a batch plus the unique keys seen so far, whatever the row
// count, and the COPY is one graph commit (a read-set change after the
// stream was consumed answers 40001: the client retries). Inside a
// transaction the rows join the pending state like INSERT's; pending
// rows of a transaction are bounded by Backend.MemoryLimit (53200 when
// exceeded; a statement's rows count as they arrive, so an INSERT …
// SELECT stops near the limit instead of after building every row).
//
// COPY FROM's errors carry PostgreSQL's CONTEXT (wire.Error.Where), in
// both paths: the line and column (and, for text and csv, the value) of
// a value that does not convert; the line (with its text, except in
// binary format) of a row with the wrong number of fields or that breaks
// NOT NULL or CHECK; the line alone for a duplicate key. The line text
// is rebuilt from the decoded fields (wire.CopyIn keeps no raw line), so
// it differs from PostgreSQL's when the client used optional escapes or
// quotes.
//
// # Invariants
//
// Every error the client sees is a *wire.Error with a SQLSTATE (exec
// errors keep their code, message and position). A failed statement
// leaves the pending state only partially changed inside a transaction
// that is then failed (only ROLLBACK or ROLLBACK TO, which restore a
// copy, can follow); an autocommit statement's pending state is
// discarded. Nothing is published except through adapters.Graph.Write.
package planner
