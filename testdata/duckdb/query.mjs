// query.mjs runs one SQL statement with DuckDB (@duckdb/node-api) and prints
// the result as JSON: {"columns":[{"name","type"}],"rows":[{...}]}.
// Values use the library's lossless JSON forms (64-bit integers, timestamps
// and blobs as strings, NaN/Infinity as strings).
//
// Usage: node query.mjs "SELECT * FROM read_parquet('x.parquet')"
// Used by the export package's tests as an independent Parquet reader.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'node', 'package.json'));
const { DuckDBInstance } = require('@duckdb/node-api');

const sql = process.argv[2];
if (!sql) {
  process.stderr.write('usage: node query.mjs SQL\n');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
try {
  const reader = await conn.runAndReadAll(sql);
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const columns = names.map((name, i) => ({ name, type: types[i].toString() }));
  process.stdout.write(JSON.stringify({ columns, rows: reader.getRowObjectsJson() }) + '\n');
} catch (e) {
  process.stderr.write(String(e && e.message ? e.message : e) + '\n');
  process.exitCode = 1;
} finally {
  conn.closeSync();
}
