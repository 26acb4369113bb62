#!/usr/bin/env bash
# What reading a recording in place on an S3 server costs, against the same
# file on local disk (issue 25): requests, bytes fetched and wall time of
# info, a one-topic cat, a 1-second window, a whole export and a whole
# partitioned export (whose manifest hashes the object as it reads it) of a
# recording of at least 1 GB. The S3 server is SeaweedFS's weed (make deps-weed), run
# on free loopback ports with a data folder of its own under DIR and stopped
# (its process alone) at the end; the recording is generated once into DIR
# (go run ./testdata/gen -big; the MCAP is its uncompressed conversion).
# SERVER=http serves DIR instead through Go's file server
# (testdata/bench/fileserve), which costs little CPU: what the run measures
# then is baglab's own cost of reading over the network; LATENCY=30ms
# delays each of its responses, as a server across a network would.
#
# WHAT picks some of the measurements (WHAT=info FILE=big.bag: a bag's info).
# Besides wall time it gives baglab's CPU time (user + system) and the CPU
# the server spent meanwhile, on the same cores.
#
#   testdata/bench/remote.sh [DIR]     SIZE=1050000000 FILE=big.mcap BAGLAB=bin/baglab WHAT="info export" SERVER=s3|http
set -euo pipefail
cd "$(dirname "$0")/../.."
. testdata/bench/lib.sh
DIR=$(bench_dir "${1:-/tmp/baglab-bench-remote}")
SIZE=${SIZE:-1050000000}
FILE=${FILE:-big.mcap}
WHAT=${WHAT:-info cat1topic window1s export exportds}
WEED=${WEED:-$HOME/.cache/baglab/weed/weed}
SERVER=${SERVER:-s3}
bench_baglab
case $SERVER in
s3)
	[ -x "$WEED" ] || make -s deps-weed
	[ -x /usr/bin/aws ] || { echo "needs Debian's AWS CLI (make deps-apt)"; exit 1; }
	;;
http) ;;
*) echo "SERVER=$SERVER: want s3 or http"; exit 2 ;;
esac

[ -f "$DIR/big.bag" ] || go run ./testdata/gen -big "$DIR/big.bag" -size "$SIZE" >/dev/null
[ "$FILE" != big.mcap ] || [ -f "$DIR/big.mcap" ] || "$BAGLAB" convert -q "$DIR/big.bag" "$DIR/big.mcap" --compression none

# startweed starts SeaweedFS with the recording in bucket bench.
startweed() {
	port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
	P=(); for _ in 1 2 3 4 5 6 7 8; do P+=("$(port)"); done
	rm -rf "$DIR/weed" && mkdir -p "$DIR/weed/data"
	cat > "$DIR/weed/s3.json" <<-JSON
	{"identities":[{"name":"bench","credentials":[{"accessKey":"bench","secretKey":"bench-secret"}],"actions":["Admin","Read","List","Write"]}]}
	JSON
	setsid "$WEED" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$DIR/weed/data" \
		-master.port="${P[0]}" -master.port.grpc="${P[1]}" -volume.port="${P[2]}" -volume.port.grpc="${P[3]}" \
		-filer -filer.port="${P[4]}" -filer.port.grpc="${P[5]}" -s3 -s3.port="${P[6]}" -s3.port.grpc="${P[7]}" \
		-s3.config="$DIR/weed/s3.json" -s3.port.iceberg=0 -s3.port.lance=0 -master.volumeSizeLimitMB=1024 -volume.max=0 \
		${WEED_ARGS:-} >"$DIR/weed/log" 2>&1 &
	SERVER_PID=$!
	stop() {
		kill -TERM -- -"$SERVER_PID" 2>/dev/null || true
		# weed takes up to ~20 s to stop; a next run must not share the
		# cores with it, so wait (then KILL what is left of its group)
		for _ in $(seq 60); do kill -0 -- -"$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
		kill -KILL -- -"$SERVER_PID" 2>/dev/null || true
		for p in "${P[@]}"; do rm -f /tmp/seaweedfs-*-"$p".sock; done # weed's sockets, by its ports
	}
	trap stop EXIT
	export AWS_ENDPOINT_URL=http://127.0.0.1:${P[6]} AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret \
		AWS_REGION=us-east-1 AWS_EC2_METADATA_DISABLED=true
	AWS=(/usr/bin/aws --endpoint-url "$AWS_ENDPOINT_URL")
	for _ in $(seq 120); do "${AWS[@]}" s3 ls >/dev/null 2>&1 && break; sleep 1; done
	"${AWS[@]}" s3 ls s3://bench >/dev/null 2>&1 || "${AWS[@]}" s3 mb s3://bench
	for _ in $(seq 60); do "${AWS[@]}" s3 cp --only-show-errors "$DIR/$FILE" "s3://bench/$FILE" && break; sleep 1; done
	URL=s3://bench/$FILE
}

