# psycopg2 (libpq, simple protocol, client-side parameters) against the
# wire test server. Connection parameters come from PG* environment variables.
import sys
import threading
import time
import io

import psycopg2
import psycopg2.errors

conn = psycopg2.connect("")  # PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE/PGSSLMODE
assert conn.get_parameter_status("server_version").startswith("15."), conn.get_parameter_status("server_version")
assert conn.info.ssl_in_use, "expected TLS"
cur = conn.cursor()

# implicit BEGIN (autocommit off), parameterized (client-side) statements
cur.execute("select gen(%s)", (3,))
rows = cur.fetchall()
assert rows == [(1, "row-1"), (2, "row-2"), (3, "row-3")], rows
cur.execute("insert into t values (%s)", ("py2",))
assert cur.statusmessage == "INSERT 0 1", cur.statusmessage
conn.commit()

# several statements in one Query message (psycopg2's "pipeline")
cur.execute("select 1; select gen(2)")
assert cur.fetchall() == [(1, "row-1"), (2, "row-2")]
conn.commit()

# COPY FROM STDIN and COPY TO STDOUT
cur.copy_expert("copy t (a, b) from stdin with (format csv)", io.StringIO("1,x\n2,\"y,z\"\n"))
assert cur.rowcount == 2, cur.rowcount
out = io.StringIO()
cur.copy_expert("copy (select gen(2)) to stdout", out)
assert out.getvalue() == "1\trow-1\n2\trow-2\n", repr(out.getvalue())
conn.commit()

# an error with its SQLSTATE, then the failed transaction
try:
    cur.execute("select fail()")
    raise SystemExit("no error")
except psycopg2.errors.UndefinedTable as e:
    assert e.pgcode == "42P01"
try:
    cur.execute("select 1")
    raise SystemExit("no error in failed transaction")
except psycopg2.errors.InFailedSqlTransaction as e:
    assert e.pgcode == "25P02"
conn.rollback()

# cancel a running statement
threading.Timer(0.2, conn.cancel).start()
start = time.time()
try:
    cur.execute("select sleep(10000)")
    raise SystemExit("not cancelled")
except psycopg2.errors.QueryCanceled as e:
    assert e.pgcode == "57014"
assert time.time() - start < 5
conn.rollback()
cur.execute("select 1")
assert cur.fetchone() == (1,)
conn.close()
print("OK")
