#!/usr/bin/env bash
# Side-by-side: `loadlab origin` vs nginx (one worker) serving the same sizes.
#
#   bench/origin.sh            # RUNS=3 DUR=10s CONNS=50
#
# Server (either) pinned to CPU 0, wrk pinned to CPU 1, interleaved runs,
# medians printed with the ratio loadlab/nginx. Then the latency check:
# a 100 ms route, 10,000 keep-alive connections, 2,000 requests/s open-model
# (crates/origin/examples/open_load.rs, latency from the intended send time).
#
# Env: BUILD (0: use the binaries already built), RUNS, DUR, CONNS, SIZES ("100b 50kb 200kb"), SLOW_CONNS (10000),
#      SLOW_RATE (2000), SLOW_DUR (20), SLOW_SIZE (50kb), CARGO_TARGET_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-3}"
DUR="${DUR:-10s}"
CONNS="${CONNS:-50}"
SIZES="${SIZES:-100b 50kb 200kb}"
SLOW_CONNS="${SLOW_CONNS:-10000}"
SLOW_RATE="${SLOW_RATE:-2000}"
SLOW_DUR="${SLOW_DUR:-20}"
SLOW_SIZE="${SLOW_SIZE:-50kb}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
LOADLAB="$TARGET/dist/loadlab"
NGINX_PORT=18481
ORIGIN_PORT=18482

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "installing $2 ..." >&2
  (apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }) ||
    { echo "cannot install $2" >&2; exit 1; }
}
need wrk wrk
command -v nginx >/dev/null 2>&1 || need nginx nginx-light || need nginx nginx
need taskset util-linux
need python3 python3
need curl curl

EXAMPLE="$TARGET/dist/examples/origin_serve"
OPEN_LOAD="$TARGET/dist/examples/open_load"
if [ "${BUILD:-1}" != 0 ]; then
  (cd "$ROOT" && cargo build --profile dist -p loadlab-origin --examples >&2)
fi
if [ "${BUILD:-1}" = 0 ]; then
  # BUILD=0: use what is built, preferring the loadlab binary.
  if [ -x "$LOADLAB" ]; then ORIGIN_CMD=("$LOADLAB" origin --workers 1 --recipe); else ORIGIN_CMD=("$EXAMPLE"); fi
elif echo "building loadlab (dist) ..." >&2 && (cd "$ROOT" && cargo build --profile dist -p loadlab --features full >&2); then
  ORIGIN_CMD=("$LOADLAB" origin --workers 1 --recipe)
else
  # The CLI crate may be mid-change; the origin library alone is what is measured.
  echo "loadlab did not build; measuring the origin library through examples/origin_serve" >&2
  ORIGIN_CMD=("$EXAMPLE")
fi

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
WORK="$(mktemp -d)"
chmod 755 "$WORK"
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

bytes_of() { # 100b / 50kb / 2mb -> bytes
  local s="${1,,}"
  case "$s" in
    *kb) echo $(( ${s%kb} * 1024 )) ;;
    *mb) echo $(( ${s%mb} * 1024 * 1024 )) ;;
    *b) echo "${s%b}" ;;
  esac
}

# --- content: the same sizes for both servers ---------------------------------
mkdir -p "$WORK/www"
RECIPES="["
sep=""
for s in $SIZES; do
  n="$(bytes_of "$s")"
  (set +o pipefail; head -c $(( n * 2 )) /dev/urandom | base64 -w0 | head -c "$n") > "$WORK/www/$s"
  RECIPES+="$sep{\"route\":\"/$s\",\"random_content\":\"$s\",\"stages\":[{\"at\":0,\"status\":200,\"latency\":0}]}"
  sep=","
done
RECIPES+=",{\"route\":\"/slow\",\"random_content\":\"$SLOW_SIZE\",\"stages\":[{\"at\":0,\"status\":200,\"latency\":\"100ms\"}]}]"
echo "$RECIPES" > "$WORK/recipes.json"
chmod -R a+rX "$WORK/www"

cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
worker_rlimit_nofile 20000;
events { worker_connections 20000; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 100000000;
  keepalive_timeout 60s;
  default_type text/html;
  client_body_temp_path $WORK/tmp;
  proxy_temp_path $WORK/tmp;
  fastcgi_temp_path $WORK/tmp;
  uwsgi_temp_path $WORK/tmp;
  scgi_temp_path $WORK/tmp;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $WORK/www;
    location / { }
  }
}
CONF
mkdir -p "$WORK/tmp"

wait_port() {
  for _ in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "nothing listens on port $1" >&2
  exit 1
}

taskset -c 0 nginx -c "$WORK/nginx.conf" -p "$WORK" &
PIDS+=($!)
if [ "${ORIGIN_CMD[0]}" = "$LOADLAB" ]; then
  taskset -c 0 "${ORIGIN_CMD[@]}" "$WORK/recipes.json" --listen "127.0.0.1:$ORIGIN_PORT" 2>"$WORK/origin.log" &
else
  taskset -c 0 "${ORIGIN_CMD[@]}" "127.0.0.1:$ORIGIN_PORT" "$WORK/recipes.json" 1 2>"$WORK/origin.log" &
fi
PIDS+=($!)
wait_port "$NGINX_PORT"
wait_port "$ORIGIN_PORT"

rps() { # url -> requests/s from wrk
  taskset -c 1 wrk -t1 -c"$CONNS" -d"$DUR" "$1" 2>&1 | awk '/^Requests\/sec:/ {print $2} /Non-2xx|Socket errors/ {print > "/dev/stderr"}'
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }

declare -A NG LL
for run in $(seq 1 "$RUNS"); do
  for s in $SIZES; do
    # Quick check that both serve the same length before timing.
    if [ "$run" = 1 ]; then
      a=$(curl -s "http://127.0.0.1:$NGINX_PORT/$s" | wc -c)
      b=$(curl -s "http://127.0.0.1:$ORIGIN_PORT/$s" | wc -c)
      [ "$a" = "$b" ] || { echo "size mismatch for $s: nginx $a, loadlab $b" >&2; exit 1; }
    fi
    # Alternate who goes first, so neither always runs on a warmer machine.
    if [ $(( run % 2 )) = 1 ]; then
      n=$(rps "http://127.0.0.1:$NGINX_PORT/$s")
      l=$(rps "http://127.0.0.1:$ORIGIN_PORT/$s")
    else
      l=$(rps "http://127.0.0.1:$ORIGIN_PORT/$s")
      n=$(rps "http://127.0.0.1:$NGINX_PORT/$s")
    fi
    NG[$s]+="$n "
    LL[$s]+="$l "
    echo "run $run $s: nginx $n req/s, loadlab $l req/s" >&2
  done
done

echo
echo "wrk -t1 -c$CONNS -d$DUR, server on CPU 0 (one worker), wrk on CPU 1; medians of $RUNS runs"
printf "%-8s %14s %14s %8s\n" size "nginx req/s" "loadlab req/s" ratio
for s in $SIZES; do
  n=$(echo ${NG[$s]} | tr ' ' '\n' | median)
  l=$(echo ${LL[$s]} | tr ' ' '\n' | median)
  printf "%-8s %14s %14s %8s\n" "$s" "$n" "$l" "$(awk -v a="$l" -v b="$n" 'BEGIN {printf "%.2f", a/b}')"
done

echo
echo "latency check: /slow ($SLOW_SIZE, latency 100ms), $SLOW_CONNS connections, $SLOW_RATE req/s open model, ${SLOW_DUR}s"
taskset -c 1 "$OPEN_LOAD" "http://127.0.0.1:$ORIGIN_PORT/slow" "$SLOW_CONNS" "$SLOW_RATE" "$SLOW_DUR"
echo "server's own view (request parsed to response head queued):"
curl -s "http://127.0.0.1:$ORIGIN_PORT/_admin/stats" | python3 -c '
import json,sys
for r in json.load(sys.stdin)["routes"]:
    if r["route"] == "/slow":
        print(json.dumps({"by_status": r["by_status"], "latency_ms": r["latency_ms"]}))'
