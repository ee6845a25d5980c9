// node-pg-migrate 9 over node-postgres against the server of the libpq
// environment (PGHOST, PGPORT, PGUSER, PGDATABASE): migrations up (under
// its advisory lock), introspection of the result, down one and up again,
// a failing migration rolled back whole, and down to nothing.
// internal/e2e TestNodePgMigrate runs it on PostgreSQL 15 and on pgproxy
// and compares the transcripts; it ends with OK.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { runner } from 'node-pg-migrate';

const here = path.dirname(fileURLToPath(import.meta.url));
const say = (...a) => console.log(a.join(' '));
const databaseUrl = { host: process.env.PGHOST, port: Number(process.env.PGPORT), user: process.env.PGUSER, database: process.env.PGDATABASE };
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const migrate = async (direction, dirs, count) => {
  const ran = await runner({
    databaseUrl, dir: dirs.map((d) => path.join(here, 'pgmigrate', d, '*.js')), useGlob: true, direction, count,
    migrationsTable: 'pgmigrations', logger: quiet, checkOrder: true,
  });
  say(direction, ran.map((m) => m.name).join(',') || '(none)');
};

const client = new pg.Client(databaseUrl);
await client.connect();
const q = async (label, sql) => {
  const r = await client.query(sql);
  say(label);
  for (const row of r.rows) say(' ', Object.values(row).map((v) => (v === null ? 'NULL' : typeof v === 'object' ? JSON.stringify(v) : String(v))).join(' | '));
};
const schema = async () => {
  await q('columns', `SELECT table_name, column_name, data_type, character_maximum_length, numeric_precision, numeric_scale, is_nullable, column_default
    FROM information_schema.columns WHERE table_schema = 'public' AND table_name IN ('authors', 'posts', 'drafts') ORDER BY table_name, ordinal_position`);
  await q('constraints', `SELECT conrelid::regclass::text, conname, contype, pg_get_constraintdef(oid) FROM pg_constraint
    WHERE conrelid IN ('authors'::regclass, 'posts'::regclass) ORDER BY 1, 2`);
  await q('indexes', `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('authors', 'posts') ORDER BY 1, 2`);
  await q('comments', `SELECT c.relname, a.attname, d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid WHERE c.relname IN ('authors', 'posts') ORDER BY 1, 2`);
};

await migrate('up', ['ok']);
await schema();
await q('rows', 'SELECT a.name, p.title, p.score, p.tags, p.meta, p.published FROM posts p JOIN authors a ON a.id = p.author_id ORDER BY a.name');
await q('recorded', 'SELECT id, name FROM pgmigrations ORDER BY id');
await migrate('down', ['ok'], 2);
await schema();
await migrate('up', ['ok']);
await migrate('up', ['ok']);
try {
  await migrate('up', ['ok', 'bad']);
  say('bad migration', 'passed');
} catch (e) {
  say('bad migration failed', e.code || e.message);
}
await q('drafts table', "SELECT count(*) FROM pg_class WHERE relname = 'drafts'");
await q('recorded', 'SELECT name FROM pgmigrations ORDER BY id');
// the failed run's lock goes with its session, whose backend PostgreSQL
// ends asynchronously after the client closes: wait (bounded) for it
for (let i = 0; i < 100; i++) {
  const r = await client.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
  if (r.rows[0].n === 0) break;
  await new Promise((resolve) => setTimeout(resolve, 50));
}
await q('advisory locks left', "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'");
await migrate('down', ['ok'], Infinity);
await q('tables left', "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
await client.end();
say('OK');
