#!/usr/bin/env python3
"""k6 scripts that request many distinct URLs: peak RSS of `loadlab k6 run`
beside real k6 v1.8.1 when every sample keeps its `url`/`name` tag.

  python3 bench/k6_urls.py [--urls 20000] [--reps 1] [--loadlab BIN] [--base OLD_LOADLAB]
                           [--k6 BIN] [--tools k6,loadlab,base]
  python3 bench/k6_urls.py --seed [--channels 50] [--rampup 3] [--duration 15] ...

Default: one VU requests `/item?id=${__ITER}` --urls times (a distinct URL
per iteration) from nginx (one worker, pinned to CPU 0; the query string
is ignored, the file is 100 bytes), with `--out json=FILE` and the
thresholds `http_req_duration{name:<URL of iteration 7>}: p(95)<1000`
and `http_reqs: count==URLS`. The client runs on CPU 1; its peak RSS is
ru_maxrss of the process (from wait4), with its CPU time and wall time.

--seed: the DSPS pub/sub script of bench/k6.py (its server and workload),
with and without `--out json`, for each tool: what keeping every request's
tags in the points costs there.

--tools picks the clients (k6, loadlab, base; default k6,loadlab): `base`
is another loadlab binary (--base, e.g. a build of an older commit), so
that two builds are measured side by side in one run. Peak RSS hardly
depends on CPU speed: a busy host or a debug build changes the times, not
the memory (say which build was measured).
"""
import argparse
import json
import os
import socket
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, Nginx, median  # noqa: E402
import k6 as k6bench  # noqa: E402

SCRIPT = """import http from 'k6/http';
const base = __ENV.BASE_URL;
export const options = {
  scenarios: { urls: { executor: 'per-vu-iterations', vus: 1, iterations: %(urls)d, maxDuration: '30m' } },
  thresholds: {
    [`http_req_duration{name:${base}/item?id=7}`]: ['p(95)<1000'],
    http_reqs: ['count==%(urls)d'],
  },
};
export default function () {
  http.get(`${base}/item?id=${__ITER}`);
}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cmd(tool, binaries, script, points):
    out = ["--out", f"json={points}"] if points else []
    if tool == "k6":
        return [binaries["k6"], "run", "--no-usage-report", "-q"] + out + [script]
    return [binaries[tool], "k6", "run", "--no-usage-report", "-q"] + out + [script]


def urls_run(tool, binaries, nginx, urls):
    d = tempfile.mkdtemp(prefix="loadlab-bench-urls-")
    script = os.path.join(d, "urls.js")
    with open(script, "w") as f:
        f.write(SCRIPT % {"urls": urls})
    points = os.path.join(d, "points.json")
    env = dict(os.environ, BASE_URL=f"http://127.0.0.1:{nginx.port}", K6_AUTO_EXTENSION_RESOLUTION="false")
    try:
        r = k6bench.run_client(cmd(tool, binaries, script, points), env, watchdog_kib=2 << 20, timeout=1800)
        lines = sum(1 for _ in open(points)) if os.path.exists(points) else 0
    finally:
        for name in ("urls.js", "points.json"):
            if os.path.exists(os.path.join(d, name)):
                os.remove(os.path.join(d, name))
        os.rmdir(d)
    res = {"tool": tool, "urls": urls, "rc": r["rc"], "killed": r["killed"],
           "peak_rss_mib": round(r["maxrss_kib"] / 1024, 1), "client_cpu_s": round(r["cpu"], 2),
           "wall_s": round(r["wall"], 1), "json_lines": lines, "host_load1": r["loadavg"]}
    if r["rc"] != 0:
        res["error"] = (r["stderr"] or r["stdout"])[-600:]
    return res


def seed_run(tool, binaries, dsps_bin, channels, rampup, duration, points):
    dsps = k6bench.Dsps(dsps_bin)
    d = tempfile.mkdtemp(prefix="loadlab-bench-seed-")
    out = os.path.join(d, "points.json") if points else None
    env = dict(os.environ, BASE_URL=dsps.url, CHANNELS=str(channels), TEST_RAMPUP_SEC=str(rampup),
               TEST_DURATION_SEC=str(duration), K6_AUTO_EXTENSION_RESOLUTION="false")
    try:
        r = k6bench.run_client(cmd(tool, binaries, k6bench.SEED_SCRIPT, out), env,
                               watchdog_kib=2 << 20, timeout=rampup * 2 + duration + 120)
    finally:
        dsps.stop()
        if out and os.path.exists(out):
            os.remove(out)
        os.rmdir(d)
    res = {"tool": tool, "out_json": bool(points), "channels": channels, "rc": r["rc"],
           "killed": r["killed"], "peak_rss_mib": round(r["maxrss_kib"] / 1024, 1),
           "client_cpu_s": round(r["cpu"], 2), "host_load1": r["loadavg"]}
    if r["rc"] not in (0, 99):
        res["error"] = (r["stderr"] or r["stdout"])[-600:]
    return res


def table(results, key):
    print(f"| tool | {key} | peak RSS MiB (median) | runs | client CPU s | exit |")
    print("|---|---|---|---|---|---|")
    groups = {}
    for r in results:
        groups.setdefault((r["tool"], r[key]), []).append(r)
    for (tool, k), rs in groups.items():
        print(f"| {tool} | {k} | {median([r['peak_rss_mib'] for r in rs])} | "
              f"{', '.join(str(r['peak_rss_mib']) for r in rs)} | "
              f"{median([r['client_cpu_s'] for r in rs])} | {', '.join(str(r['rc']) for r in rs)} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--urls", default="20000", help="distinct URLs, comma-separated list")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--loadlab", default=LOADLAB)
    ap.add_argument("--base", help="another loadlab binary (tool `base`)")
    ap.add_argument("--k6", default=k6bench.K6)
    ap.add_argument("--tools", default="k6,loadlab")
    ap.add_argument("--seed", action="store_true", help="the DSPS script, with and without --out json")
    ap.add_argument("--channels", type=int, default=50)
    ap.add_argument("--rampup", type=int, default=3)
    ap.add_argument("--duration", type=int, default=15)
    ap.add_argument("--dsps-src")
    ap.add_argument("--dsps-git")
    a = ap.parse_args()
    binaries = {"k6": a.k6, "loadlab": a.loadlab, "base": a.base}
    tools = [t for t in a.tools.split(",") if t]
    for t in tools:
        if t != "k6" and (not binaries.get(t) or k6bench.loadlab_k6_available(binaries[t])):
            raise SystemExit(f"bench: {t}: {k6bench.loadlab_k6_available(binaries[t] or '')}")
    results = []
    if a.seed:
        dsps_bin = k6bench.build_dsps(a.dsps_src, a.dsps_git)
        for rep in range(a.reps):
            order = tools if rep % 2 == 0 else list(reversed(tools))
            for points in (False, True):
                for t in order:
                    r = seed_run(t, binaries, dsps_bin, a.channels, a.rampup, a.duration, points)
                    k6bench.log(json.dumps(r))
                    results.append(r)
        table(results, "out_json")
        return
    nginx = Nginx({"item": 100}, port=free_port())
    try:
        for urls in [int(u) for u in a.urls.split(",")]:
            for rep in range(a.reps):
                order = tools if rep % 2 == 0 else list(reversed(tools))
                for t in order:
                    r = urls_run(t, binaries, nginx, urls)
                    k6bench.log(json.dumps(r))
                    results.append(r)
    finally:
        nginx.stop()
    table(results, "urls")


if __name__ == "__main__":
    main()
