#!/usr/bin/env bash
# Speed of baglab tf (issue 27): `tf --every 10ms` over a recording against
# `cat --topics /tf,/tf_static` of it, which reads the same messages. The
# recording (testdata/bench/tfgen) has /tf at 100 Hz and 10 Hz, /tf_static,
# and 1 MB point clouds at 10 Hz for the bulk: LENGTH=120 (s) gives 1.2 GB.
# Each command runs RUNS times, alternately; the table gives the median wall
# time, the median CPU time (user + system: on a shared machine the steadier
# figure) and the peak RSS.
#
#   testdata/bench/tf.sh [DIR]       LENGTH=120 RUNS=3 BAGLAB=bin/baglab
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/bench/lib.sh
DIR=$(bench_dir "${1:-/tmp/baglab-bench-tf}")
LENGTH=${LENGTH:-120}
RUNS=${RUNS:-3}
need_time
bench_baglab
for ext in bag mcap; do
	f=$DIR/tf-$LENGTH.$ext
	[ -s "$f" ] || go run ./testdata/bench/tfgen -o "$f" -seconds "$LENGTH"
done

# time_one LABEL CMD...: appends "LABEL wall_s maxrss_kb user_s sys_s" to $DIR/times
time_one() {
	local label=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$DIR/t.$$" "$@" >/dev/null 2>"$DIR/err.$$" || { cat "$DIR/err.$$" >&2; exit 1; }
	echo "$label $(cat "$DIR/t.$$")" >>"$DIR/times"
}

: >"$DIR/times"
for ext in bag mcap; do
	f=$DIR/tf-$LENGTH.$ext
	for _ in $(seq "$RUNS"); do
		time_one "$ext cat-tf" "$BAGLAB" cat "$f" --topics /tf,/tf_static
		time_one "$ext tf-every-10ms" "$BAGLAB" tf "$f" --target map --source camera --every 10ms
		time_one "$ext tf-every-10ms-json" "$BAGLAB" tf "$f" --target map --source camera --every 10ms --json
		time_one "$ext tf-tree" "$BAGLAB" tf "$f" --tree
	done
done
rm -f "$DIR/t.$$" "$DIR/err.$$"

echo "recording: $(du -h "$DIR/tf-$LENGTH.bag" | cut -f1) bag, $(du -h "$DIR/tf-$LENGTH.mcap" | cut -f1) mcap (zstd), ${LENGTH} s, $((LENGTH * 110)) /tf messages"
printf '%-28s %10s %12s %12s\n' command "median s" "median CPU s" "peak RSS MB"
awk '{print $1" "$2}' "$DIR/times" | awk '!seen[$0]++' | while read -r ext cmd; do
	wall=$(grep "^$ext $cmd " "$DIR/times" | awk '{print $3}' | sort -n | awk '{t[NR]=$1} END {print t[int((NR+1)/2)]}')
	cpu=$(grep "^$ext $cmd " "$DIR/times" | awk '{print $5+$6}' | sort -n | awk '{t[NR]=$1} END {print t[int((NR+1)/2)]}')
	rss=$(grep "^$ext $cmd " "$DIR/times" | awk '$4>m {m=$4} END {print m}')
	printf '%-28s %10.2f %12.2f %12.0f\n' "$ext $cmd" "$wall" "$cpu" "$((rss / 1024))"
done
