#!/usr/bin/env bash
# Builds loadlab with profile-guided optimisation (PGO): the `dist` build,
# laid out by how loadlab actually runs. The binary is
# target/pgo/dist/loadlab.
#
#   scripts/pgo-build.sh            # ~2 dist builds + ~25 s of training
#
# Steps:
#   1. an instrumented dist build (target/pgo-gen);
#   2. training, all on 127.0.0.1: `loadlab origin` serving
#      scripts/pgo/recipe.json, `loadlab attack` and `loadlab report` against
#      it, and `loadlab k6 run scripts/pgo/train.k6.js` against it;
#   3. the profiles merged with llvm-profdata (target/pgo-profiles/);
#   4. the release build that uses them (target/pgo).
#
# Needs llvm-profdata from the LLVM that rustc is built on:
# `rustup component add llvm-tools` gives it (or Debian's llvm-<major>).
# Only the Rust code is profiled; the C parts (QuickJS, SQLite) are built as
# in a plain release build. Figures: bench/RESULTS.md ("PGO").
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

die() {
    echo "pgo-build: $*" >&2
    exit 2
}

llvm_major=$(rustc -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
host=$(rustc -vV | sed -n 's/^host: //p')
[ -n "$llvm_major" ] || die "cannot read rustc's LLVM version from 'rustc -vV'"

# llvm-profdata of rustc's LLVM major version (an older one cannot read
# the profiles rustc's instrumentation writes).
profdata=""
for c in "$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata" \
    "llvm-profdata-$llvm_major" llvm-profdata; do
    if command -v "$c" > /dev/null 2>&1 \
        && "$c" merge --version 2>/dev/null | grep -q "LLVM version $llvm_major\."; then
        profdata=$c
        break
    fi
done
[ -n "$profdata" ] || die "no llvm-profdata of LLVM $llvm_major (rustc's); install it with
  rustup component add llvm-tools
or your distribution's llvm-$llvm_major package"

profiles="$root/target/pgo-profiles"
rm -rf "$profiles"
mkdir -p "$profiles"

echo "pgo-build: 1/4 instrumented build (target/pgo-gen)" >&2
# The build scripts are instrumented too: their profiles go elsewhere.
LLVM_PROFILE_FILE="$profiles/build-%m_%p.profraw" \
    RUSTFLAGS="-Cprofile-generate=$profiles" \
    cargo build --profile dist --locked -p loadlab --features full --target-dir target/pgo-gen
rm -f "$profiles"/build-*.profraw
gen="$root/target/pgo-gen/dist/loadlab"

echo "pgo-build: 2/4 training on 127.0.0.1" >&2
work=$(mktemp -d)
origin_pid=""
cleanup() {
    if [ -n "$origin_pid" ]; then
        # Ctrl-C: the origin exits through main, which writes its profile.
        kill -INT "$origin_pid" 2> /dev/null || true
        wait "$origin_pid" 2> /dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
export LLVM_PROFILE_FILE="$profiles/train-%m_%p.profraw"
"$gen" origin --listen 127.0.0.1:0 --recipe scripts/pgo/recipe.json > "$work/origin.log" 2>&1 &
origin_pid=$!
base=""
for _ in $(seq 100); do
    base=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/origin.log" | head -1 || true)
    [ -n "$base" ] && break
    kill -0 "$origin_pid" 2> /dev/null || break
    sleep 0.05
done
[ -n "$base" ] || die "loadlab origin did not start: $(cat "$work/origin.log")"

echo "GET $base/items/a" | "$gen" attack -rate=3000 -duration=4s > "$work/attack.bin"
"$gen" report "$work/attack.bin" > /dev/null
"$gen" report -type=json "$work/attack.bin" > /dev/null
# A failed threshold (exit 99) would mean the origin misbehaved: training
# on failures would lay the binary out for them.
BASE_URL=$base "$gen" k6 run -q --no-usage-report scripts/pgo/train.k6.js > "$work/k6.out" 2>&1 \
    || die "the k6 training run failed (exit $?): $(tail -5 "$work/k6.out")"
unset LLVM_PROFILE_FILE
cleanup
origin_pid=""
trap - EXIT

echo "pgo-build: 3/4 merging the profiles" >&2
ls "$profiles"/train-*.profraw > /dev/null 2>&1 || die "the training wrote no profile"
"$profdata" merge -o "$profiles/loadlab.profdata" "$profiles"/train-*.profraw

echo "pgo-build: 4/4 optimised build (target/pgo)" >&2
RUSTFLAGS="-Cprofile-use=$profiles/loadlab.profdata" \
    cargo build --profile dist --locked -p loadlab --features full --target-dir target/pgo
echo "pgo-build: done: target/pgo/dist/loadlab" >&2
