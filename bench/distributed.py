#!/usr/bin/env python3
"""The figures behind docs/distributed.md's "Scale on paper".

  python3 bench/distributed.py [--reps 3] [--seconds 5] [--skip-build]

Server: `loadlab origin` (one worker thread, a 100-byte body, no added
latency) pinned to CPU 0; the client `loadlab attack` pinned to CPU 1.

1. As fast as possible (-rate=0, 50 in flight): requests/s, and the client's
   CPU per request (user+sys from rusage / requests): what one worker core
   does when nothing else limits it.
2. Fixed rates (10,000 and 30,000/s): the client's CPU % of its core, the
   achieved rate and the send lag: how loaded a 1-core pod is at a rate.
3. The merge: `loadlab report -type=json` over 1 and 4 results files of
   the max-speed runs: ns per record read and merged.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, build_loadlab  # noqa: E402

PORT = 18290
RECIPE = '{"route":"/*","body":"%s","stages":[{"at":0,"status":200,"latency":"0ms"}]}' % ("x" * 100)


def timed(cmd, cpu, stdin=None):
    """user+sys seconds of cmd (GNU time), pinned to cpu."""
    with tempfile.NamedTemporaryFile("r") as tf:
        full = ["/usr/bin/time", "-f", "%U %S", "-o", tf.name, "taskset", "-c", str(cpu)] + cmd
        t0 = time.time()
        p = subprocess.run(full, input=stdin, capture_output=True, timeout=600)
        wall = time.time() - t0
        if p.returncode != 0:
            sys.exit(f"{cmd}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
        u, s = tf.read().split()[-2:]
    return float(u) + float(s), wall, p


def report_json(path):
    p = subprocess.run([LOADLAB, "report", "-type=json", path], capture_output=True, check=True)
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("--skip-build", action="store_true")
    a = ap.parse_args()
    if not a.skip_build:
        build_loadlab()
    tmp = tempfile.mkdtemp(prefix="loadlab-dist-")
    recipe = os.path.join(tmp, "recipe.json")
    with open(recipe, "w") as f:
        f.write(RECIPE)
    origin = subprocess.Popen(["taskset", "-c", "0", LOADLAB, "origin", "--listen", f"127.0.0.1:{PORT}",
                               "--workers", "1", "--recipe", recipe],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    target = f"GET http://127.0.0.1:{PORT}/\n".encode()
    try:
        print(f"1. max speed, {a.reps} x {a.seconds}s, -rate=0 -max-workers=50")
        files, rps, us = [], [], []
        for r in range(a.reps):
            out = os.path.join(tmp, f"max{r}.bin")
            cpu, wall, _ = timed([LOADLAB, "attack", "-rate=0", "-max-workers=50", f"-duration={a.seconds}s",
                                  "-quiet", f"-output={out}"], 1, target)
            j = report_json(out)
            n = j["requests"]
            files.append(out)
            rps.append(n / a.seconds)
            us.append(cpu * 1e6 / n)
            print(f"   run {r}: {n} requests, {n / a.seconds:,.0f}/s, {cpu * 1e6 / n:.2f} us CPU/request, "
                  f"success {j['success']:.4f}")
        print(f"   median: {statistics.median(rps):,.0f} requests/s, {statistics.median(us):.2f} us CPU/request")

        print("2. fixed rates")
        for rate in (10000, 30000):
            cpus, lags, rates = [], [], []
            for r in range(a.reps):
                out = os.path.join(tmp, f"fixed{rate}-{r}.bin")
                cpu, wall, _ = timed([LOADLAB, "attack", f"-rate={rate}", f"-duration={a.seconds}s", "-quiet",
                                      f"-output={out}"], 1, target)
                j = report_json(out)
                cpus.append(cpu * 100 / a.seconds)
                rates.append(j["rate"])
                lags.append(j["send_lag"]["99th"] / 1e6)
            print(f"   {rate}/s: CPU {statistics.median(cpus):.1f} % of a core (runs {', '.join(f'{c:.1f}' for c in cpus)}), "
                  f"achieved {statistics.median(rates):,.1f}/s, send lag p99 {statistics.median(lags):.2f} ms")

        print("3. merge cost (report -type=json)")
        for group in ([files[0]], files):
            n = sum(report_json(f)["requests"] for f in group)
            times = []
            for _ in range(a.reps):
                t0 = time.time()
                subprocess.run([LOADLAB, "report", "-type=json"] + group, capture_output=True, check=True)
                times.append(time.time() - t0)
            t = statistics.median(times)
            print(f"   {len(group)} file(s), {n} records: {t:.3f} s, {t * 1e9 / n:.0f} ns/record")
    finally:
        origin.terminate()
        origin.wait()
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    main()
