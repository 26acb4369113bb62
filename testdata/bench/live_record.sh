#!/usr/bin/env bash
# Load benchmark for `baglab record` (issue 8), side by side with the real
# `rosbag record` (Debian's C++ recorder) on the same load: 10 topics of
# small std_msgs/String at 1 kHz each plus one ~10 MB/s
# sensor_msgs/PointCloud2 topic (1 MiB clouds of incompressible data at
# 10 Hz) for 30 s, both recorders writing lz4 bags at once. Prints, per
# topic, the publisher's count against each recorder's, and each
# recorder's peak RSS and CPU time. Usage:
#   testdata/bench/live_record.sh [SECONDS] [DIR]
# With APART=1 the two recorders take the load one after the other (each
# alone on the machine) instead of at once.
# With SWEEP="MB/s ..." it instead records 1 MiB clouds alone at each
# rate (publisher queue 100, rosnode's default), one recorder at a time:
# baglab record into an uncompressed bag, an lz4 bag and an lz4 MCAP, and
# rosbag record into an uncompressed and an lz4 bag, each with its default
# --buffsize, and prints per run the messages lost (by the publisher's
# queue or the recorder), CPU-seconds per recorded GB, peak RSS and the
# machine's load average as the run ended.
# It starts its own roscore on a free loopback port with its own ROS_HOME
# and stops only the process groups it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
SECS=${1:-30}
DIR=${2:-/tmp/baglab-bench-record}
PY=/usr/bin/python3
rm -rf "$DIR" && mkdir -p "$DIR/home" "$DIR/log"
make -s build
go build -o "$DIR/loadpub" ./testdata/bench/loadpub

GRACE=2
. testdata/bench/roscore.sh

$PY -c 'from sensor_msgs.msg import PointCloud2 as P; open("'"$DIR"'/cloud.def","w").write(P._full_text)'
TOPICS=(/points $(for i in $(seq 0 9); do echo /small_$i; done))

