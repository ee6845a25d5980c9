// Package access holds the role catalog of a graph root: the roles that
// may log in and act, their attributes and memberships. Like
// PostgreSQL's shared catalogs (pg_authid, pg_auth_members) it belongs
// to the whole root, not to a branch: a role exists on every branch and
// is not versioned with the schema, time-travelled or merged.
//
// Storage (store.go): the catalog is a chain of JSON documents
// __access/v<20-digit version>.json under the root, each the whole
// catalog. A change reads version N, applies itself to a copy and
// publishes N+1 with PutIfAbsent (the store's compare-and-swap, fsynced
// file and directory); a lost race reloads N+1 and applies the change
// again to it (recompute, never patch), as graph commits do with the
// manifest. Readers learn of other processes' changes with one Stat of
// version N+1, asked only by statements that need the catalog.
//
// Pending versions (pending.go): role changes of a transaction that
// also writes the graph are published as a version that names the
// graph commit, and take effect when that commit is on its branch (one
// visibility point); Current and Update decide them.
//
// Bootstrap (catalog.go): a root whose chain is empty has no role
// catalog, and then every authenticated user acts as a superuser (the
// behaviour before roles existed). The first change creates version 1
// and seeds it: with the users file's roles (pgproxy serve/init
// --users), or with the session user that ran the first role
// statement, as superusers, so whoever bootstraps the catalog cannot
// lock themselves out. From then on the catalog decides who exists.
//
// Branch privileges (branches.go) are kept here too: a branch is a
// database, and database ACLs are shared catalogs in PostgreSQL.
//
// Table privileges (table_privileges.go) are only rules here: a
// relation's owner and ACL are stored with its definition, versioned
// with the branch's schema (PostgreSQL keeps relacl per database), and
// keyed by role OID; this package decides what a role holds
// (aclmask), who grants (select_best_grantor), what a revoke takes
// with it (recursive revoke) and how an ACL prints (aclitem text).
// Sequences use the same rules and bits (PostgreSQL's: SELECT, UPDATE
// and USAGE), with their own default (DefaultSequenceACL).
//
// Column privileges (column_privileges.go) follow the table rules; a
// column's ACL is stored with its definition like the table's. Schema
// privileges (schema_privileges.go) are kept in this catalog per branch
// and schema, as branch privileges are: GRANT … ON SCHEMA is a role
// statement, and public belongs to pg_database_owner (the branch owner).
//
// Default privileges (default_privileges.go, ALTER DEFAULT PRIVILEGES)
// are kept here as well, global like roles: rules about relations not
// created yet belong to no branch's schema. A new relation's ACL is
// computed from them once (CreationACL, PostgreSQL's
// get_user_default_acl) and then stored with its definition.
//
// Secrets are stored as PostgreSQL stores rolpassword: SCRAM-SHA-256
// verifiers, or md5 hashes when given already hashed (import); a plain
// password given to CREATE/ALTER ROLE is turned into a SCRAM verifier
// before it is stored.
package access
