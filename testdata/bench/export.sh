#!/usr/bin/env bash
# Benchmark for the export issue: export a generated recording (2 GiB by
# default) mixing 1 MB point clouds and small messages to Parquet and to CSV,
# printing wall time, input MB/s and peak RSS. Usage:
#   testdata/bench/export.sh [SIZE_BYTES] [DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE=${1:-2147483648}
DIR=${2:-/tmp/baglab-bench}
mkdir -p "$DIR"
BAG="$DIR/big-$SIZE.bag"
make -s build
[ -f "$BAG" ] || go run ./testdata/gen -big "$BAG" -size "$SIZE"
bytes=$(stat -c %s "$BAG")
for fmt in parquet csv; do
  out="$DIR/export-$fmt"
  rm -rf "$out"
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$DIR/export-$fmt.rss" ./bin/baglab export "$BAG" --out "$out" --format "$fmt" -q
  t1=$(date +%s.%N)
  secs=$(echo "$t1 - $t0" | bc -l)
  printf 'export %-8s %8.2f s  %8.1f MB/s of input  peak RSS %d MiB\n' "$fmt" "$secs" \
    "$(echo "$bytes / 1000000 / $secs" | bc -l)" "$(( $(tail -n1 "$DIR/export-$fmt.rss") / 1024 ))"
done
