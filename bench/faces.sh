#!/usr/bin/env bash
# Side by side: `loadlab ab` vs Debian's ab (apache2-utils) and `loadlab wrk`
# vs Debian's wrk, in one run, against the same nginx (one worker, pinned to
# CPU 0), every client pinned to CPU 1. For each pair: requests per second and
# the client's CPU time per request (user+sys from /usr/bin/time ÷ requests),
# medians of RUNS interleaved runs, and the ratio loadlab ÷ peer.
#
#   bench/faces.sh              # RUNS=3 N=50000 C=10 DUR=5s
#
# Env: RUNS, N (ab requests), C (concurrency/connections), DUR (wrk duration),
#      RATE (loadlab wrk -R figure for the fixed-rate CPU line), PORT,
#      NO_BUILD=1 (use the existing dist binary), CARGO_TARGET_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-3}"
N="${N:-50000}"
C="${C:-10}"
DUR="${DUR:-5s}"
RATE="${RATE:-5000}"
PORT="${PORT:-18491}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
LOADLAB="$TARGET/dist/loadlab"
URL="http://127.0.0.1:$PORT/"

need() {
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "installing $2 ..." >&2
  (apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }) ||
    { echo "cannot install $2" >&2; exit 1; }
}
need ab apache2-utils
need wrk wrk
command -v nginx >/dev/null 2>&1 || need nginx nginx-light
need taskset util-linux
[ -x /usr/bin/time ] || need /usr/bin/time time

if [ -z "${NO_BUILD:-}" ]; then
  echo "building loadlab (dist) ..." >&2
  (cd "$ROOT" && cargo build --profile dist -p loadlab --features full >&2)
fi

WORK="$(mktemp -d)"
NGINX_PID=""
cleanup() {
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/logs"
cat >"$WORK/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000000;
  server {
    listen 127.0.0.1:$PORT backlog=4096;
    location / { return 200 "a small body of one hundred bytes, the same for every tool in this benchmark, padded to size....\n"; }
  }
}
EOF
taskset -c 0 nginx -c "$WORK/nginx.conf" -p "$WORK" &
NGINX_PID=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

# measure NAME KIND CMD...: appends "NAME rps cpu_us_per_request" to $WORK/rows.
measure() {
  local name="$1" kind="$2"
  shift 2
  taskset -c 1 /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" >"$WORK/out" 2>"$WORK/err" || {
    echo "$name failed:" >&2; cat "$WORK/err" >&2; return 0; }
  local n rps
  if [ "$kind" = ab ]; then
    n=$(awk '/^Complete requests:/ {print $3}' "$WORK/out")
    rps=$(awk '/^Requests per second:/ {print $4}' "$WORK/out")
  else
    n=$(awk '/ requests in / {print $1}' "$WORK/out")
    rps=$(awk '/^Requests\/sec:/ {print $2}' "$WORK/out")
  fi
  read -r user sys <"$WORK/time"
  awk -v name="$name" -v n="$n" -v rps="$rps" -v u="$user" -v s="$sys" \
    'BEGIN { printf "%s %s %.3f\n", name, rps, (u + s) * 1e6 / (n > 0 ? n : 1) }' >>"$WORK/rows"
}

for run in $(seq "$RUNS"); do
  echo "run $run/$RUNS ..." >&2
  measure "ab-keepalive/ab" ab ab -q -k -c "$C" -n "$N" "$URL"
  measure "ab-keepalive/loadlab" ab "$LOADLAB" ab -q -k -c "$C" -n "$N" "$URL"
  measure "ab-close/ab" ab ab -q -c "$C" -n "$((N / 5))" "$URL"
  measure "ab-close/loadlab" ab "$LOADLAB" ab -q -c "$C" -n "$((N / 5))" "$URL"
  measure "wrk-closed/wrk" wrk wrk -t1 -c "$C" -d "$DUR" "$URL"
  measure "wrk-closed/loadlab" wrk "$LOADLAB" wrk -t1 -c "$C" -d "$DUR" "$URL"
  measure "wrk-rate-$RATE/loadlab" wrk "$LOADLAB" wrk -t1 -c "$C" -d "$DUR" -R "$RATE" "$URL"
done

echo
echo "nginx (1 worker) on CPU 0, clients on CPU 1; medians of $RUNS runs"
echo "(ab: -n $N with -k, -n $((N / 5)) without; wrk: -t1 -c $C -d $DUR; Debian's wrk has no -R)"
printf '%-22s %-9s %14s %16s\n' scenario tool "requests/s" "CPU us/request"
awk '
  { split($1, p, "/"); key = p[1] SUBSEP p[2]; n[key]++; rps[key, n[key]] = $2; cpu[key, n[key]] = $3
    if (!(p[1] in seen)) { seen[p[1]] = 1; order[++k] = p[1] }
    tools[p[1], p[2]] = 1 }
  function median(arr, key, cnt,   i, j, t, v) {
    for (i = 1; i <= cnt; i++) v[i] = arr[key, i]
    for (i = 1; i <= cnt; i++) for (j = i + 1; j <= cnt; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((cnt + 1) / 2)]
  }
  END {
    for (o = 1; o <= k; o++) {
      s = order[o]; peer = ""
      for (tk in tools) { split(tk, q, SUBSEP); if (q[1] == s && q[2] != "loadlab") peer = q[2] }
      split("", r)
      for (tk in tools) {
        split(tk, q, SUBSEP); if (q[1] != s) continue
        key = s SUBSEP q[2]
        r[q[2], "rps"] = median(rps, key, n[key]); r[q[2], "cpu"] = median(cpu, key, n[key])
        printf "%-22s %-9s %14.0f %16.2f\n", s, q[2], r[q[2], "rps"], r[q[2], "cpu"]
      }
      if (peer != "" && r[peer, "rps"] > 0 && r[peer, "cpu"] > 0)
        printf "%-22s %-9s %14.2f %16.2f\n", s, "ratio", r["loadlab", "rps"] / r[peer, "rps"], r["loadlab", "cpu"] / r[peer, "cpu"]
    }
  }' "$WORK/rows"
echo "(ratio = loadlab / peer: requests/s higher is better, CPU per request lower is better)"
