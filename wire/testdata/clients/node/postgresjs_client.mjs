// postgres.js against the wire test server: Parse/Describe/Flush before
// Bind, pipelined concurrent queries, transactions, COPY streams, cancel
// and errors. PG* variables carry the connection settings.
import assert from 'assert'
import postgres from 'postgres'
import { pipeline } from 'stream/promises'
import { Readable, Writable } from 'stream'

const sql = postgres({ ssl: { rejectUnauthorized: false }, fetch_types: false, max: 1 })

let rows = await sql`select echo_int(${42}, ${'js'})`
assert.strictEqual(String(rows[0].p1), '42')
assert.strictEqual(rows[0].p2, 'js')
rows = await sql`select gen(4)`
assert.strictEqual(rows.length, 4)
assert.strictEqual(rows.count, 4)

// pipelined: several queries in flight on one connection
const many = await Promise.all([1, 2, 3, 4, 5].map((i) => sql`select echo_int(${i}, ${'p' + i})`))
assert.deepStrictEqual(many.map((r) => r[0].p2), ['p1', 'p2', 'p3', 'p4', 'p5'])

await sql.begin(async (tx) => {
  await tx`insert into t values (${'a'})`
  await tx`insert into t values (${'b'})`
})

const writable = await sql`copy t (a, b) from stdin`.writable()
await pipeline(Readable.from(['1\tx\n', '2\ty\n', '3\tz\n']), writable)
let text = ''
const readable = await sql`copy (select gen(2)) to stdout`.readable()
await pipeline(readable, new Writable({ write (c, _e, cb) { text += c.toString(); cb() } }))
assert.strictEqual(text, '1\trow-1\n2\trow-2\n')

await assert.rejects(sql`select fail()`, (e) => e.code === '42P01' && e.position === '15')

const q = sql`select sleep(10000)`
setTimeout(() => q.cancel(), 200)
const start = Date.now()
await assert.rejects(q, (e) => e.code === '57014')
assert.ok(Date.now() - start < 5000)
rows = await sql`select 1`
assert.strictEqual(rows[0]['?column?'], 1)
await sql.end()
console.log('OK')
