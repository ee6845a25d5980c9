package e2e

import (
	"path/filepath"
	"testing"
)

// ormNodeModules holds Sequelize, TypeORM, node-pg-migrate and
// node-postgres, installed
// from testdata/orm's lockfile by make deps / .ci/run.
var ormNodeModules, _ = filepath.Abs("testdata/orm/node_modules")

const ormInstall = "apt-get install -y nodejs npm && npm ci --prefix internal/e2e/testdata/orm"

// TestSequelize runs Sequelize 6's flow (testdata/orm/sequelize_flow.js):
// sync({force}) of has-many, belongs-to and belongs-to-many models with
// JSONB, DECIMAL, ARRAY and ENUM columns (the enum type created by
// Sequelize's DO block with an EXCEPTION WHEN duplicate_object handler), describeTable / foreign-key / index
// introspection, nested creates and includes, JSONB and array operators,
// validation and constraint errors, managed, unmanaged and nested
// transactions, paranoid deletes, upsert, then sync({alter}) adding and
// changing columns (a value added to the enum, the column retyped to it) and the query interface's column and index DDL. The
// transcript must be PostgreSQL 15's.
func TestSequelize(t *testing.T) {
	if !fileExists(ormNodeModules) {
		t.Fatalf("%s is missing: run %s", ormNodeModules, ormInstall)
	}
	runORMFlow(t, ormFlow{argv: []string{"node", "sequelize_flow.js"}, dir: "testdata/orm", install: ormInstall})
}

// TestTypeORM runs TypeORM 1.1's flow (testdata/orm/typeorm_flow.js):
// synchronize of one-to-one, one-to-many, many-to-one and many-to-many
// entities (uuid, jsonb, numeric, text[], enum, version and create-date
// columns), its getTable introspection, cascading saves, relations,
// query builder, optimistic versions, constraint errors, transactions
// with a nested savepoint; a second release's synchronize altering the
// schema (a value added to the enum: type renamed, re-created, column
// retyped USING a cast, old type dropped) and a third finding nothing to do; migrations run, shown,
// undone, and a failing one rolled back. The transcript must be
// PostgreSQL 15's.
func TestTypeORM(t *testing.T) {
	if !fileExists(ormNodeModules) {
		t.Fatalf("%s is missing: run %s", ormNodeModules, ormInstall)
	}
	runORMFlow(t, ormFlow{argv: []string{"node", "typeorm_flow.js"}, dir: "testdata/orm", install: ormInstall})
}

// TestNodePgMigrate runs node-pg-migrate 9's flow
// (testdata/orm/pgmigrate_flow.mjs, migrations in testdata/orm/pgmigrate):
// up under its advisory lock (tables with serial keys, defaults, a check,
// a foreign key, an index; columns added, renamed and retyped; a unique
// constraint; comments; seed rows), the schema read back from
// information_schema and pg_catalog, down two and up again, a migration
// that fails half way rolled back whole (its table gone, its row not
// recorded, no advisory lock left), and down to nothing. The transcript
// must be PostgreSQL 15's.
func TestNodePgMigrate(t *testing.T) {
	if !fileExists(ormNodeModules) {
		t.Fatalf("%s is missing: run %s", ormNodeModules, ormInstall)
	}
	runORMFlow(t, ormFlow{argv: []string{"node", "pgmigrate_flow.mjs"}, dir: "testdata/orm", install: ormInstall})
}
