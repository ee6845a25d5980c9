"""Alembic migrations and the SQLAlchemy 1.4 ORM over psycopg2 against
the server of the libpq environment (PGHOST, PGPORT, PGUSER, PGDATABASE).

internal/e2e TestAlembic runs it on PostgreSQL 15 and on pgproxy and
compares the transcripts; it prints OK at the end.
"""
import decimal
import os
import sys

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import exc
from sqlalchemy.orm import Session, joinedload, selectinload

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from models import Account, Base, Entry  # noqa: E402


def url():
    return sa.engine.URL.create(
        "postgresql+psycopg2", username=os.environ["PGUSER"], host=os.environ["PGHOST"],
        port=int(os.environ["PGPORT"]), database=os.environ["PGDATABASE"])


def migrate(engine, fn, *args):
    cfg = Config()
    cfg.set_main_option("script_location", HERE)
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        fn(cfg, *args)


def schema(engine):
    insp = sa.inspect(engine)
    for t in sorted(insp.get_table_names()):
        cols = ", ".join(f"{c['name']} {c['type']!r} null={c['nullable']} default={c['default']}"
                         for c in insp.get_columns(t))
        print(f"table {t}: {cols}")
        print(f"  pk {insp.get_pk_constraint(t)['constrained_columns']}")
        for fk in insp.get_foreign_keys(t):
            print(f"  fk {fk['constrained_columns']} -> {fk['referred_table']}{fk['referred_columns']} {fk['options']}")
        for ix in sorted(insp.get_indexes(t), key=lambda i: i["name"]):
            print(f"  index {ix['name']} {ix['column_names']} unique={ix['unique']}")
        for uq in sorted(insp.get_unique_constraints(t), key=lambda u: u["name"]):
            print(f"  unique {uq['name']} {uq['column_names']}")
        for ck in sorted(insp.get_check_constraints(t), key=lambda c: c["name"]):
            print(f"  check {ck['name']} {ck['sqltext']}")


def version(engine):
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def main():
    engine = sa.create_engine(url(), future=True)

    # Migrations: one step, to a3, inspect, down one, up again.
    migrate(engine, command.upgrade, "a1")
    print("at", version(engine))
    migrate(engine, command.upgrade, "a3")
    print("at", version(engine))
    schema(engine)
    migrate(engine, command.downgrade, "-1")
    print("after downgrade at", version(engine))
    migrate(engine, command.upgrade, "a3")
    print("at", version(engine))

    # Autogenerate compares the models with the reflected schema: the
    # one column no migration adds is the only difference.
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    for d in diffs:
        d = d[0] if isinstance(d, list) else d
        print("autogenerate", d[0], " ".join(str(x) for x in d[1:] if not isinstance(x, sa.Column)),
              " ".join(f"{x.name}" for x in d[1:] if isinstance(x, sa.Column)))

    # A migration that fails half-way leaves nothing behind.
    try:
        migrate(engine, command.upgrade, "a4")
        print("a4 passed")
    except exc.DBAPIError as e:
        print("a4 failed", e.orig.pgcode)
    with engine.connect() as conn:
        print("half_done", conn.execute(sa.text("SELECT count(*) FROM pg_class WHERE relname = 'half_done'")).scalar())
    print("at", version(engine))
    with engine.begin() as conn:
        conn.execute(sa.text("ALTER TABLE entry ADD COLUMN posted timestamptz"))

    # ORM: unit of work, relationships, eager loads, savepoints.
    with Session(engine, future=True) as s:
        cash = Account(name="cash", entries=[Entry(amount=decimal.Decimal("12.50"), tags=["food"]),
                                             Entry(amount=decimal.Decimal("-3.25"), note="refund", tags={"k": [1, 2]})])
        bank = Account(name="bank", kind="bank")
        s.add_all([cash, bank])
        s.commit()
        print("ids", cash.id > 0, all(e.id > 0 for e in cash.entries), cash.opened is not None)
        bank.entries.append(Entry(amount=decimal.Decimal("1000.00")))
        s.flush()
        with s.begin_nested():
            s.add(Entry(account=bank, amount=decimal.Decimal("5")))
        try:
            with s.begin_nested():
                s.add(Entry(account=bank, amount=decimal.Decimal("0")))
                s.flush()
        except exc.IntegrityError as e:
            print("savepoint rolled back", e.orig.pgcode)
        s.commit()
    with Session(engine, future=True) as s:
        for a in s.scalars(sa.select(Account).options(selectinload(Account.entries)).order_by(Account.name)):
            print("account", a.name, a.kind, [(str(e.amount), e.note, e.tags) for e in a.entries])
        e = s.scalars(sa.select(Entry).options(joinedload(Entry.account)).where(Entry.note == "refund")).one()
        print("refund of", e.account.name)
        total = s.execute(sa.select(Account.name, sa.func.sum(Entry.amount), sa.func.count())
                          .join(Entry).group_by(Account.name).order_by(Account.name)).all()
        print("totals", [(n, str(t), c) for n, t, c in total])
        food = s.scalars(sa.select(Entry.amount).where(Entry.tags.contains(["food"]))).all()
        print("food", [str(x) for x in food])
        s.execute(sa.update(Entry).where(Entry.amount > 100).values(status="cleared"))
        s.execute(sa.update(Entry).where(Entry.amount == 5).values(status="void"))
        print("by status", s.execute(sa.select(Entry.status, sa.func.count()).group_by(Entry.status)
                                     .order_by(Entry.status.desc())).all())
        print("after pending", [str(x) for x in s.scalars(sa.select(Entry.amount).where(Entry.status > "pending")
                                                        .order_by(Entry.amount))])
        try:
            with s.begin_nested():
                s.execute(sa.update(Entry).values(status="lost"))
        except exc.DataError as e:
            print("bad status", e.orig.pgcode)
        print("enums", sa.inspect(s.connection()).get_enums())
        s.execute(sa.update(Entry).where(Entry.amount < 0).values(note="negative"))
        s.commit()
        dup = Account(name="cash")
        s.add(dup)
        try:
            s.commit()
        except exc.IntegrityError as e:
            print("duplicate", e.orig.pgcode)
            s.rollback()
        cash = s.scalars(sa.select(Account).where(Account.name == "cash")).one()
        s.delete(cash)
        s.commit()
        print("entries after cascade", s.scalar(sa.select(sa.func.count()).select_from(Entry)))

    # Down to nothing and back: every downgrade runs.
    migrate(engine, command.downgrade, "base")
    print("after base", version(engine), sorted(sa.inspect(engine).get_table_names()))
    migrate(engine, command.upgrade, "a3")
    print("at", version(engine))
    engine.dispose()
    print("OK")


if __name__ == "__main__":
    main()
