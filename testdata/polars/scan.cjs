// scan.cjs scans a glob of Parquet files with polars (npm nodejs-polars
// 0.25.2) as a notebook would scan a Hive-partitioned dataset, and prints
// one JSON line: {"rows": [{"topic": ..., "source": ..., "n": ...}, ...]}
// (the row count per partition) or {"error": "..."}.
//
// Usage: node scan.cjs GLOB
const { createRequire } = require('node:module');
const { join } = require('node:path');
const pl = createRequire(join(__dirname, '..', 'node', 'package.json'))('nodejs-polars');

try {
  const df = pl.scanParquet(process.argv[2], { hivePartitioning: true })
    .select(pl.col('topic'), pl.col('source'))
    .collectSync();
  const counts = {};
  for (const r of df.toRecords()) {
    const k = JSON.stringify([r.topic, r.source]);
    counts[k] = (counts[k] || 0) + 1;
  }
  const rows = Object.keys(counts).sort().map((k) => {
    const [topic, source] = JSON.parse(k);
    return { topic, source, n: counts[k] };
  });
  console.log(JSON.stringify({ rows }));
} catch (e) {
  console.log(JSON.stringify({ error: String(e) }));
}
