"""accounts and entries"""
import sqlalchemy as sa
from alembic import op

revision = "a1"
down_revision = None


def upgrade():
    op.create_table(
        "account",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(60), nullable=False, unique=True),
        sa.Column("opened", sa.Date, server_default=sa.text("CURRENT_DATE")),
    )
    op.create_table(
        "entry",
        sa.Column("id", sa.BigInteger, sa.Identity(), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("account.id", ondelete="CASCADE"), nullable=False),
        sa.Column("amount", sa.Numeric(12, 2), nullable=False),
        sa.Column("memo", sa.Text),
        sa.CheckConstraint("amount <> 0", name="entry_amount_nonzero"),
    )
    op.create_index("ix_entry_account", "entry", ["account_id"])


def downgrade():
    op.drop_index("ix_entry_account", table_name="entry")
    op.drop_table("entry")
    op.drop_table("account")
