#!/usr/bin/env bash
# Where a k6 script's client CPU per request goes: the work itself, or the
# wake-ups. Runs bench/scripts/pubsub_like.k6.js (the DSPS pub/sub k6
# script's requests and JavaScript, no waits of its own) against nginx answering at once, under
# k6 and `loadlab k6 run`, alternating, server on CPU 0 and client on CPU 1:
#
#   busy:  VUS=20, no sleep: the client never idles (CPU/request = the work);
#   idle:  VUS=200, each VU sleeping ~1.7 s after its three requests
#          (≈350 req/s, DSPS's rate at CHANNELS=50): the client idles between
#          responses and pays a wake-up for nearly each one.
#
#   bash bench/k6_wake.sh [LOADLAB_BIN] [REPS]
# Needs nginx (Debian's) and k6 v1.8.1 (~/go/bin/k6).
set -euo pipefail
BIN=${1:-target/dist/loadlab}
REPS=${2:-2}
K6=${K6:-$HOME/go/bin/k6}
HERE=$(cd "$(dirname "$0")" && pwd)
SCRIPT=$HERE/scripts/pubsub_like.k6.js
DIR=$(mktemp -d /tmp/loadlab-bench-wake-XXXXXX)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$DIR/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $DIR/nginx.pid;
error_log $DIR/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $DIR;
  server {
    listen 127.0.0.1:$PORT;
    keepalive_requests 1000000;
    location /channel/ {
      default_type application/json;
      if (\$request_method = DELETE) { return 204; }
      return 200 '{"messages":[{"content":{"at":1700000000000}},{"content":{"at":1700000000000}}],"ackHandle":"abc"}';
    }
  }
}
CONF
taskset -c 0 nginx -c "$DIR/nginx.conf" &
NGINX=$!
trap 'kill $NGINX 2>/dev/null; rm -rf "$DIR"' EXIT
sleep 0.5

# run TOOL VUS DUR SLEEP: prints CPU µs per request.
run() {
  local tool=$1 vus=$2 dur=$3 nap=$4 cmd
  if [ "$tool" = k6 ]; then cmd=("$K6" run); else cmd=("$BIN" k6 run); fi
  BASE_URL=http://127.0.0.1:$PORT VUS=$vus DUR=$dur SLEEP_SEC=$nap K6_AUTO_EXTENSION_RESOLUTION=false \
    /usr/bin/time -f "%U %S" -o "$DIR/time" taskset -c 1 "${cmd[@]}" --no-usage-report -q \
    --summary-export "$DIR/s.json" "$SCRIPT" > /dev/null 2> "$DIR/err"
  python3 - "$DIR" <<'PY'
import json, sys
d = sys.argv[1]
n = json.load(open(f"{d}/s.json"))["metrics"]["http_reqs"]["count"]
u, s = map(float, open(f"{d}/time").read().split()[-2:])
print(f"{(u + s) / n * 1e6:.1f}")
PY
}

printf "| case | rep | k6 µs/req | loadlab µs/req | loadlab / k6 |\n|---|---|---|---|---|\n"
for rep in $(seq "$REPS"); do
  for case in busy idle; do
    if [ $case = busy ]; then args=(20 10s 0); else args=(200 20s 1.7); fi
    k=$(run k6 "${args[@]}")
    l=$(run loadlab "${args[@]}")
    printf "| %s | %s | %s | %s | %s |\n" $case "$rep" "$k" "$l" "$(python3 -c "print(f'{$l/$k:.3f}')")"
  done
done
