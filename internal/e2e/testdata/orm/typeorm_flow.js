// TypeORM 1.x over node-postgres: synchronize, relations, query builder,
// transactions and migrations against the server of the libpq
// environment (PGHOST, PGPORT, PGUSER, PGDATABASE). internal/e2e
// TestTypeORM runs it on PostgreSQL 15 and on pgproxy and compares the
// transcripts; it ends with OK.
'use strict';
require('reflect-metadata');
const { DataSource, EntitySchema } = require('typeorm');

const say = (...a) => console.log(a.join(' '));
const canon = (v) => (v && typeof v === 'object' && !Array.isArray(v)) ? JSON.stringify(Object.keys(v).sort().reduce((a, k) => { a[k] = v[k]; return a; }, {})) : JSON.stringify(v);

const schemas = (release) => {
  const Author = new EntitySchema({
    name: 'Author', tableName: 'author',
    columns: {
      id: { type: 'int', primary: true, generated: 'increment' },
      name: { type: 'varchar', length: 80, unique: true },
      born: { type: 'date', nullable: true },
      ...(release >= 2 ? { country: { type: 'varchar', length: 2, nullable: true, default: 'GB' } } : {}),
    },
    relations: {
      profile: { type: 'one-to-one', target: 'Profile', joinColumn: true, cascade: true, nullable: true },
      books: { type: 'one-to-many', target: 'Book', inverseSide: 'author', cascade: true },
    },
  });
  const Profile = new EntitySchema({
    name: 'Profile', tableName: 'profile',
    columns: { id: { type: 'uuid', primary: true, generated: 'uuid' }, bio: { type: 'text' }, prefs: { type: 'jsonb', nullable: true } },
  });
  const Book = new EntitySchema({
    name: 'Book', tableName: 'book',
    columns: {
      id: { type: 'int', primary: true, generated: 'increment' },
      title: { type: 'varchar', length: 200 },
      price: { type: 'numeric', precision: 10, scale: 2, default: 0 },
      pages: { type: 'int', nullable: true },
      genres: { type: 'text', array: true, nullable: true },
      // An enum column: release 2 adds a value, which TypeORM migrates by
      // renaming the type, creating the new one, retyping the column
      // USING a cast and dropping the old type.
      kind: { type: 'enum', enum: release >= 2 ? ['novel', 'essay', 'poem'] : ['novel', 'essay'], default: 'novel' },
      publishedAt: { type: 'timestamptz', nullable: true },
      ...(release >= 2 ? { isbn: { type: 'varchar', length: 20, nullable: true } } : {}),
      version: { type: 'int', version: true },
      createdAt: { type: 'timestamptz', createDate: true },
    },
    relations: {
      author: { type: 'many-to-one', target: 'Author', inverseSide: 'books', onDelete: 'CASCADE', nullable: false },
      categories: { type: 'many-to-many', target: 'Category', joinTable: { name: 'book_categories' }, cascade: ['insert'] },
    },
    indices: release >= 2 ? [{ name: 'IDX_book_title_price', columns: ['title', 'price'] }] : [],
  });
  const Category = new EntitySchema({
    name: 'Category', tableName: 'category',
    columns: { id: { type: 'int', primary: true, generated: 'increment' }, name: { type: 'varchar', unique: true } },
  });
  return [Author, Profile, Book, Category];
};

class AddReviews1700000000001 {
  async up(qr) {
    await qr.query(`CREATE TABLE "review" ("id" SERIAL PRIMARY KEY, "bookId" integer NOT NULL REFERENCES "book"("id") ON DELETE CASCADE, "stars" smallint NOT NULL CHECK ("stars" BETWEEN 1 AND 5), "body" text)`);
    await qr.query(`CREATE INDEX "IDX_review_book" ON "review" ("bookId")`);
  }
  async down(qr) {
    await qr.query(`DROP TABLE "review"`);
  }
}
class SeedReviews1700000000002 {
  async up(qr) {
    await qr.query(`INSERT INTO "review" ("bookId", "stars", "body") SELECT "id", 4, 'good: ' || "title" FROM "book"`);
  }
  async down(qr) {
    await qr.query(`DELETE FROM "review"`);
  }
}
class BrokenMigration1700000000003 {
  async up(qr) {
    await qr.query(`CREATE TABLE "half_done" ("id" int PRIMARY KEY)`);
    await qr.query(`INSERT INTO "review" ("bookId", "stars") VALUES (1, 9)`);
  }
  async down() {}
}

