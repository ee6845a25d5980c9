package e2e

import (
	"testing"

	"github.com/pggraph/pggraph/internal/pgtest"
)

const sqlalchemyInstall = "apt-get install -y python3-psycopg2 python3-sqlalchemy"

// TestSQLAlchemyCore runs the social-graph flow through SQLAlchemy Core
// over psycopg2 (testdata/clients/sqlalchemy_social.py): MetaData
// create_all (its existence checks read pg_catalog), reflection of
// columns, keys and foreign keys, executemany, joins, COPY through
// psycopg2, each constraint class, transactions, time travel and a
// branch. The same script runs on PostgreSQL 15 (E2E_TARGET=postgres) as
// the control.
func TestSQLAlchemyCore(t *testing.T) {
	argv := []string{"/usr/bin/python3", "testdata/clients/sqlalchemy_social.py"}
	t.Run("pgproxy", func(t *testing.T) {
		p := startProxy(t)
		runClient(t, p, sqlalchemyInstall, nil, argv...)
		p.alive(t)
	})
	t.Run("postgresql", func(t *testing.T) {
		pg := pgtest.Shared(t)
		env := append(postgresEnv(pg, freshPostgresDB(t, pg)), "E2E_TARGET=postgres")
		runClientEnv(t, env, sqlalchemyInstall, argv...)
	})
}
