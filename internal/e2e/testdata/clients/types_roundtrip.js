// Value round trip through node-postgres (pg): for every line of
// testdata/types/values.tsv (argv[2]) it sends the value's text as a
// parameter cast to its type, prints what the driver made of the result
// (JSON of the JavaScript value, with Dates as ISO strings and Buffers as
// hex), then sends that value back as a parameter and prints the result
// again. Errors print their SQLSTATE. internal/e2e/drivers_test.go runs
// this against PostgreSQL 15 and pgproxy and compares the outputs.
'use strict';
const fs = require('fs');
const path = require('path');
const { Client } = require(path.join(process.argv[3], 'node_modules', 'pg'));

function show(v) {
  return JSON.stringify(v, (k, x) => {
    if (x && x.type === 'Buffer' && Array.isArray(x.data)) return 'hex:' + Buffer.from(x.data).toString('hex');
    return x;
  });
}

async function main() {
  const c = new Client();
  await c.connect();
  const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
  for (const line of lines) {
    if (!line || line.startsWith('#')) continue;
    const [typ, val] = line.split('\t');
    const v = val === '\\N' ? null : val;
    const sql = `SELECT $1::${typ} AS v`;
    const out = [];
    let x;
    try {
      x = (await c.query(sql, [v])).rows[0].v;
      out.push(show(x));
      try {
        out.push(show((await c.query(sql, [x])).rows[0].v));
      } catch (e) {
        out.push('ERROR ' + e.code);
      }
    } catch (e) {
      out.push('ERROR ' + e.code);
    }
    console.log(`${typ}\t${val}\t${out.join(' | ')}`);
  }
  await c.end();
  console.log('OK');
}
main().catch((e) => { console.error(e); process.exit(1); });
