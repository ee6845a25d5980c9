// node-postgres against pgproxy: the social graph flow — DDL, COPY FROM
// STDIN (text, pg-copy-streams), parameterized and named statements,
// each constraint class with its SQLSTATE, a transaction rolled back and
// one committed, time travel to a commit id and a branch reached as a
// database. PG* variables carry the connection; it prints OK at the end.
// E2E_TARGET=postgres runs only the parts PostgreSQL itself has (used to
// check the script's expectations against PostgreSQL 15).
'use strict'
const assert = require('assert')
const { Client } = require('pg')
const { from: copyFrom } = require('pg-copy-streams')
const { pipeline } = require('stream/promises')
const { Readable } = require('stream')

const graph = process.env.E2E_TARGET !== 'postgres'
const edge = graph ? ' WITH (graph.kind = edge)' : ''

async function rejectsWith (promise, code, what) {
  await assert.rejects(promise, (e) => {
    assert.strictEqual(e.code, code, `${what}: got ${e.code} ${e.message}`)
    return true
  }, what)
}

async function count (client, sql, params) {
  const r = await client.query(sql, params)
  return Number(r.rows[0].count)
}

async function main () {
  const client = new Client({ application_name: 'e2e-node-pg' })
  await client.connect()
  await client.query('CREATE TABLE people (id int8 PRIMARY KEY, name text NOT NULL, email text UNIQUE, age int4 CHECK (age >= 0))')
  await client.query('CREATE TABLE companies (id int4 PRIMARY KEY, name text NOT NULL UNIQUE, founded date)')
  await client.query('CREATE TABLE knows (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, ' +
    'dst int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, since int4, UNIQUE (src, dst))' + edge)
  await client.query('CREATE TABLE works_at (src int8 NOT NULL REFERENCES people (id) ON DELETE CASCADE, ' +
    "dst int4 NOT NULL REFERENCES companies (id) ON DELETE RESTRICT, role text NOT NULL DEFAULT 'engineer')" + edge)

  const people = client.query(copyFrom('COPY people (id, name, email, age) FROM STDIN'))
  await pipeline(Readable.from(['1\tAda\tada@example.com\t36\n2\tGrace\tgrace@example.com\t45\n',
    '3\tLinus\tlinus@example.com\t\\N\n4\tBarbara\tbarbara@example.com\t52\n', '5\tKen\t\\N\t61\n6\tEdsger\tedsger@example.com\t70\n']), people)
  assert.strictEqual(people.rowCount, 6)
  const companies = client.query(copyFrom('COPY companies FROM STDIN WITH (FORMAT csv, HEADER true)'))
  await pipeline(Readable.from(['id,name,founded\n1,Analytical Engines,1843-09-01\n2,"Compilers, Inc.",1952-05-03\n3,Kernel Co,\n']), companies)
  assert.strictEqual(companies.rowCount, 3)
  const knows = client.query(copyFrom("COPY knows FROM STDIN WITH (FORMAT csv, NULL 'NA')"))
  await pipeline(Readable.from(['1,2,1990\n2,1,1990\n1,3,NA\n2,4,2001\n3,5,2011\n4,6,1975\n5,6,1980\n6,1,1968\n']), knows)
  assert.strictEqual(knows.rowCount, 8)
  await client.query("INSERT INTO works_at (src, dst, role) VALUES (1, 1, 'founder'), (2, 2, 'admiral'), (3, 3, 'maintainer'), (4, 2, DEFAULT), (5, 3, DEFAULT), (6, 2, 'professor')")

  let r = await client.query({
    name: 'friends',
    text: 'SELECT p.name, k.since FROM knows k JOIN people p ON p.id = k.dst WHERE k.src = $1 ORDER BY p.name',
    values: [1]
  })
  assert.deepStrictEqual(r.rows, [{ name: 'Grace', since: 1990 }, { name: 'Linus', since: null }])
  r = await client.query({ name: 'friends', values: [2] })
  assert.deepStrictEqual(r.rows.map((x) => x.name), ['Ada', 'Barbara'])
  r = await client.query('SELECT c.name, count(*)::int AS staff FROM companies c JOIN works_at w ON w.dst = c.id GROUP BY c.name ORDER BY staff DESC, c.name')
  assert.deepStrictEqual(r.rows, [{ name: 'Compilers, Inc.', staff: 3 }, { name: 'Kernel Co', staff: 2 }, { name: 'Analytical Engines', staff: 1 }])
  r = await client.query("SELECT founded::text FROM companies WHERE name = 'Analytical Engines'")
  assert.strictEqual(r.rows[0].founded, '1843-09-01')

  await rejectsWith(client.query('INSERT INTO people (id, name) VALUES ($1, $2)', [1, 'Dup']), '23505', 'primary key')
  await rejectsWith(client.query('INSERT INTO people (id, name, email) VALUES ($1, $2, $3)', [7, 'Dup', 'grace@example.com']), '23505', 'unique email')
  await rejectsWith(client.query('INSERT INTO people (id, name) VALUES ($1, $2)', [7, null]), '23502', 'not null')
  await rejectsWith(client.query('UPDATE people SET age = $1 WHERE id = $2', [-1, 2]), '23514', 'check')
  await rejectsWith(client.query('INSERT INTO knows (src, dst) VALUES ($1, $2)', [1, 999]), '23503', 'edge endpoint')
  await rejectsWith(client.query('DELETE FROM companies WHERE id = $1', [3]), '23503', 'restrict')
  assert.strictEqual(await count(client, 'SELECT count(*) FROM people'), 6)

  r = await client.query('INSERT INTO people (id, name, age) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET age = EXCLUDED.age RETURNING id, age', [5, 'Ken', 62])
  assert.deepStrictEqual(r.rows, [{ id: '5', age: 62 }])
  r = await client.query('UPDATE works_at SET role = $1 WHERE src = $2 RETURNING dst', ['chief', 2])
  assert.deepStrictEqual(r.rows, [{ dst: 2 }])

  await client.query('BEGIN')
  await client.query('INSERT INTO people (id, name) VALUES ($1, $2)', [7, 'Alan'])
  assert.strictEqual(await count(client, 'SELECT count(*) FROM people'), 7)
  await client.query('ROLLBACK')
  assert.strictEqual(await count(client, 'SELECT count(*) FROM people'), 6)
  await client.query('BEGIN')
  await client.query('INSERT INTO people (id, name) VALUES ($1, $2)', [7, 'Alan'])
  await client.query('INSERT INTO knows (src, dst, since) VALUES ($1, $2, $3)', [7, 1, 1950])
  await client.query('COMMIT')

  let before
  if (graph) {
    r = await client.query('SHOW graph.last_commit')
    before = r.rows[0]['graph.last_commit']
    assert.ok(before && before.length > 0, 'graph.last_commit')
  }
  r = await client.query('DELETE FROM people WHERE id = $1', [1])
  assert.strictEqual(r.rowCount, 1)
  assert.strictEqual(await count(client, 'SELECT count(*) FROM knows WHERE 1 IN (src, dst)'), 0)
  assert.strictEqual(await count(client, 'SELECT count(*) FROM works_at WHERE src = 1'), 0)

  if (graph) {
    await client.query(`SET graph.as_of = '${before}'`)
    assert.strictEqual(await count(client, 'SELECT count(*) FROM knows WHERE 1 IN (src, dst)'), 5)
    await rejectsWith(client.query('DELETE FROM knows'), '25006', 'write as of')
    await client.query('RESET graph.as_of')
    assert.strictEqual(await count(client, 'SELECT count(*) FROM people'), 6)

    await client.query("CALL graph.create_branch('node')")
    const branch = new Client({ database: 'node' })
    await branch.connect()
    await branch.query('INSERT INTO people (id, name) VALUES ($1, $2)', [1, 'Ada Restored'])
    assert.strictEqual(await count(branch, 'SELECT count(*) FROM people'), 7)
    assert.strictEqual(await count(client, 'SELECT count(*) FROM people'), 6)
    await branch.end()
    await client.query("SELECT graph.delete_branch('node')")
    const gone = new Client({ database: 'node' })
    await rejectsWith(gone.connect(), '3D000', 'deleted branch')
  }
  await client.end()
  console.log('OK')
}

main().catch((e) => { console.error(e); process.exit(1) })
