"""widen amounts, a nullable becomes required"""
import sqlalchemy as sa
from alembic import op

revision = "a3"
down_revision = "a2"


def upgrade():
    op.alter_column("entry", "amount", type_=sa.Numeric(14, 2), existing_type=sa.Numeric(12, 2))
    op.execute("UPDATE entry SET note = '' WHERE note IS NULL")
    op.alter_column("entry", "note", nullable=False, existing_type=sa.Text, server_default="")


def downgrade():
    op.alter_column("entry", "note", nullable=True, existing_type=sa.Text, server_default=None)
    op.alter_column("entry", "amount", type_=sa.Numeric(12, 2), existing_type=sa.Numeric(14, 2))
