#!/usr/bin/env bash
# Topic health against cat (issue 27 point 2): `analyze topics` needs only
# the log times, the header stamps and a digest of each message's bytes, so
# over the big generated recording (1 MB point clouds at 10 Hz among small
# messages: go run ./testdata/gen -big) it must take no longer than `cat`
# of it, which decodes every message into JSON. Prints the wall time and
# peak RSS of each (GNU time), best of RUNS, and fails when topics is the
# slower.
#
#   testdata/bench/topics.sh [FILE]   SIZE=2147483648 RUNS=2 BAGLAB=bin/baglab
set -euo pipefail
cd "$(dirname "$0")/../.."
FILE=${1:-/tmp/baglab-bench/big.bag}
SIZE=${SIZE:-2147483648}
RUNS=${RUNS:-2}
BAGLAB=${BAGLAB:-bin/baglab}
[ -x "$BAGLAB" ] || go build -o "$BAGLAB" ./cmd/baglab
if [ ! -s "$FILE" ]; then
	mkdir -p "$(dirname "$FILE")"
	go run ./testdata/gen -big "$FILE" -size "$SIZE"
fi
best() { # best wall time of RUNS runs of "$@" (stdout to /dev/null), and its peak RSS
	local b="" rss=""
	for _ in $(seq "$RUNS"); do
		local tf out
		tf=$(mktemp)
		/usr/bin/time -o "$tf" -f "%e %M" "$@" > /dev/null 2> /dev/null
		out=$(tail -1 "$tf")
		rm -f "$tf"
		local t=${out% *} m=${out#* }
		if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t rss=$m; fi
	done
	echo "$b $rss"
}
read -r cat_s cat_kb < <(best "$BAGLAB" cat "$FILE")
read -r top_s top_kb < <(best "$BAGLAB" analyze topics "$FILE" --json)
printf '%-16s %8s s %8s MB\n' "cat" "$cat_s" "$((cat_kb / 1024))" "analyze topics" "$top_s" "$((top_kb / 1024))"
awk "BEGIN{exit !($top_s <= $cat_s)}" || { echo "analyze topics is slower than cat" >&2; exit 1; }