const options = (release, extra) => ({
  type: 'postgres', host: process.env.PGHOST, port: Number(process.env.PGPORT), username: process.env.PGUSER,
  password: process.env.PGPASSWORD || undefined, database: process.env.PGDATABASE, entities: schemas(release),
  // TypeORM's default uuidExtension: CREATE EXTENSION IF NOT EXISTS
  // "uuid-ossp" and uuid_generate_v4() defaults for uuid keys.
  logging: false, poolSize: 2, ...extra,
});

async function describe(ds, name) {
  const qr = ds.createQueryRunner();
  const t = await qr.getTable(name);
  await qr.release();
  for (const c of t.columns) {
    say(' ', name + '.' + c.name, c.type + (c.length ? '(' + c.length + ')' : '') + (c.precision ? '(' + c.precision + ',' + c.scale + ')' : ''),
      'null=' + c.isNullable, 'pk=' + c.isPrimary, 'gen=' + (c.isGenerated ? c.generationStrategy : '-'), 'array=' + c.isArray,
      'default=' + c.default, c.enum ? 'enum=' + c.enum.join('|') : '');
  }
  say(' ', name, 'fks', t.foreignKeys.map((f) => `${f.columnNames}->${f.referencedTableName.split('.').pop()}(${f.referencedColumnNames}):${f.onDelete}`).sort().join(' '));
  say(' ', name, 'indices', t.indices.map((i) => `${i.name}:${i.columnNames}:${i.isUnique}`).sort().join(' '));
  say(' ', name, 'uniques', t.uniques.map((u) => `${u.columnNames}`).sort().join(' '));
}

