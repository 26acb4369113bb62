#!/usr/bin/env bash
# Per-file overhead of a fleet export (issue 13 point 5): N small generated
# recordings (ROS1 bags, lz4, about 90 KB each, every one with its own
# content: testdata/bench/fleetgen) exported into one date-partitioned
# dataset with --jobs 2, against the same messages in one recording.
#
# Reports: files/s and wall time of the fleet export (--jobs 2 and --jobs
# 1) with its peak RSS (GNU time), the same export of the first 10
# recordings and both again at GOGC=100 (what the export holds must not
# grow with the number of inputs), a rerun
# (every input already in the manifest), the one-recording export of the
# same messages, the sum of N single-file exports (one process each), and
# the fixed overhead per file:
#   --jobs 2     = (fleet export --jobs 2 - one recording) / N   (the issue's
#                  figure: the export it asks for runs with --jobs 2)
#   --jobs 1     = (fleet export --jobs 1 - one recording) / N   (serial)
#   per process  = (sum of single-file runs - one recording) / N
# Goal: under 20 ms per file at --jobs 2. The load average after
# each run is printed too: on a shared machine wall times include waiting
# for a core, so compare CPU times.
#
# The outputs go to a new folder per run and are removed only after the
# last measurement: ext4 makes every file created within minutes of a mass
# deletion nearby pay for skipping the recently freed inodes (the kernel's
# recently_deleted: 0.5 ms of CPU per created file after removing a
# previous run's 50,000 files, against 0.02 ms), so do not rerun at once
# into the same DIR either.
#
#   testdata/bench/fleet.sh [DIR]     N=1000 BAGLAB=bin/baglab
set -euo pipefail
cd "$(dirname "$0")/../.."
DIR=${1:-/tmp/baglab-fleet-bench}
N=${N:-1000}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
BAGLAB=${BAGLAB:-$DIR/baglab}
if [ "$BAGLAB" = "$DIR/baglab" ]; then go build -o "$BAGLAB" ./cmd/baglab; fi
if [ ! -f "$DIR/gen-$N/all.bag" ]; then
  rm -rf "$DIR/gen-$N"
  go run ./testdata/bench/fleetgen -o "$DIR/gen-$N" -n "$N"
fi
RECS=("$DIR/gen-$N"/recs/*.bag)
BYTES=$(du -cb "${RECS[@]}" | tail -1 | cut -f1)
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "fleet.sh: GNU time (Debian time) is needed for peak RSS" >&2; exit 2; }

now() { date +%s.%N; }
# timed LABEL CMD...: runs CMD under GNU time, prints and keeps its wall
# and CPU (user + system) seconds and peak RSS.
timed() {
  local label=$1; shift
  "$TIME" -f "%e %U %S %M" -o "$DIR/time.txt" "$@" 2>"$DIR/$label.log" >/dev/null
  read -r secs user sys kb < "$DIR/time.txt"
  cpu=$(echo "$user + $sys" | bc -l)
  printf '%-34s %8.2f s wall %8.2f s CPU  %7.1f MiB peak RSS  load %s\n' "$label" "$secs" "$cpu" "$(echo "$kb / 1024" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
  eval "T_$label=$secs"
  eval "C_$label=$cpu"
}

echo "fleet export benchmark: $N recordings, $((BYTES / N / 1024)) KB each ($((BYTES >> 20)) MiB), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
OUT=$DIR/out-$$
timed first10_jobs2 "$BAGLAB" export "${RECS[@]:0:10}" --out "$OUT/ten" --partition-by date --jobs 2
timed fleet_jobs2 "$BAGLAB" export "${RECS[@]}" --out "$OUT/j2" --partition-by date --jobs 2
# export collects garbage at GOGC=400 under its soft memory limit, so its
# peak RSS is that limit's level once enough garbage has piled up; at
# GOGC=100 the peak shows what the export holds, which must not grow with N
timed first10_jobs2_gogc100 env GOGC=100 "$BAGLAB" export "${RECS[@]:0:10}" --out "$OUT/ten100" --partition-by date --jobs 2
timed fleet_jobs2_gogc100 env GOGC=100 "$BAGLAB" export "${RECS[@]}" --out "$OUT/j2g100" --partition-by date --jobs 2
timed rerun_jobs2 "$BAGLAB" export "${RECS[@]}" --out "$OUT/j2" --partition-by date --jobs 2
timed fleet_jobs1 "$BAGLAB" export "${RECS[@]}" --out "$OUT/j1" --partition-by date --jobs 1
timed one_recording "$BAGLAB" export "$DIR/gen-$N/all.bag" --out "$OUT/all" --partition-by date --jobs 1
grep -q "nothing to export" "$DIR/rerun_jobs2.log" || { echo "fleet.sh: the rerun exported something:" >&2; cat "$DIR/rerun_jobs2.log" >&2; exit 1; }

start=$(now)
i=0
for f in "${RECS[@]}"; do
  "$BAGLAB" export "$f" --out "$OUT/single/$i" --partition-by date --jobs 1 2>/dev/null
  i=$((i + 1))
done
T_single_sum=$(echo "$(now) - $start" | bc -l)
printf '%-34s %8.2f s\n' "sum of $N single-file processes" "$T_single_sum"

echo
printf 'files/s, --jobs 2:                 %8.1f\n' "$(echo "$N / $T_fleet_jobs2" | bc -l)"
printf 'files/s, --jobs 1:                 %8.1f\n' "$(echo "$N / $T_fleet_jobs1" | bc -l)"
printf 'fleet --jobs 2 / single-file sum:  %8.3f\n' "$(echo "$T_fleet_jobs2 / $T_single_sum" | bc -l)"
printf 'overhead per file, --jobs 2:       %8.2f ms wall, %.2f ms CPU  (goal < 20 ms wall)\n' "$(echo "($T_fleet_jobs2 - $T_one_recording) * 1000 / $N" | bc -l)" "$(echo "($C_fleet_jobs2 - $C_one_recording) * 1000 / $N" | bc -l)"
printf 'overhead per file, --jobs 1:       %8.2f ms wall, %.2f ms CPU\n' "$(echo "($T_fleet_jobs1 - $T_one_recording) * 1000 / $N" | bc -l)" "$(echo "($C_fleet_jobs1 - $C_one_recording) * 1000 / $N" | bc -l)"
printf 'overhead per file, per process:    %8.2f ms\n' "$(echo "($T_single_sum - $T_one_recording) * 1000 / $N" | bc -l)"
printf 'rerun (all skipped) per file:      %8.2f ms\n' "$(echo "$T_rerun_jobs2 * 1000 / $N" | bc -l)"
rm -rf "$OUT"
