package e2e

import "testing"

const djangoInstall = "apt-get install -y python3-psycopg2 python3-django"

// TestDjango runs Django 3.2 over psycopg2 (testdata/django/flow.py):
// makemigrations --check against the models, migrate forward in steps,
// back to an earlier migration and forward again (contenttypes and auth
// with their post_migrate permissions; the shop app's AddField,
// AlterField, RenameField, RunPython and RunSQL), the backend's schema
// introspection (table list, descriptions, sequences, relations,
// constraints with their index details), inspectdb, the ORM (JSONField
// and ArrayField lookups, aggregates, windows, subqueries,
// select_related/prefetch_related, bulk create/update, F expressions,
// server-side cursors of iterator(), select_for_update), constraint
// errors with their constraint names inside atomic blocks and
// savepoints, contrib.auth permissions, and migrate to zero. The
// transcript must be PostgreSQL 15's.
func TestDjango(t *testing.T) {
	runORMFlow(t, ormFlow{argv: []string{"/usr/bin/python3", "testdata/django/flow.py"}, install: djangoInstall})
}
