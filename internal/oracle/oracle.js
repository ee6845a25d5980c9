// oracle.js: drives the official Lance (npm @lancedb/lancedb, pinned) for
// pggraph's Go tests. Every subcommand prints one JSON document on stdout.
//
// Types are Lance logical-type strings ("int64", "string", "timestamp:us:UTC",
// "decimal:128:10:2", "fixed_size_list:float:4", "fixed_size_binary:16") plus
// "list:<inner>" for a list of primitives. Values in JSON rows: null; numbers
// for <=32-bit ints, floats, date32; booleans; decimal strings for 64-bit
// ints, timestamps (raw count in the unit) and decimals (unscaled integer);
// strings for utf8; hex strings for binary and fixed_size_binary; arrays for
// fixed_size_list and list.
//
//   create  ROOT TABLE SCHEMA.json ROWS.json [--storage-version V] [--v1-manifest-paths]
//   append  ROOT TABLE ROWS.json
//   delete  ROOT TABLE PREDICATE
//   read    ROOT TABLE [--version N | --tag T] [--branch B]
//   versions ROOT TABLE
//   tag-create ROOT TABLE TAG VERSION
//   tags    ROOT TABLE
//
// SCHEMA.json: [{"name":..,"type":..,"nullable":bool,"metadata":{..}}].
'use strict';
const fs = require('fs');
const arrow = require('apache-arrow');
const lancedb = require('@lancedb/lancedb');

function fail(msg) {
  process.stderr.write('oracle: ' + msg + '\n');
  process.exit(2);
}

function unitOf(s) {
  return { s: arrow.TimeUnit.SECOND, ms: arrow.TimeUnit.MILLISECOND, us: arrow.TimeUnit.MICROSECOND, ns: arrow.TimeUnit.NANOSECOND }[s];
}

function arrowType(t, md) {
  const simple = {
    int8: () => new arrow.Int8(), int16: () => new arrow.Int16(), int32: () => new arrow.Int32(), int64: () => new arrow.Int64(),
    uint8: () => new arrow.Uint8(), uint16: () => new arrow.Uint16(), uint32: () => new arrow.Uint32(), uint64: () => new arrow.Uint64(),
    float: () => new arrow.Float32(), double: () => new arrow.Float64(), bool: () => new arrow.Bool(),
    string: () => new arrow.Utf8(), large_string: () => new arrow.LargeUtf8(), binary: () => new arrow.Binary(),
    large_binary: () => new arrow.LargeBinary(), 'date32:day': () => new arrow.DateDay(),
  };
  if (simple[t]) return simple[t]();
  const p = t.split(':');
  switch (p[0]) {
    case 'timestamp': {
      const tz = p.slice(2).join(':');
      return new arrow.Timestamp(unitOf(p[1]), tz === '-' ? null : tz);
    }
    case 'decimal': return new arrow.Decimal(Number(p[3]), Number(p[2]), 128);
    case 'fixed_size_binary': return new arrow.FixedSizeBinary(Number(p[1]));
    case 'fixed_size_list': {
      const n = Number(p[p.length - 1]);
      return new arrow.FixedSizeList(n, new arrow.Field('item', arrowType(p.slice(1, -1).join(':')), true, md));
    }
    case 'list': return new arrow.List(new arrow.Field('item', arrowType(p.slice(1).join(':')), true, md));
  }
  fail('unsupported type ' + t);
}

function hexToBytes(h) { return Uint8Array.from(Buffer.from(h, 'hex')); }

function validity(values) {
  const bm = new Uint8Array(Math.ceil(values.length / 8) || 1);
  let nulls = 0;
  values.forEach((v, i) => { if (v === null || v === undefined) nulls++; else bm[i >> 3] |= 1 << (i & 7); });
  return { bm, nulls };
}

