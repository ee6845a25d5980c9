// Package wire is pggraph's PostgreSQL protocol (v3.0 and v3.2) server:
// the top of the stack. It owns everything a client sees before and
// around SQL (startup, TLS, authentication, the simple and extended query
// protocols, the transaction status, COPY framing, cancellation, session
// settings, limits, error fields) and knows nothing about executing SQL.
// The SQL layer plugs in through Backend and Session (session.go).
//
// # Serving
//
//	srv, err := wire.NewServer(wire.Config{Backend: b, Auth: wire.AuthSCRAM, UsersFile: "users"})
//	go srv.Serve(ctx, listener)   // any number of listeners
//	...
//	srv.Shutdown(ctx)             // graceful; forced when ctx ends
//
// Config fields (all optional but Backend):
//
//	Backend                   creates one Session per connection (NoSQLBackend until the SQL layer lands)
//	Auth                      trust | password | md5 | scram-sha-256 | reject (default trust)
//	UsersFile / Users         login roles with hashed secrets (format below); needed unless trust
//	HBA, HBAFile              pg_hba-style rules (ParseHBA syntax: "TYPE DATABASE USER ADDRESS METHOD";
//	                          TYPE host/hostssl/hostnossl); first match wins, no match means Auth
//	TLSCertFile, TLSKeyFile   enable TLS with that certificate (SSLRequest answered 'S', and
//	                          direct TLS with ALPN "postgresql" as PostgreSQL 17 clients send)
//	TLSSelfSigned             enable TLS with a certificate generated at start
//	TLSConfig                 a ready tls.Config (overrides the two above)
//	RequireTLS                refuse plaintext sessions (28000)
//	MaxConnections            concurrent sessions, default 100; more get FATAL 53300
//	MaxMessageSize            bytes per client message, default 64 MiB (the per-connection cap on
//	                          buffered input); a larger one is read through unkept, its statement
//	                          fails with 54000 and the session goes on
//	MaxBufferedBytes          bytes all connections together hold in large messages, default 512 MiB;
//	                          a message that would pass it is read through unkept, 53200
//	MessageTimeout            longest wait for more bytes of a message that has begun, default 60s
//	                          (FATAL 08P01): half-sent messages do not hold a connection forever
//	StatementTimeout          default statement_timeout (57014 when exceeded)
//	IdleInTransactionTimeout  default idle_in_transaction_session_timeout (FATAL 25P03)
//	IdleSessionTimeout        default idle_session_timeout (FATAL 57P05)
//	WorkMem                   default work_mem (PostgreSQL's units; "" = the built-in 64MB)
//	ClientCheckInterval       how often a running statement's client is checked for a disconnect
//	                          (default 250ms; <0 disables); a gone client's statement is cancelled
//	StartupTimeout            accept → ReadyForQuery budget, default 60s
//	AuthFailureDelay          base delay before answering a failed login, doubled per recent
//	                          failure from the same address (max 32×), default 200ms; <0 disables
//	FlushThreshold            output buffer size, default 32 KiB
//	Logger                    logrus logger, default the standard one
//
// # Users file
//
// One role per line, "name secret", # comments. Secrets use PostgreSQL's
// pg_authid.rolpassword formats, never plain text:
//
//	alice SCRAM-SHA-256$4096:<salt b64>$<StoredKey b64>:<ServerKey b64>
//	bob   md5<hex md5(password || username)>
//
// HashSCRAM and HashMD5 produce them. Over TLS, SCRAM-SHA-256-PLUS
// (tls-server-end-point channel binding) is offered next to SCRAM-SHA-256.
// With method md5 a SCRAM role
// authenticates with SCRAM (as PostgreSQL does); method password checks a
// cleartext password against either form. A failed login is always FATAL
// 28P01 "password authentication failed for user ..." whether or not the
// role exists (an unknown role runs SCRAM against a mock secret derived from
// a per-server key), and repeated failures from one address are slowed down.
//
// # Connection state machine
//
//	accept
//	  └─ startup: read untyped packets without buffering past them (a first
//	     byte 0x16 is a direct TLS ClientHello: handshake, then continue)
//	       SSLRequest    → 'S' + TLS handshake (if configured) or 'N'; loop
//	       GSSEncRequest → 'N'; loop
//	       CancelRequest → cancel the matching backend's running statement
//	                       (process id + constant-time secret compare); close
//	       StartupMessage 3.x → NegotiateProtocolVersion if minor > 2 or _pq_.
//	                       options were sent; connection limit; authenticate;
//	                       apply startup parameters and options=-c name=value
//	                       as session defaults; Backend.NewSession (3D000 for an
//	                       unknown database/branch); AuthenticationOk,
//	                       ParameterStatus×13, BackendKeyData (4-byte key for
//	                       3.0, 32 bytes for 3.2), ReadyForQuery
//	  └─ ready: read one message
//	       Query   → Session.Parse splits it; each statement runs in order,
//	                 results streamed; the first error stops the rest; one
//	                 ReadyForQuery at the end
//	       Parse/Bind/Describe/Execute/Close → extended cycle; after an error
//	                 every message up to Sync is discarded
//	       Sync    → end the cycle: commit the implicit transaction, ReadyForQuery
//	                 (a statement that shares the cycle's implicit transaction
//	                 with others runs with InPipeline(ctx): pipeline.go)
//	       Flush   → write pending output
//	       CopyData/CopyDone/CopyFail outside COPY → dropped (after a failed COPY)
//	       Terminate or EOF → close (rolling back an open transaction)
//	  └─ copy-in (inside Session.CopyFrom): CopyData streamed to the session,
//	       CopyDone ends it, CopyFail → 57014, Flush/Sync ignored
//
// The transaction state is PostgreSQL's, kept here and reported in every
// ReadyForQuery:
//
//	idle (I) ──stmt──▶ implicit (I) ──end of Query / Sync──▶ commit ──▶ idle
//	idle ──BEGIN──▶ block (T) ──COMMIT──▶ commit ──▶ idle
//	implicit ──BEGIN──▶ block (the statements before it join the block)
//	implicit ──error──▶ rollback ──▶ idle
//	block ──error──▶ failed (E): everything but COMMIT/ROLLBACK/ROLLBACK TO → 25P02
//	failed ──ROLLBACK TO sp──▶ block;  failed ──COMMIT──▶ rollback, tag ROLLBACK
//
// BEGIN inside a block and COMMIT/ROLLBACK outside one answer with
// PostgreSQL's warnings (25001, 25P01). Session.Begin/Commit/Rollback and
// the savepoint hooks are called exactly at these edges; settings changed
// by SET inside a transaction are undone by its rollback (and by ROLLBACK
// TO a savepoint taken before them), SET LOCAL ends with the transaction.
// wire keeps the savepoint names, so RELEASE / ROLLBACK TO of an unknown
// savepoint is 3B001 before any session hook runs. A multi-statement Query
// is an implicit block (DISCARD ALL refuses to run there, as in
// PostgreSQL). Portals are closed at transaction end.
//
// # Logical replication connections
//
// The startup parameter replication=database makes a logical
// replication connection (replication=true, physical, is FATAL 0A000;
// the session must implement Replicator). Its Query messages carry SQL
// or a replication command (replication_command.go parses
// IDENTIFY_SYSTEM, CREATE_REPLICATION_SLOT, DROP_REPLICATION_SLOT,
// START_REPLICATION); the extended protocol is refused with 08P01.
// START_REPLICATION switches to CopyBoth (replication.go): a reader
// goroutine hands the client's CopyData (standby status updates, whose
// flush position the stream confirms) and CopyDone to the sender loop,
// which sends each ready transaction's XLogData, a keepalive after 10 s
// of silence, and polls for new commits every 100 ms. The client's
// CopyDone ends it with CopyDone, "COPY 0", "START_REPLICATION" and
// ReadyForQuery; an error while streaming is FATAL (the reader is still
// running), and shutdown or pg_terminate_backend end it with 57P01.
//
// # PostgreSQL parity
//
// TestDifferentialPostgres replays the same message scenarios against this
// server (with a test engine) and a real PostgreSQL 15 and requires
// identical transcripts: startup, transaction states and warnings, command
// tags, SET/SHOW/RESET and ParameterStatus timing (reported just before
// ReadyForQuery, only for values that changed), portals and row limits,
// error-until-Sync, COPY in all formats, error codes, messages and
// positions (relative to the whole query string: sessions report
// positions relative to Statement.SQL and wire adds Statement.Offset).
//
// # What wire executes itself
//
// Session.Parse classifies each statement (Kind). ParseUtility is the
// reference classifier (a lexer that honours quotes, dollar quotes and
// comments plus a small grammar for utility statements); a SQL layer may
// use it or produce the same Statement values from its own parser. wire
// executes BEGIN/START/COMMIT/END/ROLLBACK/ABORT (AND CHAIN), SAVEPOINT,
// RELEASE, ROLLBACK TO (through the Session hooks), SET/SET LOCAL/SET
// TRANSACTION/SET SESSION CHARACTERISTICS/RESET/SHOW (ALL), plain
// SELECT set_config(...)/current_setting(...), DISCARD ALL, DEALLOCATE
// (protocol-level prepared statements live here) and the COPY
// sub-protocol. Everything else (KindQuery) goes to Session.Execute.
// Until the SQL layer lands, NoSQLBackend serves exactly that and answers
// 0A000 for every other statement.
//
// Settings: the PostgreSQL parameters clients send are validated and
// normalized (DateStyle as PostgreSQL's check_datestyle reads it, a part
// not named keeping the session's current one; client_encoding UTF8 only,
// standard_conforming_strings on only, time units for timeouts, ...);
// unknown non-dotted names are 42704; dotted names (graph.branch,
// graph.as_of, any custom.name) are accepted. graph.branch defaults to the
// database name. A change of a reported setting (application_name,
// DateStyle, TimeZone, ...) sends ParameterStatus before the next
// ReadyForQuery. Sessions may veto a change with SettingValidator, read
// settings with Settings.Get/Duration and change them (set_config in any
// query, a branch checkout) with Settings.Set. Startup parameters are kept
// verbatim in SessionInfo.Startup; known ones become session defaults (what
// RESET returns to), unknown ones are ignored, while options=-c name=value
// is checked strictly (FATAL on an unknown or invalid setting).
// RESET ALL keeps role and the transaction's own characteristics
// (PostgreSQL's GUC_NO_RESET_ALL); DISCARD ALL resets them too.
// client_min_messages filters notices; idle_session_timeout (57P05) and
// idle_in_transaction_session_timeout (25P03) end idle connections.
//
// Sessions are registered by process id (BackendKeyData): CancelRequest
// with the secret key, and pg_cancel_backend / pg_terminate_backend
// through SessionInfo.Signal with PostgreSQL's permission rules
// (signal.go), cancel a session's statement or end the session (FATAL
// 57P01). While a statement runs its client is checked every
// ClientCheckInterval (clientcheck.go): a client that went away has its
// statement cancelled and its transaction rolled back.
//
// Storage failures anywhere below (storage_errors.go) answer PostgreSQL's
// 53100 (disk full, quota) and 58030 (I/O error, read-only file system)
// with a message naming the operation, never an internal path; the full
// chain goes to the log.
//
// Incoming messages (msgreader.go) cost memory only as their bytes
// arrive: an announced length reserves nothing, a message larger than the
// 64 KiB read buffer is assembled in a buffer grown with what arrived and
// charged to the server-wide MaxBufferedBytes.
//
// # Tests
//
// A test engine (fake_test.go, never built into the binary) answers a few
// fixed statements. Around it: raw-protocol golden transcripts
// (testdata/*.golden, go test -run TestProtocolGolden -update rewrites
// them), the differential run against PostgreSQL 15 (internal/pgtest), pgx
// and lib/pq in-process, psql (postgresql-client-15), and scripts for
// psycopg2, psycopg 3, node-postgres, postgres.js and pgjdbc under
// testdata/clients (TestClientConformance names each install command).
// Fuzz targets: FuzzStartupPacket, FuzzParseUtility, FuzzCopyDecode,
// FuzzConnection and FuzzAuthExchange (go test -run X -fuzz '^Name$'
// -fuzztime 30s ./wire, one target at a time). Benchmarks:
// BenchmarkRoundTrip, BenchmarkRowThroughput, BenchmarkConnect.
//
// # Invariants
//
//   - Output is buffered: messages reach the socket at ReadyForQuery, Flush,
//     the COPY handshake or when the buffer passes FlushThreshold, never
//     one write per message.
//   - No panic reaches a client or stops the server: a panic inside a
//     statement becomes XX000 for that statement (the transaction fails as
//     for any error) and the connection goes on; a panic elsewhere closes
//     only its connection.
//   - Errors sent to clients carry a SQLSTATE; a Go error that is not an
//     *Error becomes XX000 "internal error" (logged, never sent verbatim).
//     A cancelled statement is 57014 whatever the session returned.
//   - Rows are pulled from Result one at a time, so a portal with a row
//     limit suspends (PortalSuspended) and resumes without materializing;
//     as in PostgreSQL, the limit is not looked past and each Execute's
//     CommandComplete counts only its own rows.
//   - COPY data is decoded incrementally (one row plus one message in
//     memory); malformed data is 22P04.
//   - Text reaching a session is valid UTF-8: query strings, text-format
//     parameters and text/csv COPY data are checked on receipt (22021, with
//     PostgreSQL's message). A malformed message body is an ERROR for that
//     message (the stream stays in step); a broken frame is FATAL.
//   - Shutdown stops accepting, ends idle sessions at their next statement
//     boundary with FATAL 57P01, lets running statements finish, and
//     cancels them only when its context ends.
package wire
