package e2e

import "testing"

const alembicInstall = "apt-get install -y python3-psycopg2 python3-sqlalchemy python3-alembic"

// TestAlembic runs Alembic 1.8 migrations and the SQLAlchemy 1.4 ORM
// over psycopg2 (testdata/alembic/flow.py): upgrade step by step,
// reflection of the result (columns, defaults, keys, indexes, unique and
// check constraints), downgrade and upgrade again, autogenerate's
// comparison of the models with the reflected schema, a failing
// migration rolled back whole, then the ORM's unit of work with
// relationships, eager loads, savepoints and cascades, and every
// downgrade to base. The transcript must be PostgreSQL 15's.
func TestAlembic(t *testing.T) {
	runORMFlow(t, ormFlow{argv: []string{"/usr/bin/python3", "testdata/alembic/flow.py"}, install: alembicInstall})
}
