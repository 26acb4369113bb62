#!/usr/bin/env bash
# Timing benchmark for `baglab play` (issue 8), side by side with Debian's
# C++ `rosbag play` (/usr/lib/rosbag/play) on the same lz4 bag: 10
# std_msgs/String topics at 1 kHz plus one 1 MiB sensor_msgs/PointCloud2
# topic at 10 Hz (~10 MB/s) for SECONDS. For each player at rate 1 and
# rate 5, a subscriber of ours (testdata/bench/playlat, baglab's ROS1 node,
# not rostopic) measures each message's arrival against the bag's schedule
# (anchored at the first message) and prints p50/p99/max of the timing
# error, the messages lost, and the player's peak RSS; for baglab also the
# lateness the player itself saw (send time against due time), and each
# player's CPU time. QUEUE is both
# players' --queue (100, rosbag's default, unless given). Usage:
#   testdata/bench/live_play.sh [SECONDS] [DIR] [QUEUE]
# It starts its own roscore on a free loopback port with its own ROS_HOME
# and stops only the process groups it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-30}
DIR=${2:-/tmp/baglab-bench-play}
QUEUE=${3:-100}
PY=/usr/bin/python3
mkdir -p "$DIR/home" "$DIR/log"
make -s build
go build -o "$DIR/playlat" ./testdata/bench/playlat
BAG="$DIR/load-$SECS.bag"
[ -f "$BAG" ] || "$DIR/playlat" gen -o "$BAG" -secs "$SECS"
ls -l "$BAG"

. testdata/bench/roscore.sh

: > "$DIR/results.txt"
for rate in 1 5; do
  for who in baglab rosbag; do
    label="$who-r$rate"
    start "sub-$label" "$DIR/playlat" sub -bag "$BAG" -rate "$rate" -label "$who"
    SUB=$!
    sleep 1
    case $who in
      baglab) player=(./bin/baglab play --wait-for-subscribers -d 0.5 --queue "$QUEUE" -r "$rate" "$BAG") ;;
      rosbag) player=(/usr/lib/rosbag/play -q --wait-for-subscribers -d 0.5 --queue "$QUEUE" -r "$rate" "$BAG") ;;
    esac
    echo "== $label: ${player[*]}"
    /usr/bin/time -f '%M %e %U %S' -o "$DIR/$label.rss" "${player[@]}" >"$DIR/$label.log" 2>&1 </dev/null
    while kill -0 "$SUB" 2>/dev/null; do sleep 0.2; done
    read -r rss wall usr sys < <(tail -n1 "$DIR/$label.rss")
    printf '%s  peak RSS %4d MiB  wall %5.1f s  CPU %5.1f s\n' "$(grep -v '^playlat:' "$DIR/sub-$label.log")" $((rss / 1024)) "$wall" "$(awk "BEGIN{print $usr + $sys}")" | tee -a "$DIR/results.txt"
    grep -o 'sent behind schedule.*' "$DIR/$label.log" | sed "s/^/  $label (seen by the player itself): /" | tee -a "$DIR/results.txt" || true
  done
done
echo
echo "bag: $BAG ($(du -m "$BAG" | cut -f1) MiB, lz4), $SECS s of load, --queue $QUEUE; timing error = arrival - first arrival - (log time - first log time) / rate"
cat "$DIR/results.txt"