async function main() {
  // Release 1: synchronize creates everything.
  let ds = new DataSource(options(1, { synchronize: true }));
  await ds.initialize();
  for (const t of ['author', 'profile', 'book', 'category', 'book_categories']) await describe(ds, t);
  const authors = ds.getRepository('Author');
  const books = ds.getRepository('Book');
  const cats = ds.getRepository('Category');
  const ursula = await authors.save({
    name: 'ursula', born: '1929-10-21', profile: { bio: 'wrote Earthsea', prefs: { theme: 'dark', langs: ['en'] } },
    books: [
      { title: 'A Wizard of Earthsea', price: '8.99', pages: 183, genres: ['fantasy', 'ya'], publishedAt: new Date('1968-11-01T00:00:00Z'), categories: [{ name: 'fantasy' }] },
      { title: 'The Dispossessed', price: '12.50', pages: 341, genres: ['sf'], kind: 'novel', categories: [{ name: 'sf' }] },
    ],
  });
  say('saved', ursula.id > 0, ursula.books.every((b) => b.id > 0 && b.version === 1), typeof ursula.profile.id === 'string' && ursula.profile.id.length === 36);
  await authors.save({ name: 'octavia', books: [{ title: 'Kindred', price: '10', kind: 'novel' }, { title: 'Essays', price: 3, kind: 'essay' }] });
  const loaded = await authors.find({ relations: { profile: true, books: { categories: true } }, order: { name: 'ASC', books: { title: 'ASC' } } });
  for (const a of loaded) {
    say('author', a.name, a.born, a.profile ? a.profile.bio + ' ' + canon(a.profile.prefs) : '-');
    for (const b of a.books) say('  book', b.title, b.price, b.pages, JSON.stringify(b.genres), b.kind, b.publishedAt ? b.publishedAt.toISOString() : null, b.version, b.categories.map((c) => c.name).sort().join(','));
  }
  const qb = await books.createQueryBuilder('b').innerJoin('b.author', 'a').select('a.name', 'name').addSelect('count(*)::int', 'n').addSelect('sum(b.price)', 'total')
    .where('b.price > :min', { min: 1 }).groupBy('a.name').orderBy('a.name').getRawMany();
  say('per author', qb.map((r) => `${r.name}:${r.n}:${r.total}`).join(','));
  const fantasy = await books.createQueryBuilder('b').where(':g = ANY(b.genres)', { g: 'fantasy' }).getMany();
  say('fantasy', fantasy.map((b) => b.title).join(','));
  const dark = await ds.getRepository('Profile').createQueryBuilder('p').where(`p.prefs ->> 'theme' = :t`, { t: 'dark' }).getCount();
  say('dark profiles', dark);
  const [page, total] = await books.findAndCount({ order: { title: 'ASC' }, skip: 1, take: 2 });
  say('page', total, page.map((b) => b.title).join(','));

  // Optimistic version column, updates, deletes.
  const kindred = await books.findOneBy({ title: 'Kindred' });
  kindred.pages = 264;
  await books.save(kindred);
  say('kindred version', (await books.findOneBy({ id: kindred.id })).version);
  await books.increment({ title: 'Kindred' }, 'pages', 1);
  await books.update({ kind: 'essay' }, { price: '4.00' });
  say('essays', (await books.find({ where: { kind: 'essay' } })).map((b) => `${b.title}:${b.price}:${b.pages}`).join(','));
  try { await authors.save({ name: 'ursula' }); say('unique', 'passed'); } catch (e) { say('unique', e.code); }
  try { await ds.query(`INSERT INTO book (title, "authorId") VALUES ('x', 99999)`); say('fk', 'passed'); } catch (e) { say('fk', e.code); }
  try { await ds.query(`INSERT INTO book (title, "authorId", kind) VALUES ('x', $1, repeat('poem', 3))`, [ursula.id]); say('too long', 'passed'); } catch (e) { say('too long', e.code); }

  // Transactions: commit, rollback, a query runner with a savepoint.
  await ds.transaction(async (m) => {
    const a = await m.save('Author', { name: 'stanislaw' });
    await m.save('Book', { title: 'Solaris', price: '9.90', author: a });
  });
  try {
    await ds.transaction(async (m) => {
      await m.save('Author', { name: 'never' });
      throw new Error('application says no');
    });
  } catch (e) { say('rolled back', e.message); }
  const qr = ds.createQueryRunner();
  await qr.connect();
  await qr.startTransaction();
  await qr.manager.save('Author', { name: 'kept' });
  await qr.startTransaction();
  await qr.manager.save('Author', { name: 'dropped' });
  await qr.rollbackTransaction();
  await qr.commitTransaction();
  await qr.release();
  say('authors', (await authors.find({ order: { name: 'ASC' } })).map((a) => a.name).join(','));
  await authors.delete({ name: 'octavia' });
  say('books after cascade', await books.count());
  await ds.destroy();

  // Release 2: synchronize alters the schema (new columns, an index);
  // a second synchronize finds nothing to do.
  ds = new DataSource(options(2, { synchronize: true }));
  await ds.initialize();
  await describe(ds, 'author');
  await describe(ds, 'book');
  const pending = await ds.driver.createSchemaBuilder().log();
  say('pending after sync', pending.upQueries.length);
  say('rows', (await ds.getRepository('Author').find({ order: { name: 'ASC' } })).map((a) => `${a.name}:${a.country}`).join(','));
  await ds.getRepository('Book').update({ title: 'Solaris' }, { kind: 'poem' });
  say('kinds', (await ds.getRepository('Book').find({ order: { kind: 'DESC', title: 'ASC' } })).map((b) => `${b.title}:${b.kind}`).join(','));
  try { await ds.getRepository('Book').update({ title: 'Solaris' }, { kind: 'opera' }); say('bad kind', 'passed'); } catch (e) { say('bad kind', e.code); }
  await ds.destroy();

  // Migrations: run, show, undo, a failing migration rolled back.
  ds = new DataSource(options(2, { migrations: [AddReviews1700000000001, SeedReviews1700000000002], migrationsTransactionMode: 'each' }));
  await ds.initialize();
  say('pending migrations', await ds.showMigrations());
  const ran = await ds.runMigrations();
  say('ran', ran.map((m) => m.name).join(','));
  say('reviews', (await ds.query(`SELECT count(*)::int AS n, min(stars) AS s FROM review`)).map((r) => `${r.n}:${r.s}`).join());
  await ds.undoLastMigration();
  say('reviews after undo', (await ds.query(`SELECT count(*)::int AS n FROM review`))[0].n);
  say('pending after undo', await ds.showMigrations());
  await ds.destroy();
  ds = new DataSource(options(2, { migrations: [AddReviews1700000000001, SeedReviews1700000000002, BrokenMigration1700000000003], migrationsTransactionMode: 'all' }));
  await ds.initialize();
  try { await ds.runMigrations(); say('broken', 'passed'); } catch (e) { say('broken', e.code); }
  say('half_done', (await ds.query(`SELECT count(*)::int AS n FROM pg_catalog.pg_class WHERE relname = 'half_done'`))[0].n);
  say('migrations table', (await ds.query(`SELECT name FROM migrations ORDER BY id`)).map((r) => r.name).join(','));
  await ds.destroy();
  say('OK');
}

main().catch((e) => { console.log('FAILED', e && e.stack, e && e.code, e && e.query); process.exit(1); });
