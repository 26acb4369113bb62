#!/usr/bin/env bash
# Speed and memory of baglab side by side with the best peers, in one run on
# this machine (issue 14). Peers: github.com/foxglove/go-rosbag v0.0.7 with its
# ros1msg JSON transcoder and foxglove/mcap's Go reader (built from the Go
# module proxy in a temporary module outside the repository: peers.go.txt),
# Debian's python rosbag (rosbag_peer.py) and Weka 3.6's EM
# (analysis/testdata/weka/EMModelPeer.java). Workloads are generated into DIR
# once and kept: 1M geometry_msgs/PointStamped in an lz4 bag written by
# rosbag itself, a nested-message bag (40k PlacementSet + 4k FactList, its
# 120k placements in 5 groups), a blob bag (200 x 300 KB point clouds), their
# MCAP conversions, one 1,500-point placement group (and one of 4,800 for
# Weka), 24k placements (5 x 4,800), and for memory a 2 GiB generated bag.
#
# Each fast command runs RUNS times, baglab and its peers alternately; slow
# peers (python, Weka on 4,800 points) SLOW_RUNS times. The table gives the
# median wall time, the figure of the issue ("today") and the ratio.
#
#   testdata/bench/compare.sh [DIR]     RUNS=3 SLOW_RUNS=1 MEMORY=1 BAGLAB=bin/baglab
#   TABLE_ONLY=1 testdata/bench/compare.sh [DIR]   the tables of the last run
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/bench/lib.sh
ROOT=$PWD
DIR=$(bench_dir "${1:-/tmp/baglab-bench}")
RUNS=${RUNS:-3}
SLOW_RUNS=${SLOW_RUNS:-1}
MEMORY=${MEMORY:-1}
PY=/usr/bin/python3
RES=$DIR/results
TABLE_ONLY=${TABLE_ONLY:-0} # 1: print the tables of the last run in DIR
[ "$TABLE_ONLY" = 1 ] || { rm -rf "$RES" && mkdir -p "$RES"; }
need_time

[ "$TABLE_ONLY" = 1 ] || bench_baglab # BAGLAB=path times another build

if [ "$TABLE_ONLY" != 1 ]; then
echo "== peers (temporary module, Go module proxy)" >&2
PEERDIR=$(mktemp -d)
trap 'rm -rf "$PEERDIR"' EXIT
cp testdata/bench/peers.go.txt "$PEERDIR/main.go"
MCAPV=$(go list -m -f '{{.Version}}' github.com/foxglove/mcap/go/mcap)
(
	cd "$PEERDIR"
	go mod init baglab-bench-peers >/dev/null 2>&1
	go get github.com/foxglove/go-rosbag@v0.0.7 "github.com/foxglove/mcap/go/mcap@$MCAPV" >/dev/null 2>&1
	go mod tidy >/dev/null 2>&1
	go build -o peers .
)
PEERS=$PEERDIR/peers

echo "== workloads in $DIR" >&2
W() { go run ./testdata/bench/workload "$@"; }
[ -s "$DIR/points.bag" ] || $PY testdata/bench/rosbag_peer.py points "$DIR/points.bag" 1000000
[ -s "$DIR/nested.bag" ] || W -kind nested -placements 120000 -facts 4000 -o "$DIR/nested.bag"
[ -s "$DIR/blobs.bag" ] || W -kind blobs -clouds 200 -cloud-bytes 300000 -o "$DIR/blobs.bag"
[ -s "$DIR/group1500.bag" ] || W -kind group -placements 1500 -o "$DIR/group1500.bag"
[ -s "$DIR/group4800.bag" ] || W -kind group -placements 4800 -o "$DIR/group4800.bag"
[ -s "$DIR/p24k.bag" ] || W -kind nested -placements 24000 -facts 800 -o "$DIR/p24k.bag"
for b in points nested blobs; do
	[ -s "$DIR/$b.mcap" ] || "$BAGLAB" convert "$DIR/$b.bag" "$DIR/$b.mcap" 2>/dev/null
