#!/usr/bin/env python3
"""loadlab attack beside its peers, one run, same target, pinned CPUs.

  python3 bench/attack.py [--reps 3] [--seconds 8] [--long]

Server: nginx (one worker) on CPU 0 serving a 100-byte file over keep-alive.
Clients: pinned to CPU 1, one at a time.

1. As fast as possible, 50 connections: client CPU µs per request
   (user+sys / requests) for wrk, ab, h2load, hey, vegeta, oha, loadlab.
2. Fixed 5,000 requests/s for N seconds: client CPU % of one core, achieved
   rate, reported p50 (vegeta, oha if installed, loadlab).
3. Results size: bytes per request in the results file (vegeta vs loadlab).
   --paired N: only this comparison, loadlab and oha alternating N times.
4. --long: RSS every 30 s over a 10-minute attack at 5,000/s streaming results
   to disk, and 10,000 concurrent keep-alive connections held (counted with
   `ss` while the attack runs). --connections: only the latter.
5. --baseline BIN --paired N: this build and another loadlab binary (an older
   commit's dist build) alternating N times, at full speed (µs CPU per
   request) and at 5,000/s (CPU %): the before/after of an engine change.

Peers come from Debian (wrk, apache2-utils, nghttp2-client, hey) and
`go install github.com/tsenart/vegeta/v12@latest`; missing peers are skipped.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, Nginx, build_loadlab, have, median, run_measured  # noqa: E402

VEGETA = os.path.expanduser("~/go/bin/vegeta")


def loadlab_report(path):
    out = subprocess.run([LOADLAB, "report", "-type=json", path], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def vegeta_report(path):
    out = subprocess.run([VEGETA, "report", "-type=json", path], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def max_speed(tool, url, secs, tmp):
    """Returns (requests, cpu seconds) for one as-fast-as-possible run with 50 connections."""
    n_fixed = 60000 * secs  # for count-based tools; ~60k/s is above what one nginx core serves
    if tool == "wrk":
        out, _, cpu, _, _ = run_measured(["wrk", "-t1", "-c50", f"-d{secs}s", url])
        return int(re.search(r"(\d+) requests in", out).group(1)), cpu
    if tool == "ab":
        out, _, cpu, wall, _ = run_measured(["ab", "-q", "-k", "-c50", "-n", str(n_fixed // 3), url])
        return int(re.search(r"Complete requests:\s+(\d+)", out).group(1)), cpu, wall
    if tool == "h2load":
        out, _, cpu, wall, _ = run_measured(["h2load", "--h1", "-c50", "-n", str(n_fixed // 3), url])
        return int(re.search(r"requests: \d+ total, \d+ started, (\d+) done", out).group(1)), cpu, wall
    if tool == "hey":
        out, _, cpu, _, _ = run_measured(["hey", "-c", "50", "-z", f"{secs}s", url])
        return sum(int(x) for x in re.findall(r"\[\d+\]\s+(\d+) responses", out)), cpu
    if tool == "vegeta":
        res = os.path.join(tmp, "vegeta.bin")
        _, _, cpu, _, _ = run_measured([VEGETA, "attack", "-rate=0", "-max-workers=50", f"-duration={secs}s",
                                        "-max-body=0", f"-output={res}"], stdin=f"GET {url}\n")
        return vegeta_report(res)["requests"], cpu
    if tool == "loadlab":
        res = os.path.join(tmp, "loadlab.bin")
        _, _, cpu, _, _ = run_measured([LOADLAB, "attack", "-rate=0", "-max-workers=50", "-connections=50",
                                        f"-duration={secs}s", f"-output={res}"], stdin=f"GET {url}\n")
        return loadlab_report(res)["requests"], cpu
    raise ValueError(tool)


def paired(url, secs, tmp, n):
    """loadlab and oha alternating at 5,000/s: the host's noise hits both alike."""
    rows = {"loadlab": [], "oha": []}
    for i in range(n):
        for tool in rows:
            r = fixed_rate(tool, url, secs, tmp)
            rows[tool].append(r)
            print(f"run {i} {tool:8} CPU {r['cpu_pct']:5.1f} %  p50 {r['p50_ms']:.3f} ms  rate {r['rate']:.2f}", flush=True)
    ll = median([r["cpu_pct"] for r in rows["loadlab"]])
    oh = median([r["cpu_pct"] for r in rows["oha"]])
    print(f"median CPU: loadlab {ll:.1f} %, oha {oh:.1f} %, ratio {ll / oh:.2f}; "
          f"p50: loadlab {median([r['p50_ms'] for r in rows['loadlab']]):.3f} ms, "
          f"oha {median([r['p50_ms'] for r in rows['oha']]):.3f} ms")


