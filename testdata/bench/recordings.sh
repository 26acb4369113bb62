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

measure() { # label, command...: prints "label seconds peak_rss_MiB"
  local label=$1; shift
  local t0 t1 rss
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$DIR/$label.rss" "$@" >/dev/null 2>&1
  rss=$(tail -n1 "$DIR/$label.rss")
  t1=$(date +%s.%N)
  printf '%-22s %8.2f s  %6s MiB\n' "$label" "$(echo "$t1 - $t0" | bc)" "$(( ${rss:-0} / 1024 ))"
  echo "$t1 - $t0" | bc > "$DIR/$label.t"
}
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
command -v bc >/dev/null || { apt-get install -y -qq bc >/dev/null; }
sync
measure baglab-info ./bin/baglab info "$BAG"
measure rosbag-info /usr/bin/python3 /usr/bin/rosbag info "$BAG"
measure baglab-cat sh -c "./bin/baglab cat '$BAG' > /dev/null"
measure python-cat /usr/bin/python3 testdata/bench/rosbag_cat.py "$BAG"
for p in info cat; do
  a=$(cat "$DIR/baglab-$p.t"); b=$(cat "$DIR/$( [ $p = info ] && echo rosbag || echo python)-$p.t")
  printf '%s speed-up: %.1fx\n' "$p" "$(echo "$b / $a" | bc -l)"
done
