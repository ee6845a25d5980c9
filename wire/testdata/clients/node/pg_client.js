// node-postgres (pg) against the wire test server: parameterized and named
// statements, queued queries, COPY through pg-copy-streams, a server-side
// statement_timeout cancel and errors with SQLSTATEs. PG* variables carry
// the connection settings.
'use strict'
const assert = require('assert')
const { Client } = require('pg')
const { from: copyFrom, to: copyTo } = require('pg-copy-streams')
const { pipeline } = require('stream/promises')
const { Readable, Writable } = require('stream')

async function main () {
  const client = new Client({ ssl: { rejectUnauthorized: false }, application_name: 'node-pg' })
  await client.connect()
  let r = await client.query('select echo_int($1, $2)', [42, 'node'])
  assert.deepStrictEqual(r.rows, [{ p1: '42', p2: 'node' }]) // int8 arrives as a string in pg
  r = await client.query({ name: 'echo', text: 'select echo_int($1, $2)', values: [7, 'x'] })
  r = await client.query({ name: 'echo', text: 'select echo_int($1, $2)', values: [8, 'y'] })
  assert.deepStrictEqual(r.rows, [{ p1: '8', p2: 'y' }])
  r = await client.query('select gen(3)')
  assert.strictEqual(r.rowCount, 3)
  assert.strictEqual(r.rows[2].label, 'row-3')

  // queued queries inside a transaction
  await client.query('begin')
  const results = await Promise.all([
    client.query('insert into t values ($1)', ['n1']),
    client.query('select gen(2)'),
    client.query('insert into t values ($1)', ['n2'])
  ])
  assert.strictEqual(results[1].rowCount, 2)
  await client.query('commit')

  // COPY both ways
  const inStream = client.query(copyFrom('copy t (a, b) from stdin'))
  await pipeline(Readable.from(['1\tone\n', '2\ttwo\n']), inStream)
  assert.strictEqual(inStream.rowCount, 2)
  let text = ''
  await pipeline(client.query(copyTo('copy (select gen(2)) to stdout')), new Writable({
    write (chunk, _enc, cb) { text += chunk.toString(); cb() }
  }))
  assert.strictEqual(text, '1\trow-1\n2\trow-2\n')

  await assert.rejects(client.query('select fail()'), (e) => e.code === '42P01')
  await client.query('begin')
  await assert.rejects(client.query('select fail()'), (e) => e.code === '42P01')
  await assert.rejects(client.query('select 1'), (e) => e.code === '25P02')
  r = await client.query('commit')
  assert.strictEqual(r.command, 'ROLLBACK')

  await client.query("set statement_timeout = '200ms'")
  const start = Date.now()
  await assert.rejects(client.query('select sleep(10000)'), (e) => e.code === '57014')
  assert.ok(Date.now() - start < 5000)
  r = await client.query('select 1')
  assert.strictEqual(r.rows[0]['?column?'], 1)
  await client.end()
  console.log('OK')
}

main().catch((e) => { console.error(e); process.exit(1) })
