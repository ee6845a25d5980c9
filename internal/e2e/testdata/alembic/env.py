"""Alembic environment of the e2e flow: online mode only, on the
connection flow.py hands over in config.attributes."""
from alembic import context

from models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  transaction_per_migration=True, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
