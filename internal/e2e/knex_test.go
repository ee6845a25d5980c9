package e2e

import (
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

const knexInstall = "apt-get install -y nodejs npm && " + npmInstall

// TestKnexMigrations runs knex (npm, pinned by testdata/knex's lockfile)
// against pgproxy: serial ids, each migration's DDL and data in one
// transaction, the knex_migrations_lock table, a failing migration rolled
// back whole, two migrators racing for the lock, and the whole chain run
// down and up again (testdata/knex/migrate.js). The same script runs on
// PostgreSQL 15 as the control.
func TestKnexMigrations(t *testing.T) {
	if !fileExists(nodeModules) {
		t.Fatalf("%s is missing: run %s", nodeModules, npmInstall)
	}
	t.Run("pgproxy", func(t *testing.T) {
		p := startProxy(t)
		runClient(t, p, knexInstall, nil, "node", "testdata/knex/migrate.js")
		p.alive(t)
	})
	t.Run("postgresql", func(t *testing.T) {
		pg := pgtest.Shared(t)
		runClientEnv(t, postgresEnv(pg, freshPostgresDB(t, pg)), knexInstall, "node", "testdata/knex/migrate.js")
	})
}
