#!/usr/bin/env bash
# Frames per second writing PNG files from a 1,000-frame 640x480 rgb8
# recording (issue 28): baglab media --jobs 2 against the Python script a
# user would write (Debian rosbag + cv_bridge + cv2.imwrite,
# media_peer.py), each RUNS times alternately; median wall time, frames per
# second, the ratio, and each one's peak memory (max RSS, /usr/bin/time).
# The recording is written by rosbag into DIR once and kept.
#
#   testdata/bench/media.sh [DIR]      RUNS=3 FRAMES=1000 JOBS=2 BAGLAB=bin/baglab
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/bench/lib.sh
DIR=$(bench_dir "${1:-/tmp/baglab-bench-media}")
RUNS=${RUNS:-3}
FRAMES=${FRAMES:-1000}
JOBS=${JOBS:-2}
PY=/usr/bin/python3
need_time
bench_baglab
BAG=$DIR/frames-$FRAMES.bag
if [ ! -f "$BAG" ]; then
	echo "writing $BAG ($FRAMES frames, rosbag)" >&2
	$PY testdata/bench/media_peer.py write "$BAG.tmp" "$FRAMES" && mv "$BAG.tmp" "$BAG"
fi

# run NAME CMD...: one timed run; appends "seconds maxrss_kib" to $DIR/NAME.runs
run() {
	local name=$1
	shift
	rm -rf "$DIR/out"
	/usr/bin/time -f "%e %M" -o "$DIR/time.txt" "$@" >/dev/null 2>"$DIR/$name.err" || {
		cat "$DIR/$name.err" >&2
		exit 1
	}
	n=$(find "$DIR/out" -name '*.png' | wc -l)
	[ "$n" = "$FRAMES" ] || { echo "$name wrote $n frames, want $FRAMES" >&2; exit 1; }
	cat "$DIR/time.txt" >>"$DIR/$name.runs"
}
rm -f "$DIR"/*.runs
cat "$BAG" >/dev/null # page cache warm for both
for _ in $(seq "$RUNS"); do
	run baglab "$BAGLAB" media "$BAG" --out "$DIR/out" --jobs "$JOBS" --quiet
	run python $PY testdata/bench/media_peer.py extract "$BAG" "$DIR/out"
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
b=$(cut -d' ' -f1 "$DIR/baglab.runs" | median)
p=$(cut -d' ' -f1 "$DIR/python.runs" | median)
bm=$(cut -d' ' -f2 "$DIR/baglab.runs" | sort -n | tail -1)
pm=$(cut -d' ' -f2 "$DIR/python.runs" | sort -n | tail -1)
echo "frames: $FRAMES x 640x480 rgb8 ($(du -h "$BAG" | cut -f1)), runs: $RUNS, load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-44s %8s %10s %12s\n' "" "median s" "frames/s" "max RSS MiB"
printf '%-44s %8.2f %10.1f %12d\n' "baglab media --jobs $JOBS" "$b" "$(echo "$FRAMES / $b" | bc -l)" $((bm / 1024))
printf '%-44s %8.2f %10.1f %12d\n' "python rosbag + cv_bridge + cv2.imwrite" "$p" "$(echo "$FRAMES / $p" | bc -l)" $((pm / 1024))
printf 'baglab is %.1fx faster\n' "$(echo "$p / $b" | bc -l)"
