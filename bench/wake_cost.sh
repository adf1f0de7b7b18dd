#!/usr/bin/env bash
# What a wake-up costs a client on this machine, whatever the client: a
# minimal C client (bench/probes/wake_cost.c) doing loopback round trips to
# an echo child, with GAP µs of sleep between them and PAGES distinct pages
# touched after each (4 KiB pages, or transparent huge pages). Client CPU
# (user + sys) per round trip, median of REPS runs taken in turn.
#
#   bash bench/wake_cost.sh [REPS]
#
# Read beside bench/k6_wake.sh: a k6 script's CPU per request on an idle
# client is mostly the wake-ups' cost, which grows with the time the CPU
# sat idle before and with the memory touched after.
set -euo pipefail
REPS=${1:-3}
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(mktemp /tmp/loadlab-wake-cost-XXXXXX)
trap 'rm -f "$BIN"' EXIT
gcc -O2 -Wall -o "$BIN" "$HERE/probes/wake_cost.c"
cases=("0 0" "0 400" "1000 0" "1000 400" "3000 0" "3000 400" "3000 400 huge" "10000 0" "10000 400")
declare -A out
for rep in $(seq "$REPS"); do
  for c in "${cases[@]}"; do
    set -- $c
    rounds=$(( 3000000 / ($1 + 100) ))
    [ "$rounds" -lt 300 ] && rounds=300
    out[$c]+="$("$BIN" "$rounds" "$@") "
  done
done
printf "| gap µs | pages touched | client CPU µs per round trip (median of %s) | runs |\n|---|---|---|---|\n" "$REPS"
for c in "${cases[@]}"; do
  set -- $c
  med=$(printf "%s\n" ${out[$c]} | sort -n | awk '{a[NR]=$1} END{print (NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2}')
  printf "| %s | %s%s | %s | %s|\n" "$1" "$2" "${3:+ (huge pages)}" "$med" "${out[$c]}"
done
