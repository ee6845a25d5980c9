"""entry tags (jsonb), a data migration, a renamed column"""
import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "a2"
down_revision = "a1"

# An enum type, created and dropped explicitly as Alembic migrations do.
status = postgresql.ENUM("pending", "cleared", "void", name="entry_status")


def upgrade():
    op.add_column("entry", sa.Column("tags", postgresql.JSONB, nullable=True))
    status.create(op.get_bind(), checkfirst=True)
    op.add_column("entry", sa.Column("status", status, nullable=False, server_default="pending"))
    op.add_column("account", sa.Column("kind", sa.String(10), nullable=False, server_default="cash"))
    account = sa.table("account", sa.column("id", sa.Integer), sa.column("name", sa.String))
    op.bulk_insert(account, [{"name": "opening"}])
    op.execute("UPDATE entry SET tags = '[]'::jsonb WHERE tags IS NULL")
    op.alter_column("entry", "memo", new_column_name="note")
    op.create_unique_constraint("uq_account_kind_name", "account", ["kind", "name"])


def downgrade():
    op.drop_constraint("uq_account_kind_name", "account", type_="unique")
    op.alter_column("entry", "note", new_column_name="memo")
    op.execute("DELETE FROM account WHERE name = 'opening'")
    op.drop_column("account", "kind")
    op.drop_column("entry", "status")
    status.drop(op.get_bind(), checkfirst=True)
    op.drop_column("entry", "tags")
