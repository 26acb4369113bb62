# Sourced by the live_*.sh benchmarks, after they set DIR (with DIR/home
# and DIR/log made) and PY: starts a roscore of their own on a free
# loopback port with ROS_HOME and ROS_LOG_DIR under DIR, and waits for it.
# `start NAME CMD...` runs a peer in its own process group (output to
# DIR/NAME.log; its pid, also its group, in $!). On exit every group started
# gets SIGINT, then SIGKILL after GRACE seconds (default 1): only the
# processes the benchmark started are stopped.
PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export ROS_MASTER_URI=http://127.0.0.1:$PORT/ ROS_IP=127.0.0.1 ROS_HOME=$DIR/home ROS_LOG_DIR=$DIR/log PYTHONUNBUFFERED=1
unset ROS_HOSTNAME ROS_NAMESPACE

PGIDS=()
start() { # start NAME CMD...: run CMD in its own process group
  local name=$1; shift
  setsid "$@" >"$DIR/$name.log" 2>&1 &
  PGIDS+=($!)
}
cleanup() { for g in "${PGIDS[@]}"; do kill -INT -- "-$g" 2>/dev/null || true; done; sleep "${GRACE:-1}"
            for g in "${PGIDS[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done; }
trap cleanup EXIT

start roscore roscore -p "$PORT"
for _ in $(seq 100); do rostopic list >/dev/null 2>&1 && break; sleep 0.2; done
