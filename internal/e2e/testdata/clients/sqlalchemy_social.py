"""psycopg2 and SQLAlchemy Core against pgproxy: the social graph flow.

SQLAlchemy Core creates the tables from MetaData (its existence checks
read pg_catalog), inspects them back, inserts with executemany, joins,
updates and deletes; psycopg2 loads with COPY (copy_expert) and checks
each constraint class's SQLSTATE; transactions roll back and commit;
time travel and a branch reached as a database. PG* variables carry the
connection; prints OK at the end. E2E_TARGET=postgres runs only what
PostgreSQL itself has (to check the expectations against PostgreSQL 15).
"""
import io
import os
import sys

import psycopg2
import psycopg2.errorcodes as codes
import sqlalchemy as sa
from sqlalchemy import exc

GRAPH = os.environ.get("E2E_TARGET") != "postgres"


def url(db):
    return sa.engine.URL.create(
        "postgresql+psycopg2", username=os.environ["PGUSER"], host=os.environ["PGHOST"],
        port=int(os.environ["PGPORT"]), database=db)


def expect_state(fn, code, what):
    try:
        fn()
    except exc.DBAPIError as e:
        got = getattr(e.orig, "pgcode", None)
        assert got == code, f"{what}: got {got} {e.orig}"
        return
    except psycopg2.Error as e:
        assert e.pgcode == code, f"{what}: got {e.pgcode} {e}"
        return
    raise AssertionError(f"{what}: no error, want {code}")


