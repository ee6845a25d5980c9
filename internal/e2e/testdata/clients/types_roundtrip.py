"""Value round trip through psycopg2 or psycopg 3 (the driver is argv[1]).

For every line of testdata/types/values.tsv (argv[2]) it sends the value's
text as a parameter cast to its type, prints what the driver made of the
result (repr of the Python value), then sends that Python value back as a
parameter and prints the result again. psycopg 3 also reads the value in
binary format. Errors print their SQLSTATE. internal/e2e/drivers_test.go
runs this against PostgreSQL 15 and pgproxy and compares the outputs.
"""
import sys

driver, path = sys.argv[1], sys.argv[2]
if driver == "psycopg2":
    import psycopg2 as db

    conn = db.connect("")
    conn.autocommit = True

    def code(e):
        return e.pgcode
else:
    import psycopg as db

    conn = db.connect("", autocommit=True)

    def code(e):
        return e.diag.sqlstate


def run(sql, param, binary=False):
    try:
        if driver == "psycopg2":
            cur = conn.cursor()
            cur.execute(sql, (param,))
        else:
            cur = conn.cursor(binary=binary)
            cur.execute(sql, (param,))
        return True, cur.fetchone()[0]
    except db.Error as e:
        return False, "ERROR " + str(code(e))
    except Exception as e:  # the driver cannot represent or adapt the value
        return False, "CLIENT " + type(e).__name__


def show(x):
    if isinstance(x, (bytes, memoryview)):
        return "hex:" + bytes(x).hex()
    if isinstance(x, list):
        return "[" + ", ".join(show(i) for i in x) + "]"
    return repr(x)


for line in open(path, encoding="utf-8"):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    typ, val = line.split("\t", 1)
    v = None if val == "\\N" else val
    sql = "SELECT %s::" + typ
    out = []
    ok, x = run(sql, v)
    out.append(show(x) if ok else x)
    if ok:
        ok2, y = run(sql, x)
        out.append(show(y) if ok2 else y)
    if driver != "psycopg2":
        ok3, z = run(sql, v, binary=True)
        out.append(show(z) if ok3 else z)
    print(typ + "\t" + val + "\t" + " | ".join(out))
print("OK")
