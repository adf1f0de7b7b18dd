#!/usr/bin/env python3
"""Replaying an access log: how exactly the schedule is kept, and the memory.

  python3 bench/replay.py lag [--binary BIN] [--lines 100000] [--rate 400] [--speed 4]
  python3 bench/replay.py rss [--binary BIN] [--gb 2] [--speed 10] [--max-workers N]

Server: nginx (one worker) on CPU 0 serving a 100-byte file for each logged path.
Client: `loadlab attack -replay=LOG -replay-base=…` pinned to CPU 1.

The log is nginx's combined format generated from a seeded bursty model:
a mean rate with bursts (a second at 3-6x the mean now and then) and
quiet stretches; whole-second timestamps as nginx writes them.

lag  replays LINES lines at SPEED and reads the run's own report: every
     request sent (count), and the send lag (actual send - intended send)
     p50/p99/max. Goal: p99 under 1 ms when the client is not saturated.
rss  generates a log of about GB gigabytes (long lines: a 1.5 KB user
     agent), replays it at SPEED and samples the client's RSS twice a
     second; prints the curve and min/max after the first 5 s (goal: flat
     within 5 MB), then the send lag, which says whether the client kept up.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, Nginx  # noqa: E402

MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
PATHS = ["/news", "/sport", "/weather", "/sounds", "/iplayer", "/live", "/search"]


def stamp(t):
    g = time.gmtime(t)
    return f"{g.tm_mday:02d}/{MONTHS[g.tm_mon - 1]}/{g.tm_year}:{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d} +0000"


def generate(path, lines, rate, pad=0, seed=7):
    """Writes `lines` combined-log lines; returns the log's span in seconds."""
    rng = random.Random(seed)
    agent = "Mozilla/5.0 (bench) " + "x" * pad
    t0 = 1_795_000_000
    sec, written = 0, 0
    with open(path, "w", buffering=1 << 20) as f:
        while written < lines:
            r = rate
            u = rng.random()
            if u < 0.05:
                r = rate * rng.uniform(3, 6)      # a burst
            elif u < 0.15:
                r = rate * rng.uniform(0.1, 0.5)  # a quiet second
            n = min(lines - written, max(0, int(rng.gauss(r, r ** 0.5))))
            ts = stamp(t0 + sec)
            for _ in range(n):
                p = PATHS[rng.randrange(len(PATHS))]
                f.write(f'10.0.0.{rng.randrange(1, 255)} - - [{ts}] "GET {p} HTTP/1.1" 200 512 "-" "{agent}"\n')
            written += n
            sec += 1
    return sec


def replay(binary, log, base, speed, out, max_workers=None):
    cmd = ["taskset", "-c", "1", binary, "attack", f"-replay={log}", f"-replay-base={base}",
           f"-speed={speed}", f"-output={out}", "-quiet"]
    if max_workers:
        cmd.append(f"-max-workers={max_workers}")
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def report(binary, out):
    r = subprocess.run([binary, "report", "-type=json", out], capture_output=True, check=True)
    return json.loads(r.stdout)


def lag(args, nginx, tmp):
    log = os.path.join(tmp, "access.log")
    span = generate(log, args.lines, args.rate)
    out = os.path.join(tmp, "replay.bin")
    print(f"log: {args.lines} lines over {span} s (mean {args.rate}/s); replay at x{args.speed} "
          f"(~{span / args.speed:.0f} s)")
    p = replay(args.binary, log, f"http://127.0.0.1:{nginx.port}", args.speed, out)
    err = p.stderr.read().decode(errors="replace")
    if p.wait() != 0:
        raise SystemExit(err[-800:])
    r = report(args.binary, out)
    lag = r["send_lag"]
    ms = lambda ns: ns / 1e6  # noqa: E731
    print(f"requests {r['requests']} of {args.lines}; unsent {r.get('unsent', 0)}; "
          f"success {r['success']:.4f}")
    print(f"send lag p50 {ms(lag['50th']):.3f} ms  p99 {ms(lag['99th']):.3f} ms  "
          f"max {ms(lag['max']):.3f} ms  (goal: p99 < 1 ms)")


def rss(args, nginx, tmp):
    log = os.path.join(tmp, "big.log")
    pad = 1500
    lines = int(args.gb * 1e9 / (pad + 110))
    rate = 1000
    span = generate(log, lines, rate, pad=pad)
    size = os.path.getsize(log)
    print(f"log: {size / 1e9:.2f} GB, {lines} lines over {span} s; replay at x{args.speed} "
          f"(~{span / args.speed:.0f} s)")
    out = os.path.join(tmp, "big.bin")
    p = replay(args.binary, log, f"http://127.0.0.1:{nginx.port}", args.speed, out,
               args.max_workers)
    samples = []

    def sample():
        t0 = time.monotonic()
        while p.poll() is None:
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    for line in f:
                        if line.startswith("VmRSS:"):
                            samples.append((time.monotonic() - t0, int(line.split()[1]) / 1024))
            except OSError:
                break
            time.sleep(0.5)

    th = threading.Thread(target=sample)
    th.start()
    err = p.stderr.read().decode(errors="replace")
    th.join()
    if p.wait() != 0:
        raise SystemExit(err[-800:])
    # The client is `taskset`: its child is the attack (taskset execs, same pid).
    after = [m for t, m in samples if t >= 5]
    if not after:
        raise SystemExit("the replay ended within 5 s: no samples")
    # The curve, ten points: does it climb steadily, step up, or level off?
    step = max(1, len(samples) // 10)
    print("RSS: " + "  ".join(f"{t:.0f}s {m:.1f}" for t, m in samples[::step]) + " MiB")
    print(f"RSS after 5 s: min {min(after):.1f} MiB  max {max(after):.1f} MiB  "
          f"spread {max(after) - min(after):.1f} MiB over {samples[-1][0]:.0f} s "
          f"({len(after)} samples; goal: spread <= 5 MB)")
    # A saturated client grows its pool of workers (and their connections)
    # in bursts: memory that follows the concurrency, not the log's length.
    r = report(args.binary, out)
    lag = r["send_lag"]
    print(f"requests {r['requests']} of {lines}; send lag p99 {lag['99th'] / 1e6:.3f} ms  "
          f"max {lag['max'] / 1e6:.3f} ms (a lag of many ms: the client was saturated)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["lag", "rss"])
    ap.add_argument("--binary", default=LOADLAB)
    ap.add_argument("--lines", type=int, default=100_000)
    ap.add_argument("--rate", type=int, default=400)
    ap.add_argument("--speed", type=float, default=4)
    ap.add_argument("--gb", type=float, default=2)
    ap.add_argument("--max-workers", type=int, default=None,
                    help="rss: cap the client's workers (their pool grows when it falls behind)")
    args = ap.parse_args()
    if args.mode == "rss" and args.speed == 4:
        args.speed = 10
    with tempfile.TemporaryDirectory(prefix="loadlab-bench-replay-") as tmp:
        nginx = Nginx({p.lstrip("/"): 100 for p in PATHS})
        try:
            (lag if args.mode == "lag" else rss)(args, nginx, tmp)
        finally:
            nginx.stop()


if __name__ == "__main__":
    main()
