// Regenerates testdata/oracle/g.lance with the official Lance (npm
// @lancedb/lancedb 0.31.0, see internal/oracle):
//   NODE_PATH=internal/oracle/node_modules node lance/testdata/oracle/make_corpus.js /tmp/lx/db
// then copy /tmp/lx/db/g.lance here. corpusLocation in
// oracle_corpus_test.go must match the directory used.
const lancedb = require('@lancedb/lancedb');
const arrow = require('apache-arrow');
(async () => {
  const db = await lancedb.connect(process.argv[2]);
  const md = new Map(Object.entries({
    'lance-encoding:compression': 'none', 'lance-encoding:dict-size-ratio': '0.000001',
    'lance-encoding:rle-threshold': '0', 'lance-encoding:bss': 'off',
  }));
  const schema = new arrow.Schema([
    new arrow.Field('id', new arrow.Int64(), false, md),
    new arrow.Field('name', new arrow.Utf8(), true, md),
  ]);
  const rows = (a, b) => { const r = []; for (let i = a; i < b; i++) r.push({ id: i, name: i % 4 == 0 ? null : 'n' + i }); return r; };
  const tbl = await db.createTable('g', rows(0, 10), { schema, mode: 'create' });
  await tbl.add(rows(10, 20));
  await tbl.add(rows(20, 30));
  await tbl.delete('id IN (1, 2, 15) OR id > 27');
  await (await tbl.tags()).create('after-appends', 3);
  await tbl.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute([{ id: 3, name: 'upd' }, { id: 100, name: 'new' }]);
  const b = await (await tbl.branches()).create('feature/x');
  await b.add(rows(200, 205));
  await tbl.optimize();
  console.log(JSON.stringify({ version: await tbl.version(), rows: await tbl.countRows(), branchVersion: await b.version(), branchRows: await b.countRows() }));
})().catch(e => { console.error(e); process.exit(1); });
