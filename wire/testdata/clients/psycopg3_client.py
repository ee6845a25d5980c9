# psycopg 3 (extended protocol, server-side parameters with explicit OIDs,
# pipeline mode) against the wire test server.
import threading
import time

import psycopg
import psycopg.errors

with psycopg.connect("") as conn:
    assert conn.info.parameter_status("client_encoding") == "UTF8"
    assert conn.pgconn.ssl_in_use, "expected TLS"
    cur = conn.cursor()
    cur.execute("select echo_int(%s, %s)", (42, "three"))
    assert cur.fetchone() == (42, "three")
    for i in range(6):  # psycopg switches to a named prepared statement after 5
        cur.execute("select echo_int(%s, %s)", (i, "n"))
        assert cur.fetchone() == (i, "n")
    cur.execute("select gen(4)")
    assert len(cur.fetchall()) == 4
    cur.execute("insert into t values (%s)", ("py3",))
    conn.commit()

    # pipeline mode: several statements, one Sync
    with conn.pipeline():
        c1 = conn.execute("insert into t values (%s)", ("p1",))
        c2 = conn.execute("select gen(2)")
        c3 = conn.execute("insert into t values (%s)", ("p2",))
    assert c2.fetchall() == [(1, "row-1"), (2, "row-2")]
    conn.commit()

    # COPY both ways
    with cur.copy("copy t (a, b) from stdin") as cp:
        for i in range(100):
            cp.write_row((i, "v"))
    assert cur.rowcount == 100, cur.rowcount
    data = b""
    with cur.copy("copy (select gen(3)) to stdout") as cp:
        for chunk in cp:
            data += bytes(chunk)
    assert data == b"1\trow-1\n2\trow-2\n3\trow-3\n", data
    conn.commit()

    try:
        cur.execute("select fail()")
        raise SystemExit("no error")
    except psycopg.errors.UndefinedTable as e:
        assert e.sqlstate == "42P01"
    conn.rollback()

    threading.Timer(0.2, conn.cancel).start()
    start = time.time()
    try:
        cur.execute("select sleep(10000)")
        raise SystemExit("not cancelled")
    except psycopg.errors.QueryCanceled as e:
        assert e.sqlstate == "57014"
    assert time.time() - start < 5
    conn.rollback()
    cur.execute("select 1")
    assert cur.fetchone() == (1,)
print("OK")