def main():
    engine = sa.create_engine(url(os.environ["PGDATABASE"]), future=True)
    md = sa.MetaData()
    people = sa.Table(
        "people", md,
        sa.Column("id", sa.BigInteger, primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("email", sa.Text, unique=True),
        sa.Column("age", sa.Integer, sa.CheckConstraint("age >= 0", name="people_age_check")))
    companies = sa.Table(
        "companies", md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text, nullable=False, unique=True),
        sa.Column("founded", sa.Date))
    md.create_all(engine)
    # Edge tables need the graph clause, which SQLAlchemy cannot spell.
    with engine.begin() as conn:
        suffix = " WITH (graph.kind = edge)" if GRAPH else ""
        conn.execute(sa.text(
            "CREATE TABLE knows (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, "
            "dst int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, since int4, UNIQUE (src, dst))" + suffix))
        conn.execute(sa.text(
            "CREATE TABLE works_at (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, "
            "dst int4 NOT NULL REFERENCES companies (id) ON DELETE RESTRICT, "
            "role text NOT NULL DEFAULT 'engineer')" + suffix))
    md.create_all(engine)  # a second time: everything exists, nothing to do

    insp = sa.inspect(engine)
    assert sorted(insp.get_table_names()) == ["companies", "knows", "people", "works_at"], insp.get_table_names()
    cols = {c["name"]: c for c in insp.get_columns("people")}
    assert list(cols) == ["id", "name", "email", "age"], list(cols)
    assert not cols["name"]["nullable"] and cols["email"]["nullable"]
    assert insp.get_pk_constraint("people")["constrained_columns"] == ["id"]
    fks = sorted((fk["constrained_columns"][0], fk["referred_table"]) for fk in insp.get_foreign_keys("works_at"))
    assert fks == [("dst", "companies"), ("src", "people")], fks

    knows = sa.Table("knows", sa.MetaData(), autoload_with=engine)
    works_at = sa.Table("works_at", sa.MetaData(), autoload_with=engine)

    raw = psycopg2.connect(host=os.environ["PGHOST"], port=os.environ["PGPORT"], user=os.environ["PGUSER"],
                           dbname=os.environ["PGDATABASE"])
    raw.autocommit = True
    cur = raw.cursor()
    cur.copy_expert("COPY people (id, name, email, age) FROM STDIN WITH (FORMAT csv)", io.StringIO(
        "1,Ada,ada@example.com,36\n2,Grace,grace@example.com,45\n3,Linus,linus@example.com,\n"
        "4,Barbara,barbara@example.com,52\n5,Ken,,61\n6,Edsger,edsger@example.com,70\n"))
    assert cur.rowcount == 6, cur.rowcount
    cur.copy_expert("COPY knows FROM STDIN", io.StringIO(
        "1\t2\t1990\n2\t1\t1990\n1\t3\t\\N\n2\t4\t2001\n3\t5\t2011\n4\t6\t1975\n5\t6\t1980\n6\t1\t1968\n"))

    with engine.begin() as conn:
        conn.execute(companies.insert(), [
            {"id": 1, "name": "Analytical Engines", "founded": "1843-09-01"},
            {"id": 2, "name": "Compilers, Inc.", "founded": "1952-05-03"},
            {"id": 3, "name": "Kernel Co", "founded": None}])
        conn.execute(works_at.insert(), [
            {"src": 1, "dst": 1, "role": "founder"}, {"src": 2, "dst": 2, "role": "admiral"},
            {"src": 3, "dst": 3, "role": "maintainer"}, {"src": 6, "dst": 2, "role": "professor"}])
        conn.execute(works_at.insert(), [{"src": 4, "dst": 2}, {"src": 5, "dst": 3}])  # role DEFAULT

    with engine.connect() as conn:
        staff = conn.execute(
            sa.select(companies.c.name, sa.func.count().label("staff"))
            .select_from(companies.join(works_at, works_at.c.dst == companies.c.id))
            .group_by(companies.c.name).order_by(sa.desc("staff"), companies.c.name)).all()
        assert [tuple(r) for r in staff] == [("Compilers, Inc.", 3), ("Kernel Co", 2), ("Analytical Engines", 1)], staff
        k2 = knows.alias("k2")
        fof = conn.execute(
            sa.select(people.c.name).distinct()
            .select_from(knows.join(k2, k2.c.src == knows.c.dst).join(people, people.c.id == k2.c.dst))
            .where(knows.c.src == 1, k2.c.dst != 1).order_by(people.c.name)).scalars().all()
        assert fof == ["Barbara", "Ken"], fof
        row = conn.execute(sa.select(companies.c.founded).where(companies.c.id == 1)).scalar_one()
        assert str(row) == "1843-09-01", row

    def run(stmt):
        with engine.begin() as conn:
            conn.execute(stmt)

    expect_state(lambda: run(people.insert().values(id=1, name="Dup")), codes.UNIQUE_VIOLATION, "primary key")
    expect_state(lambda: run(people.insert().values(id=7, name="Dup", email="ada@example.com")), codes.UNIQUE_VIOLATION, "unique")
    expect_state(lambda: run(people.insert().values(id=7, name=None)), codes.NOT_NULL_VIOLATION, "not null")
    expect_state(lambda: run(people.update().where(people.c.id == 2).values(age=-1)), codes.CHECK_VIOLATION, "check")
    expect_state(lambda: run(knows.insert().values(src=1, dst=999)), codes.FOREIGN_KEY_VIOLATION, "edge endpoint")
    expect_state(lambda: run(companies.delete().where(companies.c.id == 3)), codes.FOREIGN_KEY_VIOLATION, "restrict")
    expect_state(lambda: cur.execute("INSERT INTO people (id, name, age) VALUES (%s, %s, %s)", (8, "Neg", -5)),
                 codes.CHECK_VIOLATION, "psycopg2 check")

    # a failing transaction leaves nothing behind
    try:
        with engine.begin() as conn:
            conn.execute(people.insert().values(id=7, name="Alan"))
            assert conn.execute(sa.select(sa.func.count()).select_from(people)).scalar_one() == 7
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    with engine.begin() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(people)).scalar_one() == 6
        conn.execute(people.insert(), [{"id": 7, "name": "Alan", "age": 41}, {"id": 8, "name": "Alonzo", "age": 33}])
        conn.execute(knows.insert(), [{"src": 7, "dst": 8, "since": 1936}])
        res = conn.execute(people.update().where(people.c.age > 60).values(age=people.c.age + 1))
        assert res.rowcount == 2, res.rowcount
    if GRAPH:
        cur.execute("SHOW graph.last_commit")
        before = cur.fetchone()[0]
    with engine.begin() as conn:
        res = conn.execute(people.delete().where(people.c.id == 2))
        assert res.rowcount == 1
        left = conn.execute(sa.select(sa.func.count()).select_from(knows).where(
            sa.or_(knows.c.src == 2, knows.c.dst == 2))).scalar_one()
        assert left == 0, left

    if GRAPH:
        cur.execute("SET graph.as_of = %s", (before,))
        cur.execute("SELECT name FROM people WHERE id = 2")
        assert cur.fetchone() == ("Grace",)
        expect_state(lambda: cur.execute("DELETE FROM people"), codes.READ_ONLY_SQL_TRANSACTION, "write as of")
        cur.execute("RESET graph.as_of")
        cur.execute("CALL graph.create_branch('py')")
        beng = sa.create_engine(url("py"), future=True)
        with beng.begin() as conn:
            conn.execute(people.update().where(people.c.id == 1).values(name="Ada (py)"))
        with beng.connect() as conn:
            assert conn.execute(sa.select(people.c.name).where(people.c.id == 1)).scalar_one() == "Ada (py)"
        beng.dispose()
        cur.execute("SELECT name FROM people WHERE id = 1")
        assert cur.fetchone() == ("Ada",)
    raw.close()
    engine.dispose()
    print("OK")


if __name__ == "__main__":
    try:
        main()
    except Exception:
        import traceback
        traceback.print_exc()
        sys.exit(1)
