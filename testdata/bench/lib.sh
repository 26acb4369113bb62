# Shared by the benchmark scripts, which source it from the repository's
# root: . testdata/bench/lib.sh

# bench_dir DIR prints DIR's absolute path, made if missing.
bench_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

# bench_baglab sets BAGLAB to bin/baglab, built now (make build), unless
# it already names a build to time.
bench_baglab() {
	if [ -z "${BAGLAB:-}" ]; then
		make -s build
		BAGLAB=$PWD/bin/baglab
	fi
}

# need_time installs GNU time (/usr/bin/time: wall time, CPU time and peak
# memory of a run) where it is missing.
need_time() { [ -x /usr/bin/time ] || apt-get install -y -qq time >/dev/null; }
