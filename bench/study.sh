#!/usr/bin/env bash
# Does a study cost the client more than a bare attack? Same origin, same
# rate, same duration: `loadlab attack` (writing its results file) vs the same
# load as a one-step `loadlab study` (histograms, time series, SQLite).
# Prints client CPU microseconds per request (user+sys / requests) for both,
# medians of RUNS runs, and the ratio study/attack. The study's report writing
# is timed separately (`loadlab runs report`) and subtracted: it is a fixed
# cost per study, not per request; it is printed on its own line.
#
#   bench/study.sh            # RUNS=3 RATE=2000 DUR=10s
#
# Origin pinned to CPU 0, client to CPU 1 (DESIGN.md "How to measure").
# Env: BUILD (0: use the binary already built), RUNS, RATE, DUR, CARGO_TARGET_DIR.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS="${RUNS:-3}"
RATE="${RATE:-2000}"
DUR="${DUR:-10s}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
LOADLAB="$TARGET/dist/loadlab"
PORT=18491

if [ "${BUILD:-1}" != 0 ]; then
  (cd "$ROOT" && cargo build --profile dist -p loadlab --features full >&2)
fi
command -v taskset >/dev/null || { echo "taskset (util-linux) is needed" >&2; exit 1; }

WORK="$(mktemp -d)"
cleanup() { [ -n "${ORIGIN_PID:-}" ] && kill "$ORIGIN_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

echo '{"route":"/*","body":"<<1kb>>","stages":[{"at":0,"status":200,"latency":0}]}' > "$WORK/recipe.json"
taskset -c 0 "$LOADLAB" origin --listen "127.0.0.1:$PORT" --recipe "$WORK/recipe.json" --workers 1 >/dev/null 2>&1 &
ORIGIN_PID=$!
for _ in $(seq 50); do
  (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
  sleep 0.1
done

cat > "$WORK/plan.yaml" <<PLAN
name: bench
targets:
  - {name: t, url: "http://127.0.0.1:$PORT/x"}
load: {rates: [$RATE], step: $DUR}
PLAN

# cpu_seconds CMD...: user+sys seconds of CMD (children included).
cpu_seconds() {
  /usr/bin/time -f "%U %S" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; return 1; }
  awk '{print $1 + $2}' "$WORK/time"
}

median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

: > "$WORK/attack"; : > "$WORK/study"; : > "$WORK/report"
for i in $(seq "$RUNS"); do
  # attack
  cpu=$(cpu_seconds taskset -c 1 sh -c "echo 'GET http://127.0.0.1:$PORT/x' | '$LOADLAB' attack -rate=$RATE -duration=$DUR -output='$WORK/r.bin'")
  n=$("$LOADLAB" report -type=json "$WORK/r.bin" | sed -E 's/.*"requests":([0-9]+).*/\1/')
  awk -v c="$cpu" -v n="$n" 'BEGIN {printf "%.3f\n", c * 1e6 / n}' >> "$WORK/attack"
  # study (report time measured separately and subtracted)
  rm -f "$WORK/s.db"
  cpu=$(cpu_seconds taskset -c 1 "$LOADLAB" study "$WORK/plan.yaml" --db "$WORK/s.db" --out "$WORK/out")
  rep=$(cpu_seconds taskset -c 1 "$LOADLAB" runs report 1 --db "$WORK/s.db" --out "$WORK/out2")
  n=$("$LOADLAB" runs show 1 --db "$WORK/s.db" | awk '$2 == "sweep" {print $6}')
  awk -v c="$cpu" -v r="$rep" -v n="$n" 'BEGIN {printf "%.3f\n", (c - r) * 1e6 / n}' >> "$WORK/study"
  echo "$rep" >> "$WORK/report"
  echo "run $i: attack $(tail -1 "$WORK/attack") us/req, study $(tail -1 "$WORK/study") us/req ($n requests)" >&2
done

a=$(median < "$WORK/attack"); s=$(median < "$WORK/study"); r=$(median < "$WORK/report")
printf "client CPU per request at %s req/s for %s (median of %s):\n" "$RATE" "$DUR" "$RUNS"
printf "  attack  %8.2f us\n  study   %8.2f us\n  ratio study/attack  %.2f\n" "$a" "$s" "$(awk -v a="$a" -v s="$s" 'BEGIN {print s / a}')"
printf "report writing (fixed per study): %.2f s CPU\n" "$r"
