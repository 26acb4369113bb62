#!/usr/bin/env bash
# Speed of convert --to ros2 (issue 26: at most 1.5x cat of the same input)
# as a user runs it: whole processes, `cat IN > /dev/null` against
# `convert IN OUT --to ros2` (MCAP chunks uncompressed, as rosbag2 and
# rosbags-convert write them by default; with --compression zstd, at
# libmcap's default level, zstd's 1) and `--storage sqlite3`, on a
# generated recording of every seed type with 1 MB point clouds for the
# bulk (go run ./testdata/gen -big), as written (chunks stored) and
# recompressed with lz4, and on its twin whose clouds are lidar-like scans
# (-scans: noisy float32 x, y, z, new in each message, where big.bag
# repeats one cloud of random bytes that zstd's window finds again). For
# reference: `cp IN` (what writing a copy of the input costs alone) and,
# where the zstd CLI is installed, `zstd -1 -T2` and `zstd --fast=5 -T2` of
# the default (uncompressed) output to /dev/null, what compressing it alone
# costs libzstd at the level convert writes and at that of rosbag2's
# zstd_fast preset (libmcap's fastest, -5). BenchmarkConvertToROS2
# (cmd/baglab) measures the same in one process, without start-up.
# Each command runs RUNS times, alternately, its output removed before
# each run; the table gives the median wall time, the median CPU time
# (user + system: on a shared machine the steadier figure), the peak RSS,
# the output's size and the ratio of the median to cat's.
#
#   testdata/bench/convert.sh [DIR]      SIZE=1050000000 RUNS=5 BAGLAB=bin/baglab
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/bench/lib.sh
DIR=$(bench_dir "${1:-/tmp/baglab-bench-convert}")
SIZE=${SIZE:-1050000000}
RUNS=${RUNS:-5}
need_time
bench_baglab
[ -s "$DIR/big.bag" ] || go run ./testdata/gen -big "$DIR/big.bag" -size "$SIZE" >/dev/null
[ -s "$DIR/big-lz4.bag" ] || "$BAGLAB" convert -q "$DIR/big.bag" "$DIR/big-lz4.bag" --compression lz4
[ -s "$DIR/scans.bag" ] || go run ./testdata/gen -big "$DIR/scans.bag" -size "$SIZE" -scans >/dev/null
ZSTD=$(command -v zstd || true)
if [ -n "$ZSTD" ]; then
	for in in big big-lz4 scans; do
		[ -s "$DIR/$in-none/$in-none_0.mcap" ] || "$BAGLAB" convert -q "$DIR/$in.bag" "$DIR/$in-none" --to ros2
	done
fi

# time_one LABEL CMD...: appends "LABEL wall_s maxrss_kb user_s sys_s" to $DIR/times
time_one() {
	local label=$1
	shift
	rm -rf "$DIR/out"
	sync # the last run's output written and freed: no writeback left to share the cores with
	/usr/bin/time -f "%e %M %U %S" -o "$DIR/t.$$" "$@" >/dev/null 2>"$DIR/err.$$" || { cat "$DIR/err.$$" >&2; exit 1; }
	echo "$label $(cat "$DIR/t.$$") $(du -sb "$DIR/out" 2>/dev/null | cut -f1)" >>"$DIR/times"
}

: >"$DIR/times"
for in in big big-lz4 scans; do
	f=$DIR/$in.bag
	for _ in $(seq "$RUNS"); do
		time_one "$in cat" "$BAGLAB" cat "$f"
		time_one "$in cp" cp "$f" "$DIR/out"
		time_one "$in convert-mcap" "$BAGLAB" convert -q "$f" "$DIR/out" --to ros2
		time_one "$in convert-mcap-zstd" "$BAGLAB" convert -q "$f" "$DIR/out" --to ros2 --compression zstd
		time_one "$in convert-sqlite3" "$BAGLAB" convert -q "$f" "$DIR/out" --to ros2 --storage sqlite3
		if [ -n "$ZSTD" ]; then
			time_one "$in zstd-1-of-none" "$ZSTD" -1 -T2 -q -c "$DIR/$in-none/$in-none_0.mcap"
			time_one "$in zstd-fast5-of-none" "$ZSTD" --fast=5 -T2 -q -c "$DIR/$in-none/$in-none_0.mcap"
		fi
	done
done
rm -rf "$DIR/out" "$DIR/t.$$" "$DIR/err.$$"

echo "inputs: big.bag $(du -hL "$DIR/big.bag" | cut -f1) (chunks stored), big-lz4.bag $(du -hL "$DIR/big-lz4.bag" | cut -f1), scans.bag $(du -hL "$DIR/scans.bag" | cut -f1) (chunks stored); $(nproc) cores"
printf '%-26s %9s %9s %8s %10s %6s\n' command "median s" "CPU s" "RSS MB" "output MB" "x cat"
median() { sort -n | awk '{t[NR]=$1} END {print t[int((NR+1)/2)]}'; }
awk '{print $1" "$2}' "$DIR/times" | awk '!seen[$0]++' | while read -r in cmd; do
	rows=$(grep "^$in $cmd " "$DIR/times")
	wall=$(awk '{print $3}' <<<"$rows" | median)
	cpu=$(awk '{print $5+$6}' <<<"$rows" | median)
	rss=$(awk '$4>m {m=$4} END {print m}' <<<"$rows")
	out=$(awk '{print $7+0}' <<<"$rows" | median)
	[ "$cmd" != cat ] || catwall=$wall
	printf '%-26s %9.2f %9.2f %8.0f %10.0f %6.2f\n' "$in $cmd" "$wall" "$cpu" "$((rss / 1024))" "$(awk -v b="$out" 'BEGIN {print b / 1e6}')" "$(awk -v a="$wall" -v c="$catwall" 'BEGIN {print a / c}')"
done
