// query.mjs runs SQL statements with DuckDB (@duckdb/node-api) and prints
// each result as one JSON line: {"columns":[{"name","type"}],"rows":[{...}]}
// or {"error":"..."} when the statement fails. Values use the library's
// lossless JSON forms (64-bit integers, timestamps and blobs as strings,
// NaN and infinities as strings).
//
// Usage: node query.mjs SQL [SQL...]
//        node query.mjs -   (statements on stdin, one per line)
// Used by the export package's tests as an independent Parquet reader.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'node', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

let statements = process.argv.slice(2);
if (statements.length === 1 && statements[0] === '-') {
  statements = readFileSync(0, 'utf8').split('\n').filter((s) => s.trim() !== '');
}
if (statements.length === 0) {
  process.stderr.write('usage: node query.mjs SQL [SQL...] | -\n');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
const out = [];
let failed = false;
for (const sql of statements) {
  try {
    const reader = await conn.runAndReadAll(sql);
    const names = reader.columnNames();
    const types = reader.columnTypes();
    const columns = names.map((name, i) => ({ name, type: types[i].toString() }));
    out.push(JSON.stringify({ columns, rows: reader.getRowObjectsJson() }));
  } catch (e) {
    failed = true;
    out.push(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  }
}
conn.closeSync();
process.stdout.write(out.join('\n') + '\n');
if (failed && statements.length === 1) process.exitCode = 1;