def against_baseline(url, secs, tmp, n, baseline):
    """This build and `baseline` alternating: full speed and 5,000/s."""
    global LOADLAB
    builds = {"this": LOADLAB, "baseline": baseline}
    rows = {k: {"us": [], "cpu": [], "p50": []} for k in builds}
    for i in range(n):
        for name, path in builds.items():
            LOADLAB = path
            reqs, cpu = max_speed("loadlab", url, secs, tmp)
            f = fixed_rate("loadlab", url, secs, tmp)
            r = rows[name]
            r["us"].append(cpu / reqs * 1e6)
            r["cpu"].append(f["cpu_pct"])
            r["p50"].append(f["p50_ms"])
            print(f"run {i} {name:8} full speed {reqs / secs:9.0f}/s {r['us'][-1]:6.2f} µs CPU/request   "
                  f"5,000/s: CPU {f['cpu_pct']:5.1f} %  p50 {f['p50_ms']:.3f} ms  rate {f['rate']:.2f}", flush=True)
    LOADLAB = builds["this"]
    t, b = rows["this"], rows["baseline"]
    print(f"median µs CPU/request: this {median(t['us']):.2f}, baseline {median(b['us']):.2f}, "
          f"ratio {median(t['us']) / median(b['us']):.3f}")
    print(f"median CPU % at 5,000/s: this {median(t['cpu']):.1f}, baseline {median(b['cpu']):.1f}, "
          f"ratio {median(t['cpu']) / median(b['cpu']):.3f}; p50 this {median(t['p50']):.3f} ms, "
          f"baseline {median(b['p50']):.3f} ms")


def fixed_rate(tool, url, secs, tmp, rate=5000):
    """Returns dict(cpu_pct, rate, p50_ms, bytes_per_req)."""
    if tool == "vegeta":
        res = os.path.join(tmp, "vegeta-fixed.bin")
        _, _, cpu, _, _ = run_measured([VEGETA, "attack", f"-rate={rate}", f"-duration={secs}s",
                                        f"-output={res}"], stdin=f"GET {url}\n")
        rep = vegeta_report(res)
    elif tool in ("loadlab", "loadlab-res0"):
        # loadlab-res0: the send clock off (-resolution=0), every request at its own instant.
        res = os.path.join(tmp, "loadlab-fixed.bin")
        extra = ["-resolution=0"] if tool == "loadlab-res0" else []
        _, _, cpu, _, _ = run_measured([LOADLAB, "attack", f"-rate={rate}", f"-duration={secs}s",
                                        f"-output={res}"] + extra, stdin=f"GET {url}\n")
        rep = loadlab_report(res)
    elif tool == "oha":
        out, _, cpu, _, _ = run_measured(["oha", "--no-tui", "--output-format", "json", "-q", str(rate),
                                          "-z", f"{secs}s", "-c", "50", url])
        j = json.loads(out)
        return {"cpu_pct": cpu / secs * 100, "rate": j["summary"]["requestsPerSec"],
                "p50_ms": j["latencyPercentiles"]["p50"] * 1000, "bytes_per_req": None}
    else:
        raise ValueError(tool)
    return {"cpu_pct": cpu / secs * 100, "rate": rep["rate"], "p50_ms": rep["latencies"]["50th"] / 1e6,
            "bytes_per_req": os.path.getsize(res) / max(rep["requests"], 1), "requests": rep["requests"]}


