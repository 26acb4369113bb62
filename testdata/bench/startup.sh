#!/usr/bin/env bash
# Start-up cost of baglab (issue 31, point 18): the lean `baglab version` against a
# Go one-liner (fmt.Println, built here in a temporary module), and `info`
# and `cat` of a mixed bag (nested messages and point clouds, about 65 MB,
# from testdata/bench/workload, merged by baglab) against Debian's python
# rosbag doing the same (`rosbag info`'s summary through the python API, and
# rosbag_peer.py cat). Each command runs RUNS times, alternately; the table
# gives the median wall time and the median CPU time (user + system, the
# better measure on a shared machine), and the ratios.
#
#   testdata/bench/startup.sh [DIR]     RUNS=20 BAGLAB=bin/baglab
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/bench/lib.sh
DIR=$(bench_dir "${1:-/tmp/baglab-bench}")
RUNS=${RUNS:-20}
PY=/usr/bin/python3
command -v perf >/dev/null || { echo "startup.sh needs perf (linux-perf)" >&2; exit 1; }
bench_baglab
ls -l "$BAGLAB" | awk '{printf "binary: %.1f MB\n", $5 / 1e6}' >&2

ONE=$(mktemp -d)
trap 'rm -rf "$ONE"' EXIT
printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("v") }\n' >"$ONE/main.go"
(cd "$ONE" && go mod init oneliner >/dev/null 2>&1 && go build -trimpath -ldflags "-s -w" -o one .)

W() { go run ./testdata/bench/workload "$@"; }
if [ ! -s "$DIR/mixed.bag" ]; then
	[ -s "$DIR/mixed-nested.bag" ] || W -kind nested -placements 20000 -facts 2000 -o "$DIR/mixed-nested.bag"
	[ -s "$DIR/mixed-blobs.bag" ] || W -kind blobs -clouds 200 -cloud-bytes 300000 -o "$DIR/mixed-blobs.bag"
	"$BAGLAB" merge -q "$DIR/mixed.bag" "$DIR/mixed-nested.bag" "$DIR/mixed-blobs.bag"
fi
ls -l "$DIR/mixed.bag" | awk '{printf "mixed bag: %.1f MB\n", $5 / 1e6}' >&2

RES=$(mktemp -d)
trap 'rm -rf "$ONE" "$RES"' EXIT
# measure NAME CMD...: one run, "wall cpu" in seconds appended to RES/NAME,
# both from perf stat (wall from the fork to the exit: timing perf itself
# from the shell would add its own 10 ms start; CPU from the task-clock:
# /usr/bin/time's 10 ms steps cannot time a start-up).
measure() {
	local name=$1
	shift
	perf stat -e task-clock -o "$RES/p" "$@" >/dev/null 2>&1
	awk '{ gsub(",", "", $1) } /task-clock/ { c = $1 / 1e3 } /seconds time elapsed/ { w = $1 }
		END { printf "%.6f %.6f\n", w, c }' "$RES/p" >>"$RES/$name"
}
PYINFO='import rosbag, sys
b = rosbag.Bag(sys.argv[1])
i = b.get_type_and_topic_info()
print(b.get_start_time(), b.get_end_time(), b.get_message_count())
for t, v in sorted(i.topics.items()): print(t, v.msg_type, v.message_count, v.frequency)'
for _ in $(seq "$RUNS"); do
	measure one "$ONE/one"
	measure version "$BAGLAB" version
	measure info "$BAGLAB" info "$DIR/mixed.bag"
	measure rosbag-info $PY -c "$PYINFO" "$DIR/mixed.bag"
	measure cat "$BAGLAB" cat "$DIR/mixed.bag"
done
for _ in $(seq $(((RUNS + 9) / 10))); do # python's cat takes seconds: fewer runs
	measure rosbag-cat $PY testdata/bench/rosbag_peer.py cat "$DIR/mixed.bag"
done

# median NAME COLUMN
median() { sort -n -k"$2" "$RES/$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.1f ms", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3g", a / b; else print "-" }'; }
echo
echo "Medians on $(nproc) cores, $(date -u +%Y-%m-%d), RUNS=$RUNS (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
echo
echo "| command | wall | CPU | against | its wall | its CPU | wall, ours ÷ its | CPU, ours ÷ its |"
echo "|---|---|---|---|---|---|---|---|"
row() {
	local w c pw pc
	w=$(median "$1" 1) c=$(median "$1" 2) pw=$(median "$3" 1) pc=$(median "$3" 2)
	echo "| $2 | $(ms "$w") | $(ms "$c") | $4 | $(ms "$pw") | $(ms "$pc") | $(ratio "$w" "$pw") | $(ratio "$c" "$pc") |"
}
row version "baglab version" one "Go one-liner"
row info "baglab info mixed.bag" rosbag-info "python rosbag info"
row cat "baglab cat mixed.bag" rosbag-cat "python rosbag cat (rosbag_peer.py)"