// makeColumn builds an arrow.Data from JSON values without any semantic
// conversion (raw integers in, raw integers stored).
function makeColumn(type, values) {
  const { bm, nulls } = validity(values);
  const length = values.length;
  const base = { type, length, nullCount: nulls, nullBitmap: nulls ? bm : undefined };
  const tid = type.typeId;
  const T = arrow.Type;
  if (type instanceof arrow.Bool) {
    const data = new Uint8Array(Math.ceil(length / 8) || 1);
    values.forEach((v, i) => { if (v) data[i >> 3] |= 1 << (i & 7); });
    return arrow.makeData({ ...base, data });
  }
  if (type instanceof arrow.Utf8 || type instanceof arrow.LargeUtf8 || type instanceof arrow.Binary || type instanceof arrow.LargeBinary) {
    const isStr = type instanceof arrow.Utf8 || type instanceof arrow.LargeUtf8;
    const parts = values.map(v => v === null ? new Uint8Array(0) : (isStr ? Buffer.from(v, 'utf8') : hexToBytes(v)));
    const large = type instanceof arrow.LargeUtf8 || type instanceof arrow.LargeBinary;
    const offs = large ? new BigInt64Array(length + 1) : new Int32Array(length + 1);
    let total = 0;
    parts.forEach((b, i) => { total += b.length; offs[i + 1] = large ? BigInt(total) : total; });
    const data = new Uint8Array(total);
    let o = 0;
    parts.forEach(b => { data.set(b, o); o += b.length; });
    return arrow.makeData({ ...base, valueOffsets: offs, data });
  }
  if (type instanceof arrow.FixedSizeBinary) {
    const w = type.byteWidth;
    const data = new Uint8Array(length * w);
    values.forEach((v, i) => { if (v !== null) data.set(hexToBytes(v), i * w); });
    return arrow.makeData({ ...base, data });
  }
  if (type instanceof arrow.Decimal) {
    const data = new Uint32Array(length * 4);
    values.forEach((v, i) => {
      if (v === null) return;
      let x = BigInt.asUintN(128, BigInt(v));
      for (let k = 0; k < 4; k++) { data[i * 4 + k] = Number(x & 0xffffffffn); x >>= 32n; }
    });
    return arrow.makeData({ ...base, data });
  }
  if (type instanceof arrow.FixedSizeList) {
    const n = type.listSize;
    const flat = [];
    values.forEach(v => { for (let k = 0; k < n; k++) flat.push(v === null ? null : v[k]); });
    const child = makeColumn(type.children[0].type, flat);
    return arrow.makeData({ ...base, child });
  }
  if (type instanceof arrow.List) {
    const flat = [];
    const offs = new Int32Array(length + 1);
    values.forEach((v, i) => { if (v !== null) flat.push(...v); offs[i + 1] = flat.length; });
    const child = makeColumn(type.children[0].type, flat);
    return arrow.makeData({ ...base, valueOffsets: offs, child });
  }
  // Fixed-width numbers, dates and timestamps.
  const Arr = type.ArrayType;
  const data = new Arr(length);
  const big = Arr === BigInt64Array || Arr === BigUint64Array;
  values.forEach((v, i) => { if (v !== null) data[i] = big ? BigInt(v) : Number(v); });
  void tid; void T;
  return arrow.makeData({ ...base, data });
}

function buildTable(schemaJSON, rows) {
  const fields = schemaJSON.map(f => {
    const md = new Map(Object.entries(f.metadata || {}));
    return new arrow.Field(f.name, arrowType(f.type, new Map(md)), !!f.nullable, md);
  });
  const schema = new arrow.Schema(fields);
  const children = fields.map(f => makeColumn(f.type, rows.map(r => (f.name in r ? r[f.name] : null))));
  const data = arrow.makeData({ type: new arrow.Struct(fields), length: rows.length, nullCount: 0, children });
  return new arrow.Table([new arrow.RecordBatch(schema, data)]);
}

// ---- reading: raw values, type-exact ----

function isValid(d, i) {
  if (!d.nullBitmap || d.nullCount === 0) return true;
  const j = d.offset + i;
  return (d.nullBitmap[j >> 3] >> (j & 7)) & 1;
}

