// Writes an UpdateConfig transaction with the official Lance (npm
// @lancedb/lancedb 0.31.0, see internal/oracle) for the golden file
// lance/format/testdata/lance8-update-config.txn:
//   NODE_PATH=internal/oracle/node_modules node lance/testdata/oracle/make_update_config.js /tmp/uc
// then copy /tmp/uc/u.lance/_transactions/1-*.txn (read version 1) there.
const lancedb = require('@lancedb/lancedb');
(async () => {
  const db = await lancedb.connect(process.argv[2]);
  const tbl = await db.createTable('u', [{ id: 1, name: 'a' }], { mode: 'create' });
  await tbl.updateFieldMetadata([
    { path: 'id', metadata: { k: 'v', gone: null } },
    { path: 'name', metadata: { a: 'b' }, replace: true },
  ]);
  console.log(JSON.stringify({ version: await tbl.version() }));
})().catch(e => { console.error(e); process.exit(1); });