# startfiles starts Go's file server over DIR.
startfiles() {
	go build -o "$DIR/fileserve" ./testdata/bench/fileserve
	setsid "$DIR/fileserve" -latency "${LATENCY:-0s}" "$DIR" >"$DIR/fileserve.url" 2>"$DIR/fileserve.log" &
	SERVER_PID=$!
	trap 'kill -TERM -- -"$SERVER_PID" 2>/dev/null || true' EXIT
	for _ in $(seq 50); do [ -s "$DIR/fileserve.url" ] && break; sleep 0.1; done
	URL=$(cat "$DIR/fileserve.url")/$FILE
}

if [ "$SERVER" = s3 ]; then startweed; else startfiles; fi
LOCAL=$DIR/$FILE
BYTES=$(stat -L -c %s "$LOCAL")
TOPIC=$("$BAGLAB" info --json "$LOCAL" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(max(d["topics"], key=lambda t: t["message_count"])["topic"])')
declare -A CMD=(
	[info]="info"
	[cat1topic]="cat --topics $TOPIC"
	[window1s]="cat --start +30s --end +31s"
	[export]="export --out @OUT"
	[exportds]="export --partition-by source --out @OUT"
)
now() { date +%s.%N; }
# servercpu: the CPU seconds the server has used so far (it shares the
# cores with baglab: what it spends serving is CPU the export lacks).
servercpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15 + $16 + $17) / hz }' /proc/"$SERVER_PID"/stat; }
printf '%-10s %12s %12s %14s %9s %9s %7s %11s %11s %11s\n' what requests bytes "% of file" "local s" "$SERVER s" ratio \
	"local cpu" "$SERVER cpu" "server cpu"
for what in $WHAT; do
	for where in local remote; do
		src=$LOCAL; [ $where = remote ] && src=$URL
		out=$DIR/out-$where; rm -rf "$out"
		args=${CMD[$what]//@OUT/$out}
		# The previous run's output (an export writes about 1 GB) is still
		# going to disk: flush it first, or its writeback slows this run.
		sync
		w0=$(servercpu)
		t0=$(now)
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S' -o "$DIR/$what-$where.cpu" "$BAGLAB" $args --stats "$src" >/dev/null 2>"$DIR/$what-$where.err" ||
			{ cat "$DIR/$what-$where.err"; exit 1; }
		t1=$(now)
		w1=$(servercpu)
		eval "T_$where=$(echo "$t1 - $t0" | bc)"
		eval "C_$where=$(awk '{ print $1 + $2 }' "$DIR/$what-$where.cpu")"
		eval "W_$where=$(echo "$w1 - $w0" | bc)"
	done
	line=$(grep "stats: $URL" "$DIR/$what-remote.err" || true)
	req=$(sed -n 's/.*: \([0-9]*\) requests.*/\1/p' <<<"$line")
	got=$(sed -n 's/.*), \([0-9]*\) of .*/\1/p' <<<"$line")
	printf '%-10s %12s %12s %13.3f%% %9.2f %9.2f %7.2f %11.2f %11.2f %11.2f\n' "$what" "$req" "$got" \
		"$(echo "100 * $got / $BYTES" | bc -l)" "$T_local" "$T_remote" "$(echo "$T_remote / $T_local" | bc -l)" \
		"$C_local" "$C_remote" "$W_remote"
done
echo "file: $FILE, $BYTES bytes; one topic: $TOPIC"
