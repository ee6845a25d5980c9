"""SQLAlchemy 1.4 ORM models of the e2e flow: the schema Alembic's
migrations a1..a3 build, plus a column the migrations lack (so that
autogenerate has one difference to report)."""
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import declarative_base, relationship

Base = declarative_base()


class Account(Base):
    __tablename__ = "account"
    id = sa.Column(sa.Integer, primary_key=True)
    name = sa.Column(sa.String(60), nullable=False, unique=True)
    opened = sa.Column(sa.Date, server_default=sa.text("CURRENT_DATE"))
    kind = sa.Column(sa.String(10), nullable=False, server_default="cash")
    entries = relationship("Entry", back_populates="account", cascade="all, delete-orphan",
                           order_by="Entry.id", passive_deletes=True)
    __table_args__ = (sa.UniqueConstraint("kind", "name", name="uq_account_kind_name"),)


class Entry(Base):
    __tablename__ = "entry"
    id = sa.Column(sa.BigInteger, sa.Identity(), primary_key=True)
    account_id = sa.Column(sa.Integer, sa.ForeignKey("account.id", ondelete="CASCADE"), nullable=False, index=False)
    amount = sa.Column(sa.Numeric(14, 2), nullable=False)
    note = sa.Column(sa.Text, nullable=False, server_default="")
    tags = sa.Column(postgresql.JSONB)
    status = sa.Column(postgresql.ENUM("pending", "cleared", "void", name="entry_status", create_type=False),
                       nullable=False, server_default="pending")
    posted = sa.Column(sa.DateTime(timezone=True))  # not in any migration
    account = relationship("Account", back_populates="entries")
    __table_args__ = (sa.CheckConstraint("amount <> 0", name="entry_amount_nonzero"),
                      sa.Index("ix_entry_account", "account_id"))