if [ -n "${SWEEP:-}" ]; then
  printf "%7s %-7s %-9s %9s %9s %6s %9s %9s %6s\n" MB/s who format published recorded lost% CPU-s/GB peakMiB load1
  for mbs in $SWEEP; do
    for run in "baglab bag none" "baglab bag lz4" "baglab mcap lz4" "rosbag bag none" "rosbag bag lz4"; do
      set -- $run; who=$1 ext=$2 comp=$3
      out="$DIR/sweep.$ext"; rm -f "$out" "$DIR/sweep.rss"
      flags=(); [ "$comp" = lz4 ] && flags=(--lz4)
      if [ "$who" = baglab ]; then
        start rec /usr/bin/time -f '%M %U %S' -o "$DIR/sweep.rss" ./bin/baglab record -q "${flags[@]}" -O "$out" /points
      else
        # The C++ recorder itself: the rosbag front end's own rusage
        # would not include it.
        start rec /usr/bin/time -f '%M %U %S' -o "$DIR/sweep.rss" /usr/lib/rosbag/record "${flags[@]}" -O "$out" /points
      fi
      g=${PGIDS[-1]}
      hz=$($PY -c "print($mbs * 1e6 / (1 << 20))")
      "$DIR/loadpub" -duration "${SECS}s" -topics 0 -queue 100 -cloud-hz "$hz" -cloud-def "$DIR/cloud.def" >"$DIR/published.txt" 2>"$DIR/loadpub.log"
      sleep 2; kill -INT -- "-$g"
      for _ in $(seq 300); do [ -s "$DIR/sweep.rss" ] && break; sleep 0.2; done
      sleep 1
      pub=$(awk '$2=="/points"{print $3}' "$DIR/published.txt")
      rec=$(./bin/baglab info --json "$out" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(sum(t["message_count"] for t in d["topics"] if t["topic"]=="/points"))')
      read -r rss usr sys_ < <(tail -1 "$DIR/sweep.rss")
      read -r load1 _ < /proc/loadavg
      $PY -c "
pub, rec, rss, cpu = $pub, $rec, $rss, $usr + $sys_
gb = rec * ((1 << 20) + 111) / 1e9
print('%7s %-7s %-9s %9d %9d %6.2f %9.2f %9d %6s' % ('$mbs', '$who', '$ext/$comp', pub, rec, 100.0 * (pub - rec) / max(pub, 1), cpu / max(gb, 1e-9), rss // 1024, '$load1'))"
    done
  done
  exit 0
fi

# run_load PGID...: publish to the recorders whose process groups are given,
# then stop them (SIGINT to each group) and wait for their RSS files.
run_load() {
  local subs=$#
  echo "publishing for $SECS s to $subs recorder(s) ..."
  "$DIR/loadpub" -duration "${SECS}s" -subs "$subs" -cloud-def "$DIR/cloud.def" >"$DIR/published.txt" 2>"$DIR/loadpub.log"
  sleep 2
  for g in "$@"; do kill -INT -- "-$g"; done
  for _ in $(seq 300); do
    local all=1
    for w in "${WHO[@]}"; do [ -s "$DIR/$w.rss" ] || all=0; done
    [ $all = 1 ] && break; sleep 0.2
  done
}
start_baglab() { start baglab /usr/bin/time -f '%M %U %S' -o "$DIR/baglab.rss" ./bin/baglab record -q --lz4 -o "$DIR/baglab.bag" "${TOPICS[@]}"; }
start_rosbag() { start rosbag /usr/bin/time -f '%M %U %S' -o "$DIR/rosbag.rss" rosbag record --lz4 -O "$DIR/rosbag.bag" "${TOPICS[@]}"; }
if [ "${APART:-0}" = 1 ]; then
  WHO=(baglab); start_baglab; run_load "${PGIDS[-1]}"; mv "$DIR/published.txt" "$DIR/published-baglab.txt"
  WHO=(rosbag); start_rosbag; run_load "${PGIDS[-1]}"; mv "$DIR/published.txt" "$DIR/published-rosbag.txt"
else
  WHO=(baglab rosbag); start_baglab; start_rosbag; run_load "${PGIDS[-2]}" "${PGIDS[-1]}"
  cp "$DIR/published.txt" "$DIR/published-baglab.txt"; mv "$DIR/published.txt" "$DIR/published-rosbag.txt"
fi

$PY - "$DIR" <<'PY'
import sys, rosbag
d = sys.argv[1]
def published(who):
    out = {}
    for line in open("%s/published-%s.txt" % (d, who)):
        _, topic, n, drops = line.split()
        out[topic] = (int(n), int(drops))
    return out
pubs = {w: published(w) for w in ("baglab", "rosbag")}
pub = pubs["baglab"]
counts = {}
for who in ("baglab", "rosbag"):
    with rosbag.Bag("%s/%s.bag" % (d, who)) as b:
        info = b.get_type_and_topic_info().topics
        counts[who] = {t: info[t].message_count if t in info else 0 for t in pub}
    counts[who + "_size"] = __import__("os").path.getsize("%s/%s.bag" % (d, who))
res = {w: open("%s/%s.rss" % (d, w)).read().split()[-3:] for w in ("baglab", "rosbag")}
rss = {w: int(v[0]) // 1024 for w, v in res.items()}
cpu = {w: float(v[1]) + float(v[2]) for w, v in res.items()}
print("%-10s %10s %10s %8s %10s %10s %8s" % ("topic", "published", "baglab", "lost", "published", "rosbag", "lost"))
tot = [0, 0, 0, 0]
for t in sorted(pub):
    n, nb = pubs["baglab"][t][0], pubs["rosbag"][t][0]
    a, b = counts["baglab"][t], counts["rosbag"][t]
    tot[0] += n; tot[1] += a; tot[2] += nb; tot[3] += b
    print("%-10s %10d %10d %8d %10d %10d %8d" % (t, n, a, n - a, nb, b, nb - b))
print("%-10s %10d %10d %8d %10d %10d %8d" % ("total", tot[0], tot[1], tot[0] - tot[1], tot[2], tot[3], tot[2] - tot[3]))
print("publisher-side drops: %d" % sum(v[1] for p in pubs.values() for v in p.values()))
print("peak RSS: baglab record %d MiB, rosbag record %d MiB" % (rss["baglab"], rss["rosbag"]))
print("CPU (user+sys): baglab record %.1f s, rosbag record %.1f s" % (cpu["baglab"], cpu["rosbag"]))
print("bag size: baglab %.1f MB, rosbag %.1f MB" % (counts["baglab_size"] / 1e6, counts["rosbag_size"] / 1e6))
PY
grep -h "dropped\|buffer" "$DIR/baglab.log" "$DIR/rosbag.log" | head -5 || true
