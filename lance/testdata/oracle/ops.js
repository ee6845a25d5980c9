// ops.js: drives the official Lance (npm @lancedb/lancedb 0.31.0, the
// node_modules of internal/oracle) for package lance's interop tests that
// need more than internal/oracle offers (branches, metadata updates,
// overwrites). Every command prints one JSON document on stdout.
//
//   list        ROOT TABLE
//   create      ROOT TABLE BRANCH [FROM_BRANCH|-] [FROM_VERSION]
//   delete      ROOT TABLE BRANCH
//   append      ROOT TABLE BRANCH FROM TO     rows id FROM..TO-1 (see rowsFor)
//   delete-rows ROOT TABLE BRANCH PREDICATE
//   count       ROOT TABLE BRANCH [VERSION]   checkout (pinned when VERSION)
//   field-metadata ROOT TABLE COLUMN KEY VALUE  UpdateConfig (field metadata)
//   overwrite   ROOT TABLE FROM TO            Overwrite with rows FROM..TO-1
//   merge-insert ROOT TABLE BRANCH|- FROM TO  upsert rows FROM..TO-1 on id
//   compact     ROOT TABLE BRANCH|-           optimize (compaction)
//   filter      ROOT TABLE BRANCH|- PREDICATE... ids matching each SQL predicate
//   try-branch-names ROOT TABLE NAME...       which names Lance accepts
//   try-tag-names ROOT TABLE NAME...
//
// Run as: NODE_PATH=internal/oracle/node_modules node ops.js ...
'use strict';
const lancedb = require('@lancedb/lancedb');
const arrow = require('apache-arrow');

function fail(msg) {
  process.stderr.write('ops.js: ' + msg + '\n');
  process.exit(2);
}

// rowsFor builds rows id..to-1 in the table's own schema, with the values
// package lance's tests expect: name "n<id>" (null when id%4 == 0), score id/2.
function rowsFor(schema, from, to) {
  const ids = [], names = [], scores = [];
  for (let i = from; i < to; i++) { ids.push(BigInt(i)); names.push(i % 4 === 0 ? null : 'n' + i); scores.push(i / 2); }
  const cols = {};
  for (const f of schema.fields) {
    if (f.name === 'id') cols.id = arrow.vectorFromArray(ids, f.type);
    else if (f.name === 'name') cols.name = arrow.vectorFromArray(names, f.type);
    else if (f.name === 'score') cols.score = arrow.vectorFromArray(scores, f.type);
    else fail('unexpected column ' + f.name);
  }
  const t = new arrow.Table(cols);
  return new arrow.Table(schema, t.batches.map(b => new arrow.RecordBatch(schema, b.data)));
}

async function main() {
  const [cmd, root, name, ...rest] = process.argv.slice(2);
  if (!cmd || !root || !name) fail('usage: ops.js CMD ROOT TABLE ...');
  const db = await lancedb.connect(root);
  const tbl = await db.openTable(name);
  const branches = await tbl.branches();
  let out;
  switch (cmd) {
    case 'list': {
      out = {};
      for (const [k, v] of Object.entries(await branches.list())) {
        out[k] = { parentBranch: v.parentBranch ?? null, parentVersion: v.parentVersion, manifestSize: v.manifestSize };
      }
      break;
    }
    case 'create': {
      const from = rest[1] && rest[1] !== '-' ? rest[1] : undefined;
      const b = await branches.create(rest[0], from, rest[2] ? Number(rest[2]) : undefined);
      out = { version: await b.version(), rows: await b.countRows() };
      break;
    }
    case 'delete': {
      await branches.delete(rest[0]);
      out = { deleted: rest[0] };
      break;
    }
    case 'append': {
      const b = await branches.checkout(rest[0]);
      await b.add(rowsFor(await b.schema(), Number(rest[1]), Number(rest[2])));
      out = { version: await b.version(), rows: await b.countRows() };
      break;
    }
    case 'delete-rows': {
      const b = await branches.checkout(rest[0]);
      await b.delete(rest[1]);
      out = { version: await b.version(), rows: await b.countRows() };
      break;
    }
    case 'count': {
      const b = await branches.checkout(rest[0], rest[1] ? Number(rest[1]) : undefined);
      out = { version: await b.version(), rows: await b.countRows() };
      break;
    }
    case 'field-metadata': {
      await tbl.updateFieldMetadata([{ path: rest[0], metadata: { [rest[1]]: rest[2] } }]);
      out = { version: await tbl.version() };
      break;
    }
    case 'overwrite': {
      await tbl.add(rowsFor(await tbl.schema(), Number(rest[0]), Number(rest[1])), { mode: 'overwrite' });
      out = { version: await tbl.version(), rows: await tbl.countRows() };
      break;
    }
    case 'merge-insert': {
      const b = rest[0] === '-' ? tbl : await branches.checkout(rest[0]);
      const r = await b.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll()
        .execute(rowsFor(await b.schema(), Number(rest[1]), Number(rest[2])));
      out = { version: await b.version(), rows: await b.countRows(), inserted: r.numInsertedRows, updated: r.numUpdatedRows };
      break;
    }
    case 'compact': {
      const b = rest[0] === '-' ? tbl : await branches.checkout(rest[0]);
      const st = await b.optimize();
      out = { version: await b.version(), rows: await b.countRows(), removed: st.compaction.fragmentsRemoved, added: st.compaction.fragmentsAdded };
      break;
    }
    case 'try-branch-names': {
      out = {};
      for (const n of rest) {
        try {
          await branches.create(n);
          out[n] = true;
          await branches.delete(n);
        } catch (e) {
          out[n] = false;
        }
      }
      break;
    }
    case 'filter': {
      const b = rest[0] === '-' ? tbl : await branches.checkout(rest[0]);
      out = {};
      for (const p of rest.slice(1)) {
        const at = await b.query().where(p).select(['id']).toArrow();
        const ids = [];
        for (const batch of at.batches) {
          const col = batch.getChild('id');
          for (let i = 0; i < batch.numRows; i++) ids.push(Number(col.get(i)));
        }
        ids.sort((x, y) => x - y);
        out[p] = ids;
      }
      break;
    }
    case 'try-tag-names': {
      const tags = await tbl.tags();
      const v = await tbl.version();
      out = {};
      for (const n of rest) {
        try {
          await tags.create(n, v);
          out[n] = true;
          await tags.delete(n);
        } catch (e) {
          out[n] = false;
        }
      }
      break;
    }
    default:
      fail('unknown command ' + cmd);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch(e => fail(e && e.stack ? e.stack : String(e)));
