"""a migration whose second step fails: it must leave nothing behind"""
from alembic import op

revision = "a4"
down_revision = "a3"


def upgrade():
    op.execute("CREATE TABLE half_done (id int PRIMARY KEY)")
    op.execute("INSERT INTO entry (account_id, amount) VALUES (1, 0)")


def downgrade():
    op.execute("DROP TABLE half_done")
