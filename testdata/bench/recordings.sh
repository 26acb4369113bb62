#!/usr/bin/env bash
# Benchmark for the recordings issue: on a generated bag (2 GiB by default)
# compare `baglab info` with Debian `rosbag info`, and `baglab cat > /dev/null`
# with a python rosbag loop that json-dumps every message. Prints wall times,
# peak RSS and the speed-ups. Usage: testdata/bench/recordings.sh [SIZE_BYTES] [DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
SIZE=${1:-2147483648}
DIR=${2:-/tmp/baglab-bench}
mkdir -p "$DIR"
BAG="$DIR/big-$SIZE.bag"
make -s build
[ -f "$BAG" ] || go run ./testdata/gen -big "$BAG" -size "$SIZE"
ls -l "$BAG"

measure() { # label, runs, command...: prints "label mean_seconds peak_rss_MiB"
  local label=$1 runs=$2; shift 2
  local t0 t1 rss
  /usr/bin/time -f '%M' -o "$DIR/$label.rss" "$@" >/dev/null 2>&1  # warm, and peak RSS
  rss=$(tail -n1 "$DIR/$label.rss")
  t0=$(date +%s.%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null 2>&1; done
  t1=$(date +%s.%N)
  echo "($t1 - $t0) / $runs" | bc -l > "$DIR/$label.t"
  printf '%-14s %9.4f s (mean of %d)  peak RSS %6s MiB\n' "$label" "$(cat "$DIR/$label.t")" "$runs" "$(( ${rss:-0} / 1024 ))"
}
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
command -v bc >/dev/null || { apt-get install -y -qq bc >/dev/null; }
sync
measure baglab-info 20 ./bin/baglab info "$BAG"
measure rosbag-info 5 /usr/bin/python3 /usr/bin/rosbag info "$BAG"
measure baglab-cat 3 sh -c "./bin/baglab cat '$BAG' > /dev/null"
measure python-cat 1 /usr/bin/python3 testdata/bench/rosbag_cat.py "$BAG"
for p in info cat; do
  a=$(cat "$DIR/baglab-$p.t"); b=$(cat "$DIR/$( [ $p = info ] && echo rosbag || echo python)-$p.t")
  printf '%s speed-up: %.1fx\n' "$p" "$(echo "$b / $a" | bc -l)"
done
