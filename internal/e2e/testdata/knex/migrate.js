// knex migrations against pgproxy: serial ids, transactional DDL (each
// migration runs in one transaction), the knex_migrations and
// knex_migrations_lock tables, a failing migration rolled back whole,
// two migrators racing for the lock, and everything run down and up
// again. PG* variables carry the connection; prints OK at the end.
'use strict'
const assert = require('assert')
const path = require('path')
const Knex = require('knex')

function connect () {
  return Knex({
    client: 'pg',
    connection: { host: process.env.PGHOST, port: Number(process.env.PGPORT), user: process.env.PGUSER, database: process.env.PGDATABASE },
    pool: { min: 0, max: 2 },
    migrations: { directory: path.join(__dirname, 'migrations') }
  })
}

async function tables (knex) {
  const r = await knex.raw("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name")
  return r.rows.map((x) => x.table_name)
}

async function main () {
  const knex = connect()
  const [batch, log] = await knex.migrate.latest()
  assert.strictEqual(batch, 1)
  assert.deepStrictEqual(log, ['20261129000000_authors_posts.js', '20261129000100_likes.js', '20261129000200_seed.js'])
  assert.deepStrictEqual(await tables(knex), ['authors', 'knex_migrations', 'knex_migrations_lock', 'posts'])
  const lock = await knex('knex_migrations_lock').select('is_locked')
  assert.deepStrictEqual(lock, [{ is_locked: 0 }])
  assert.strictEqual(await knex.migrate.currentVersion(), '20261129000200')
  const [again] = await knex.migrate.latest()
  assert.strictEqual(again, 1) // nothing new: still batch 1

  // serial ids continue after the seeded rows; defaults fill the rest
  const [alan] = await knex('authors').insert({ name: 'Alan', email: 'alan@example.com' }).returning(['id', 'ref', 'created_at'])
  assert.strictEqual(alan.id, 3)
  assert.match(alan.ref, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  assert.ok(alan.created_at instanceof Date)
  const [post] = await knex('posts').insert({ author_id: alan.id, body: 'On computable numbers' }).returning('*')
  assert.deepStrictEqual({ id: post.id, likes: post.likes, published: post.published }, { id: '3', likes: 0, published: false })
  const rows = await knex('posts').join('authors', 'authors.id', 'posts.author_id')
    .select('authors.name', 'posts.likes').orderBy('posts.id')
  assert.deepStrictEqual(rows, [{ name: 'Ada', likes: 0 }, { name: 'Grace', likes: 3 }, { name: 'Alan', likes: 0 }])
  await assert.rejects(knex('authors').insert({ name: 'Ada 2', email: 'ada@example.com' }), (e) => e.code === '23505')
  await knex('authors').where({ name: 'Alan' }).del()
  assert.strictEqual(Number((await knex('posts').count('* as n'))[0].n), 2) // cascade

  // a failing migration leaves neither its table nor its bookkeeping
  await assert.rejects(knex.migrate.latest({ directory: [path.join(__dirname, 'migrations'), path.join(__dirname, 'migrations_bad')] }), (e) => e.code === '42P01')
  assert.deepStrictEqual(await tables(knex), ['authors', 'knex_migrations', 'knex_migrations_lock', 'posts'])
  assert.strictEqual(Number((await knex('knex_migrations').count('* as n'))[0].n), 3)
  assert.deepStrictEqual(await knex('knex_migrations_lock').select('is_locked'), [{ is_locked: 0 }])

  // two migrators at once: the lock lets exactly one run the migration
  const other = connect()
  const dir = { directory: [path.join(__dirname, 'migrations'), path.join(__dirname, 'migrations_race')] }
  const results = await Promise.allSettled([knex.migrate.latest(dir), other.migrate.latest(dir)])
  const ran = results.filter((r) => r.status === 'fulfilled' && r.value[1].length === 1)
  assert.strictEqual(ran.length, 1, JSON.stringify(results.map((r) => r.status === 'fulfilled' ? r.value : String(r.reason))))
  for (const r of results) {
    if (r.status === 'rejected') {
      assert.ok(/locked/i.test(r.reason.message) || r.reason.code === '40001', String(r.reason))
    }
  }
  assert.strictEqual(Number((await knex('race_marker').count('* as n'))[0].n), 1)
  await knex.migrate.rollback(dir)
  await other.destroy()

  // all the way down, then up again
  const [, down] = await knex.migrate.rollback(undefined, true)
  assert.deepStrictEqual(down, ['20261129000200_seed.js', '20261129000100_likes.js', '20261129000000_authors_posts.js'])
  assert.deepStrictEqual(await tables(knex), ['knex_migrations', 'knex_migrations_lock'])
  assert.strictEqual(Number((await knex('knex_migrations').count('* as n'))[0].n), 0)
  const [batch2, log2] = await knex.migrate.latest()
  assert.strictEqual(batch2, 1)
  assert.strictEqual(log2.length, 3)
  const ids = await knex('authors').select('id').orderBy('id')
  assert.deepStrictEqual(ids.map((r) => r.id), [1, 2]) // the serial's sequence went with the dropped table
  await knex.destroy()
  console.log('OK')
}

main().catch((e) => { console.error(e); process.exit(1) })