function dataValue(d, i) {
  if (!isValid(d, i)) return null;
  const t = d.type;
  const j = d.offset + i;
  if (t instanceof arrow.Bool) return !!((d.values[j >> 3] >> (j & 7)) & 1);
  if (t instanceof arrow.Utf8 || t instanceof arrow.LargeUtf8 || t instanceof arrow.Binary || t instanceof arrow.LargeBinary) {
    const a = Number(d.valueOffsets[j]), b = Number(d.valueOffsets[j + 1]);
    const bytes = Buffer.from(d.values.subarray(a, b));
    return (t instanceof arrow.Utf8 || t instanceof arrow.LargeUtf8) ? bytes.toString('utf8') : bytes.toString('hex');
  }
  if (t instanceof arrow.FixedSizeBinary) return Buffer.from(d.values.subarray(j * t.byteWidth, (j + 1) * t.byteWidth)).toString('hex');
  if (t instanceof arrow.Decimal) {
    let x = 0n;
    for (let k = 3; k >= 0; k--) x = (x << 32n) | BigInt(d.values[j * 4 + k]);
    return BigInt.asIntN(128, x).toString();
  }
  if (t instanceof arrow.FixedSizeList) {
    const n = t.listSize, c = d.children[0], out = [];
    for (let k = 0; k < n; k++) out.push(dataValue(c, j * n + k));
    return out;
  }
  if (t instanceof arrow.List) {
    const a = Number(d.valueOffsets[j]), b = Number(d.valueOffsets[j + 1]), c = d.children[0], out = [];
    for (let k = a; k < b; k++) out.push(dataValue(c, k));
    return out;
  }
  const v = d.values[j];
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

function typeString(t) {
  return t.toString();
}

async function dump(tbl) {
  const at = await tbl.query().toArrow();
  const names = at.schema.fields.map(f => f.name);
  const rows = [];
  for (const batch of at.batches) {
    for (let i = 0; i < batch.numRows; i++) {
      const row = {};
      names.forEach((n, ci) => { row[n] = dataValue(batch.data.children[ci], i); });
      rows.push(row);
    }
  }
  return {
    schema: at.schema.fields.map(f => ({ name: f.name, type: typeString(f.type), nullable: f.nullable })),
    rows,
    version: await tbl.version(),
  };
}

async function main() {
  const [cmd, root, name, ...rest] = process.argv.slice(2);
  if (!cmd || !root || !name) fail('usage: oracle.js CMD ROOT TABLE ...');
  const db = await lancedb.connect(root);
  const opt = (flag) => { const i = rest.indexOf(flag); return i >= 0 ? rest[i + 1] : undefined; };
  let out;
  switch (cmd) {
    case 'create': {
      const schema = JSON.parse(fs.readFileSync(rest[0], 'utf8'));
      const rows = JSON.parse(fs.readFileSync(rest[1], 'utf8'));
      const storageOptions = {};
      if (opt('--storage-version')) storageOptions.new_table_data_storage_version = opt('--storage-version');
      if (rest.includes('--v1-manifest-paths')) storageOptions.new_table_enable_v2_manifest_paths = 'false';
      const tbl = await db.createTable(name, buildTable(schema, rows), { mode: 'create', storageOptions });
      out = { version: await tbl.version(), rows: await tbl.countRows() };
      break;
    }
    case 'append': {
      const tbl = await db.openTable(name);
      const s = await tbl.schema();
      const schema = s.fields.map(f => ({ name: f.name, type: null, nullable: f.nullable, field: f }));
      const rows = JSON.parse(fs.readFileSync(rest[0], 'utf8'));
      const fields = schema.map(x => x.field);
      const children = fields.map(f => makeColumn(f.type, rows.map(r => (f.name in r ? r[f.name] : null))));
      const data = arrow.makeData({ type: new arrow.Struct(fields), length: rows.length, nullCount: 0, children });
      await tbl.add(new arrow.Table([new arrow.RecordBatch(new arrow.Schema(fields, s.metadata), data)]));
      out = { version: await tbl.version(), rows: await tbl.countRows() };
      break;
    }
    case 'delete': {
      const tbl = await db.openTable(name);
      await tbl.delete(rest[0]);
      out = { version: await tbl.version(), rows: await tbl.countRows() };
      break;
    }
    case 'read': {
      const opts = opt('--branch') ? { branch: opt('--branch') } : undefined;
      const tbl = await db.openTable(name, undefined, opts);
      if (opt('--version')) await tbl.checkout(Number(opt('--version')));
      if (opt('--tag')) await tbl.checkout(opt('--tag'));
      out = await dump(tbl);
      break;
    }
    case 'versions': {
      const tbl = await db.openTable(name);
      const vs = await tbl.listVersions();
      out = vs.map(v => ({ version: v.version, timestamp: v.timestamp }));
      break;
    }
    case 'tag-create': {
      const tbl = await db.openTable(name);
      const tags = await tbl.tags();
      await tags.create(rest[0], Number(rest[1]));
      out = { tag: rest[0], version: Number(rest[1]) };
      break;
    }
    case 'tags': {
      const tbl = await db.openTable(name);
      const tags = await tbl.tags();
      const list = await tags.list();
      out = {};
      for (const [k, v] of Object.entries(list)) out[k] = { version: v.version, manifestSize: v.manifestSize };
      break;
    }
    default:
      fail('unknown command ' + cmd);
  }
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch(e => fail(e && e.stack ? e.stack : String(e)));
