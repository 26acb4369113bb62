// read.cjs reads Parquet files with polars (npm nodejs-polars 0.25.2), the
// second independent Parquet reader of the export tests, and prints one JSON
// line per file:
//   {"dtypes": {"col": "datetime[ns, UTC]" | "struct{a: u32, b: list[binary]}" | ...},
//    "rows": [{"col": value, ...}, ...]}
// or {"error": "..."}.
// dtypes are polars' own names as it prints them (its Rust-side display; the
// JS DataType objects of 0.25.2 cannot show Binary and misreport Duration
// units), walked into structs, lists and arrays. Values are lossless: times
// and durations as integer nanoseconds, floats as polars' shortest text
// ("NaN", "inf"), binary as a list of byte values, categoricals as strings.
//
// A path ending in .csv is read with readCSV and polars' default type
// inference (the first 100 rows), as a notebook would read an export.
//
// Usage: node read.cjs < paths (one Parquet or CSV path per line)
const { createRequire } = require('node:module');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const pl = createRequire(join(__dirname, '..', 'node', 'package.json'))('nodejs-polars');

// display is polars' printed dtype of expr evaluated on df (an empty frame
// of the file's schema: only dtypes are wanted).
function display(df, expr) {
  const lines = String(df.select(expr.alias('x'))).split('\n');
  return lines[4].replace(/[│]/g, '').trim();
}

// walk returns the dtype tree of expr, in polars' names.
function walk(df, expr) {
  const d = display(df, expr);
  if (d.startsWith('struct[')) {
    const names = df.select(expr.alias('x')).unnest('x').columns;
    return { kind: 'struct', fields: names.map((n) => [n, walk(df, expr.struct.field(n))]) };
  }
  if (d.startsWith('list[')) return { kind: 'list', elem: walk(df, expr.explode()) };
  if (d.startsWith('array[')) {
    const n = Number(/, (\d+)\]$/.exec(d)[1]);
    return { kind: 'array', n, elem: walk(df, expr.explode()) };
  }
  return { kind: d };
}

function text(t) {
  switch (t.kind) {
    case 'struct': return 'struct{' + t.fields.map(([n, f]) => n + ': ' + text(f)).join(', ') + '}';
    case 'list': return 'list[' + text(t.elem) + ']';
    case 'array': return 'array[' + text(t.elem) + ', ' + t.n + ']';
  }
  return t.kind;
}

const leaves = {
  bool: pl.Bool, i8: pl.Int8, i16: pl.Int16, i32: pl.Int32, i64: pl.Int64,
  u8: pl.UInt8, u16: pl.UInt16, u32: pl.UInt32, u64: pl.UInt64,
  f32: pl.Utf8, f64: pl.Utf8, str: pl.Utf8, cat: pl.Utf8,
  binary: pl.List(pl.UInt8), 'datetime[ns, UTC]': pl.Int64, 'duration[ns]': pl.Int64,
};

// target is the JSON-friendly dtype to cast t to.
function target(t) {
  switch (t.kind) {
    case 'struct': return pl.Struct(t.fields.map(([n, f]) => new pl.Field(n, target(f))));
    case 'list': return pl.List(target(t.elem));
    case 'array': return pl.FixedSizeList(target(t.elem), t.n);
  }
  const l = leaves[t.kind];
  if (!l) throw new Error('unexpected dtype ' + t.kind);
  return l;
}

const out = [];
for (const path of readFileSync(0, 'utf8').split('\n').filter((s) => s.trim() !== '')) {
  try {
    const df = path.endsWith('.csv') ? pl.readCSV(path) : pl.readParquet(path);
    const empty = df.head(0);
    const dtypes = {};
    const casts = [];
    for (const c of df.columns) {
      const t = walk(empty, pl.col(c));
      dtypes[c] = text(t);
      casts.push(pl.col(c).cast(target(t)));
    }
    const json = String(df.select(...casts).writeJSON({ format: 'lines' }));
    const rows = json.split('\n').filter((s) => s !== '');
    out.push('{"dtypes":' + JSON.stringify(dtypes) + ',"rows":[' + rows.join(',') + ']}');
  } catch (e) {
    out.push(JSON.stringify({ error: path + ': ' + String(e && e.message ? e.message : e) }));
  }
}
process.stdout.write(out.join('\n') + '\n');