done
ls -l "$DIR"/*.bag "$DIR"/*.mcap >&2
fi

# run LABEL CMD...: one timed run (stdout discarded); wall seconds, peak
# RSS (KiB) and CPU seconds (user + system) are appended to $RES/LABEL.t,
# .m and .c.
run() {
	local label=$1
	shift
	if ! /usr/bin/time -f '%e %M %U %S' -o "$RES/.time" "$@" >/dev/null 2>"$RES/.err"; then
		echo "FAILED: $label: $*" >&2
		tail -n 5 "$RES/.err" >&2
		return 0
	fi
	read -r secs kb user sys <"$RES/.time"
	echo "$secs" >>"$RES/$label.t"
	echo "$kb" >>"$RES/$label.m"
	awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }' >>"$RES/$label.c"
}
export_to() { rm -rf "$DIR/out"; run "$1" "$BAGLAB" export "$2" --out "$DIR/out" -q; }
weka() { run "$1" sh -c "cd '$ROOT/analysis' && java -cp /usr/share/java/weka.jar testdata/weka/EMModelPeer.java < '$2'"; }
median() { # LABEL [EXT]: median of the wall times (or of .EXT)
	local f=$RES/$1.${2:-t}
	[ -s "$f" ] && sort -n "$f" | awk '{a[NR]=$1} END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}' || printf -- "-"
}
peak() { [ -s "$RES/$1.m" ] && sort -n "$RES/$1.m" | tail -n1 | awk '{printf "%d", $1/1024}' || printf -- "-"; }

if [ "$TABLE_ONLY" != 1 ]; then
echo "== timing ($RUNS runs, slow peers $SLOW_RUNS)" >&2
for r in $(seq "$RUNS"); do
	echo "   round $r" >&2
	for b in points nested blobs; do
		for f in bag mcap; do
			run "cat-$b-$f" "$BAGLAB" cat "$DIR/$b.$f"
			if [ $f = bag ]; then
				run "rosbag-json-$b" "$PEERS" rosbag-json "$DIR/$b.bag"
				run "rosbag-read-$b" "$PEERS" rosbag-read "$DIR/$b.bag"
			else
				run "mcap-json-$b" "$PEERS" mcap-json "$DIR/$b.mcap"
				run "mcap-read-$b" "$PEERS" mcap-read "$DIR/$b.mcap"
			fi
			export_to "export-$b-$f" "$DIR/$b.$f"
		done
	done
	run "learn-1500" "$BAGLAB" analyze placements "$DIR/group1500.bag"
	weka "weka-1500" "$DIR/group1500.txt"
	run "learn-24k" "$BAGLAB" analyze placements "$DIR/p24k.bag"
	run "learn-120k" "$BAGLAB" analyze placements "$DIR/nested.bag"
done
for r in $(seq "$SLOW_RUNS"); do
	run "python-columns-points" $PY testdata/bench/rosbag_peer.py columns "$DIR/points.bag"
	run "python-cat-nested" $PY testdata/bench/rosbag_peer.py cat "$DIR/nested.bag"
	weka "weka-4800" "$DIR/group4800.txt"
done
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || a == 0) print "-"; else printf "%.1fx", b / a }'; }
row() { # workload, baglab label, today, peer name, peer label, peer today
	local a b
	a=$(median "$2")
	b=$(median "$5")
	printf '| %s | %s s | %s s | %s | %s | %s s | %s s | %s | %s | %s |\n' "$1" "$a" "$(median "$2" c)" "$3" "$4" "$b" "$(median "$5" c)" "$6" \
		"$(ratio "$a" "$b")" "$(ratio "$(median "$2" c)" "$(median "$5" c)")"
}
erow() { # workload, label suffix, export today, cat today
	local e c
	e=$(median "export-$2")
	c=$(median "cat-$2")
	printf '| %s | %s s | %s s | %s | %s s | %s s | %s | %s | %s | %s |\n' "$1" "$e" "$(median "export-$2" c)" "$3" "$c" "$(median "cat-$2" c)" "$4" \
		"$(awk -v a="$e" -v b="$c" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
		"$(awk -v a="$(median "export-$2" c)" -v b="$(median "cat-$2" c)" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
		"$(awk -v a="$(median "export-$2" c)" -v b="$c" -v n="$(nproc)" 'BEGIN { if (b > 0) printf "%.2f", a / n / b; else print "-" }')"
}
{
	echo
	echo "Medians of wall time on $(nproc) cores, $(date -u +%Y-%m-%d), RUNS=$RUNS (load average at the end: $(cut -d' ' -f1-3 /proc/loadavg));"
	echo "CPU is user + system time (the better measure on a shared machine). \"today\" is the issue's figure"
	echo "(its nested and blob rows were one mixed 65 MB bag)."
	echo
	echo "| workload | baglab | CPU | today | peer | peer time | peer CPU | peer today | peer / baglab | CPU ratio |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	row "1M PointStamped bag: cat" cat-points-bag "0.66 s" "go-rosbag + ros1msg JSON" rosbag-json-points "2.24 s"
	row "1M PointStamped bag: cat" cat-points-bag "0.66 s" "go-rosbag read only" rosbag-read-points "0.84 s"
	row "1M PointStamped bag: export" export-points-bag "1.53 s" "python rosbag into columns" python-columns-points "19.3 s"
	row "1M PointStamped MCAP: cat" cat-points-mcap "" "mcap reader + ros1msg JSON" mcap-json-points ""
	row "1M PointStamped MCAP: cat" cat-points-mcap "" "mcap reader read only" mcap-read-points ""
	row "nested bag: cat" cat-nested-bag "0.56 s" "go-rosbag + ros1msg JSON" rosbag-json-nested "1.06 s"
	row "nested bag: cat" cat-nested-bag "0.56 s" "go-rosbag read only" rosbag-read-nested "0.16 s"
	row "nested bag: cat" cat-nested-bag "0.56 s" "python rosbag json.dumps" python-cat-nested ""
	row "nested MCAP: cat" cat-nested-mcap "" "mcap reader + ros1msg JSON" mcap-json-nested ""
	row "blob bag: cat" cat-blobs-bag "" "go-rosbag + ros1msg JSON" rosbag-json-blobs ""
	row "blob bag: cat" cat-blobs-bag "" "go-rosbag read only" rosbag-read-blobs ""
	row "blob MCAP: cat" cat-blobs-mcap "" "mcap reader + ros1msg JSON" mcap-json-blobs ""
	row "1,500-point group: analyze placements" learn-1500 "12.1 s" "Weka 3.6 EM (Java peer)" weka-1500 "22.4 s"
	row "24k placements (5 x 4,800): analyze placements" learn-24k "10.5 min" "Weka, one group of 4,800" weka-4800 "93 s"
	row "120k placements (5 x 24k): analyze placements" learn-120k "> 20 min" "-" none ""
	echo
	echo "| export (Parquet) | export | CPU | today | cat | cat CPU | today | export / cat (goal <= 1.3) | CPU ratio | floor on $(nproc) cores |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	erow "1M PointStamped bag" points-bag "1.53 s" "0.66 s"
	erow "1M PointStamped MCAP" points-mcap "" ""
	erow "nested bag" nested-bag "2.2-2.4 s" "0.56 s"
	erow "nested MCAP" nested-mcap "" ""
	erow "blob bag" blobs-bag "" ""
	erow "blob MCAP" blobs-mcap "" ""
	echo
	echo "floor: export CPU / cores / cat wall, the export / cat ratio an export spread perfectly over every"
	echo "core would reach with the CPU it spends."
} | tee "$DIR/compare.md"

if [ "$MEMORY" = 1 ]; then
	BIG=$DIR/big-2GiB.bag
	if [ "$TABLE_ONLY" != 1 ]; then
		[ -s "$BIG" ] || go run ./testdata/gen -big "$BIG" -size 2147483648
		run mem-info "$BAGLAB" info "$BIG"
		run mem-rosbag-info $PY /usr/bin/rosbag info "$BIG"
		run mem-cat "$BAGLAB" cat "$BIG"
		export_to mem-export "$BIG"
		run mem-export-csv sh -c "rm -rf '$DIR/out' && '$BAGLAB' export '$BIG' --out '$DIR/out' --format csv -q"
		run mem-analyze "$BAGLAB" analyze all "$BIG"
		rm -rf "$DIR/out"
	fi
	{
		echo
		echo "2 GiB generated bag ($(stat -c %s "$BIG") bytes): wall time and peak RSS (goal <= 300 MiB)"
		echo
		echo "| command | wall | CPU | peak RSS |"
		echo "|---|---|---|---|"
		for c in info rosbag-info cat export export-csv analyze; do
			printf '| %s | %s s | %s s | %s MiB |\n' "$c" "$(median "mem-$c")" "$(median "mem-$c" c)" "$(peak "mem-$c")"
		done
	} | tee -a "$DIR/compare.md"
fi