def long_run(url, tmp):
    res = os.path.join(tmp, "long.bin")
    p = subprocess.Popen(["taskset", "-c", "1", LOADLAB, "attack", "-rate=5000", "-duration=10m",
                          f"-output={res}"], stdin=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write(f"GET {url}\n".encode())
    p.stdin.close()
    samples = []
    while p.poll() is None:
        time.sleep(30)
        try:
            with open(f"/proc/{p.pid}/status") as f:
                rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
            samples.append(rss)
            print(f"  t={len(samples) * 30:4d}s RSS {rss / 1024:.1f} MiB  file {os.path.getsize(res) / 2**20:.0f} MiB", flush=True)
        except (FileNotFoundError, AttributeError):
            break
    p.wait()
    rep = loadlab_report(res)
    print(f"  10-minute run: {rep['requests']} requests, success {rep['success'] * 100:.2f}%, "
          f"RSS first/last/max {samples[0] / 1024:.1f}/{samples[-1] / 1024:.1f}/{max(samples) / 1024:.1f} MiB")
    connections_run(url, tmp)


def established(port):
    """Established TCP connections to `port` on this host (client side)."""
    out = subprocess.run(["ss", "-Htn", "state", "established", f"( dport = :{port} )"],
                         capture_output=True, text=True).stdout
    return len(out.splitlines())


def connections_run(url, tmp, n=10000):
    """n concurrent keep-alive connections: counts the established sockets
    while the attack runs (every worker holds its own connection)."""
    res = os.path.join(tmp, "conns.bin")
    port = int(re.search(r":(\d+)/", url).group(1))
    p = subprocess.Popen(["taskset", "-c", "1", LOADLAB, "attack", "-rate=0", f"-max-workers={n}",
                          f"-connections={n}", f"-max-connections={n}", "-duration=15s", f"-output={res}"],
                         stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdin.write(f"GET {url}\n".encode())
    p.stdin.close()
    peak = 0
    while p.poll() is None:
        time.sleep(1)
        peak = max(peak, established(port))
    err = p.stderr.read().decode(errors="replace")
    if p.returncode != 0:
        raise RuntimeError(f"loadlab exited {p.returncode}: {err[-500:]}")
    rep = loadlab_report(res)
    print(f"  {n:,} connections: peak {peak:,} established at once, {rep['requests']} requests, "
          f"success {rep['success'] * 100:.2f}%, status codes {rep['status_codes']}, errors {rep['errors'][:3]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--long", action="store_true")
    ap.add_argument("--paired", type=int, default=0, metavar="N",
                    help="only the 5,000/s comparison: loadlab and oha alternating, N runs each")
    ap.add_argument("--connections", action="store_true",
                    help="only the 10,000 concurrent connections check")
    ap.add_argument("--baseline", metavar="BIN",
                    help="with --paired N: compare this build with another loadlab binary")
    ap.add_argument("--skip-build", action="store_true")
    args = ap.parse_args()
    if not args.skip_build:
        build_loadlab()
    nginx = Nginx({"100b": 100})
    url = nginx.url("100b")
    tmp = tempfile.mkdtemp(prefix="loadlab-bench-")
    try:
        if args.paired and args.baseline:
            against_baseline(url, args.seconds, tmp, args.paired, os.path.abspath(args.baseline))
            return
        if args.paired:
            paired(url, args.seconds, tmp, args.paired)
            return
        if args.connections:
            connections_run(url, tmp)
            return
        tools = [t for t in ["wrk", "ab", "h2load", "hey"] if have(t)]
        if os.path.exists(VEGETA):
            tools.append("vegeta")
        tools.append("loadlab")
        print(f"# 1. As fast as possible, 50 connections, {args.seconds}s, median of {args.reps}")
        print(f"{'tool':8} {'requests/s':>12} {'µs CPU/request':>15}")
        us = {}
        for tool in tools:
            per, rps = [], []
            for _ in range(args.reps):
                res = max_speed(tool, url, args.seconds, tmp)
                n, cpu = res[0], res[1]
                wall = res[2] if len(res) > 2 else args.seconds  # count-based tools: their own wall time
                per.append(cpu / n * 1e6)
                rps.append(n / wall)
            us[tool] = median(per)
            print(f"{tool:8} {median(rps):12.0f} {us[tool]:15.2f}", flush=True)
        if "wrk" in us:
            print(f"loadlab ÷ wrk CPU per request: {us['loadlab'] / us['wrk']:.2f} (goal ≤ 1.00)")

        print(f"\n# 2. Fixed 5,000 requests/s for {args.seconds}s, median of {args.reps}")
        print(f"{'tool':12} {'CPU % core':>10} {'rate':>10} {'p50 ms':>8} {'B/request':>10}")
        fixed_tools = (["vegeta"] if os.path.exists(VEGETA) else []) + (["oha"] if have("oha") else []) + ["loadlab", "loadlab-res0"]
        for tool in fixed_tools:
            runs = [fixed_rate(tool, url, args.seconds, tmp) for _ in range(args.reps)]
            cpu = median([r["cpu_pct"] for r in runs])
            rate = median([r["rate"] for r in runs])
            p50 = median([r["p50_ms"] for r in runs])
            bpr = runs[-1]["bytes_per_req"]
            print(f"{tool:12} {cpu:10.1f} {rate:10.2f} {p50:8.3f} {bpr if bpr is None else round(bpr, 1)!s:>10}", flush=True)
        if args.long:
            print("\n# 4. Memory over 10 minutes at 5,000/s, then 10,000 connections")
            long_run(url, tmp)
    finally:
        nginx.stop()
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    main()
