// Value round trip through postgres.js: for every line of
// testdata/types/values.tsv (argv[2]) it sends the value's text as a
// parameter cast to its type, prints what the driver made of the result
// (JSON, Dates as ISO strings, Buffers as hex), then sends that value back
// and prints the result again. Errors print their SQLSTATE.
// internal/e2e/drivers_test.go runs this against PostgreSQL 15 and pgproxy
// and compares the outputs.
import fs from 'fs';
import path from 'path';
import { pathToFileURL } from 'url';

const mod = await import(pathToFileURL(path.join(process.argv[3], 'node_modules', 'postgres', 'src', 'index.js')).href);
const postgres = mod.default;

function show(v) {
  return JSON.stringify(v, (k, x) => {
    if (x && x.type === 'Buffer' && Array.isArray(x.data)) return 'hex:' + Buffer.from(x.data).toString('hex');
    if (typeof x === 'bigint') return 'bigint:' + x.toString();
    return x;
  });
}

const sql = postgres({ max: 1, onnotice: () => {} });
const lines = fs.readFileSync(process.argv[2], 'utf8').split('\n');
for (const line of lines) {
  if (!line || line.startsWith('#')) continue;
  const [typ, val] = line.split('\t');
  const v = val === '\\N' ? null : val;
  const q = `SELECT $1::${typ} AS v`;
  const out = [];
  try {
    const x = (await sql.unsafe(q, [v]))[0].v;
    out.push(show(x));
    try {
      out.push(show((await sql.unsafe(q, [x]))[0].v));
    } catch (e) {
      out.push('ERROR ' + (e.code || e.name));
    }
  } catch (e) {
    out.push('ERROR ' + (e.code || e.name));
  }
  console.log(`${typ}\t${val}\t${out.join(' | ')}`);
}
await sql.end();
console.log('OK');
