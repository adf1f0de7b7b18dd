#!/usr/bin/env python3
"""k6 scripts: real k6 v1.8.1 beside `loadlab k6 run` on the DSPS pub/sub k6
script's workload (DSPS's own script; the study is examples/dsps-channels.yaml).

  python3 bench/k6.py [--channels 50,200] [--reps 1] [--rampup 3] [--duration 15]
                      [--dsps-src DIR | --dsps-git GITDIR] [--loadlab BIN] [--k6 BIN]
  python3 bench/k6.py --sleepy [--sleepy-vus 1000,10000] [--sleepy-hold 20]
  python3 bench/k6.py --tools base,loadlab --base OLD_LOADLAB   (two loadlab builds, no k6)
  python3 bench/k6.py --ws [--ws-vus 1000] [--ws-hold 20] [--ws-api ws|websockets]

Server: the real DSPS (github.com/m3dev/dsps, `server/`, commit a6c0f7e) built
with `go build` (its Go modules come from the module proxy), in-memory storage,
`--listen 127.0.0.1:PORT`, pinned to CPU 0, a fresh process per run.

Client, pinned to CPU 1: DSPS's own `loadtest/loadtest.k6.js` (kept at
crates/script/tests/scripts/dsps_loadtest.k6.js) run unchanged with BASE_URL,
CHANNELS, TEST_RAMPUP_SEC, TEST_DURATION_SEC; 4 VUs per channel (1 publisher,
3 subscribers). k6 and `loadlab k6 run` alternate (k6 first in odd reps).

Per run: HTTP req/s (http_reqs rate), received msg/s (dsps_fetched_messages
rate), message delay median/p90/p95 (dsps_msg_delay_ms), checks pass rate,
the client's peak RSS (ru_maxrss of the process, from wait4) and its CPU
time (user + sys) divided by the HTTP requests it made; then loadlab / k6
ratios; and the host's 1-minute load average at the end of each run (other
work on the machine skews a run). Figures come from each tool's
--summary-export file.

--sleepy: bench/scripts/sleepy.k6.js (each VU: one GET of DSPS's liveness
probe, then sleep 10 s) at 1,000 and 10,000 VUs: peak RSS and RSS per VU.
Before each run the expected k6 peak (~1 MB per VU + 200 MB) must fit in
MemAvailable with 4 GiB to spare, and a watchdog kills the client if
MemAvailable falls under 2 GiB during the run; either is reported, not hidden.

The loadlab side is skipped, with a message saying so, while the loadlab
binary has no `k6` command (`loadlab k6 run --help` fails).

--ws: bench/scripts/ws_chat.k6.js (k6/ws: each VU holds one WebSocket
session to bench/ws_echo.py, pinned to CPU 0, and sends a message a
second) at --ws-vus VUs: echoes per second, peak RSS and client CPU per
message (sent + received). Needs Python's `websockets` package.
`--ws-api websockets`: the same workload written for k6/websockets
(bench/scripts/ws_chat_websockets.k6.js).

--tools picks the clients (k6, loadlab, base; default k6,loadlab): `base`
is another loadlab binary (--base, e.g. a copy of an older build), to
compare two builds alternating in one session; the ratios are then
loadlab / base too.
"""
import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, ROOT, median  # noqa: E402

K6 = os.path.expanduser("~/go/bin/k6")
SEED_SCRIPT = os.path.join(ROOT, "crates", "script", "tests", "scripts", "dsps_loadtest.k6.js")
SLEEPY_SCRIPT = os.path.join(ROOT, "bench", "scripts", "sleepy.k6.js")
DSPS_REPO = "https://github.com/m3dev/dsps"
DSPS_COMMIT = "a6c0f7ebc6cc298e6385c198970e0e284f05327c"
CACHE = os.path.expanduser("~/.cache/loadlab-bench")


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def build_dsps(src_dir=None, git_dir=None):
    """Returns the path of a DSPS server binary built from its `server/` folder."""
    out = os.path.join(CACHE, f"dsps-{DSPS_COMMIT[:7]}")
    if os.path.exists(out):
        return out
    os.makedirs(CACHE, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="loadlab-bench-dsps-")
    try:
        if src_dir is None:
            if git_dir is None:
                git_dir = os.path.join(tmp, "repo")
                subprocess.run(["git", "clone", "--quiet", "--filter=blob:none", "--no-checkout",
                                DSPS_REPO, git_dir], check=True)
                git_dir = os.path.join(git_dir, ".git")
            src = os.path.join(tmp, "src")
            os.makedirs(src)
            # Only server/ is needed (the repository also holds large result files).
            arch = subprocess.run(["git", "--git-dir", git_dir, "archive", DSPS_COMMIT, "server"],
                                  check=True, capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", src], input=arch, check=True)
            src_dir = src
        log(f"building DSPS from {src_dir}/server (go build; modules from the Go proxy) ...")
        subprocess.run(["go", "build", "-o", out, "."], cwd=os.path.join(src_dir, "server"), check=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, 1 << 20) if hard != resource.RLIM_INFINITY else 1 << 20
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))


class Dsps:
    """The real DSPS, in memory, pinned to CPU 0."""

    def __init__(self, binary):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.logf = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(["taskset", "-c", "0", binary, "--listen", f"127.0.0.1:{self.port}"],
                                     stdout=self.logf, stderr=subprocess.STDOUT, preexec_fn=raise_nofile)
        import urllib.request
        for _ in range(200):
            if self.proc.poll() is not None:
                self.logf.seek(0)
                raise RuntimeError(f"DSPS exited {self.proc.returncode}: {self.logf.read()[-800:]!r}")
            try:
                with urllib.request.urlopen(self.url + "/probe/readiness", timeout=1) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("DSPS did not become ready")

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.logf.close()


def mem_available_kib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1])
    return 0


def loadavg1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_client(cmd, env, watchdog_kib=None, timeout=600):
    """Runs cmd on CPU 1; returns dict(rc, cpu, wall, maxrss_kib, killed, stdout, stderr)."""
    full = ["taskset", "-c", "1"] + cmd
    t0 = time.monotonic()
    out_f, err_f = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    p = subprocess.Popen(full, env=env, stdin=subprocess.DEVNULL, stdout=out_f, stderr=err_f,
                         preexec_fn=raise_nofile)
    killed = []
    stop = threading.Event()

    def watch():
        while not stop.wait(0.5):
            if time.monotonic() - t0 > timeout:
                killed.append("timeout")
                p.kill()
                return
            if watchdog_kib is not None and mem_available_kib() < watchdog_kib:
                killed.append(f"MemAvailable under {watchdog_kib // 1024} MiB")
                p.kill()
                return

    th = threading.Thread(target=watch, daemon=True)
    th.start()
    _, status, ru = os.wait4(p.pid, 0)
    stop.set()
    th.join()
    wall = time.monotonic() - t0
    out_f.seek(0)
    err_f.seek(0)
    return {
        "rc": os.waitstatus_to_exitcode(status),
        "cpu": ru.ru_utime + ru.ru_stime,
        "wall": wall,
        "maxrss_kib": ru.ru_maxrss,
        "killed": killed[0] if killed else None,
        "loadavg": loadavg1(),
        "stdout": out_f.read().decode(errors="replace"),
        "stderr": err_f.read().decode(errors="replace"),
    }


def loadlab_k6_available(binary):
    if not os.path.exists(binary):
        return f"{binary} does not exist (cargo build --profile dist -p loadlab --features full)"
    p = subprocess.run([binary, "k6", "run", "--help"], capture_output=True, text=True)
    if p.returncode != 0:
        first = (p.stderr or p.stdout).strip().splitlines()[:1]
        return f"`{binary} k6 run --help` failed ({first[0] if first else p.returncode}): no `loadlab k6` in this build"
    return None


def client_cmd(tool, binaries, script, export):
    if tool == "k6":
        return [binaries["k6"], "run", "--no-usage-report", "-q", "--summary-export", export, script]
    return [binaries[tool], "k6", "run", "--no-usage-report", "-q", "--summary-export", export, script]


def seed_run(tool, binaries, dsps_bin, channels, rampup, duration):
    dsps = Dsps(dsps_bin)
    export = tempfile.mktemp(prefix=f"loadlab-bench-{tool}-", suffix=".json")
    env = dict(os.environ, BASE_URL=dsps.url, CHANNELS=str(channels), TEST_RAMPUP_SEC=str(rampup),
               TEST_DURATION_SEC=str(duration), K6_AUTO_EXTENSION_RESOLUTION="false")
    try:
        cpu0 = dsps.cpu_seconds()
        r = run_client(client_cmd(tool, binaries, SEED_SCRIPT, export), env,
                       watchdog_kib=2 << 20, timeout=rampup * 2 + duration + 120)
        server_cpu = dsps.cpu_seconds() - cpu0
    finally:
        dsps.stop()
    res = {"tool": tool, "channels": channels, "vus": channels * 4, "rc": r["rc"], "killed": r["killed"],
           "wall_s": round(r["wall"], 2), "client_cpu_s": round(r["cpu"], 3),
           "server_cpu_s": round(server_cpu, 3), "peak_rss_mib": round(r["maxrss_kib"] / 1024, 1),
           "host_load1": r["loadavg"]}
    if r["rc"] not in (0, 99) or not os.path.exists(export):
        res["error"] = (r["stderr"] or r["stdout"])[-600:]
        return res
    with open(export) as f:
        m = json.load(f)["metrics"]
    os.remove(export)
    reqs = m["http_reqs"]["count"]
    delay = m.get("dsps_msg_delay_ms", {})
    res.update({
        "http_reqs": reqs,
        "req_per_s": round(m["http_reqs"]["rate"], 1),
        "msg_per_s": round(m.get("dsps_fetched_messages", {}).get("rate", 0.0), 1),
        "delay_med_ms": delay.get("med"),
        "delay_p90_ms": delay.get("p(90)"),
        "delay_p95_ms": delay.get("p(95)"),
        "checks_rate": m.get("checks", {}).get("value"),
        "client_cpu_us_per_req": round(r["cpu"] / reqs * 1e6, 1) if reqs else None,
        "server_cpu_us_per_req": round(server_cpu / reqs * 1e6, 1) if reqs else None,
        "thresholds_ok": r["rc"] == 0,
    })
    return res


def sleepy_run(tool, binaries, dsps_bin, vus, ramp, hold):
    need_kib = (vus * 1024 + 200 * 1024) if tool == "k6" else (vus * 256 + 200 * 1024)
    avail = mem_available_kib()
    res = {"tool": tool, "vus": vus}
    if need_kib + (4 << 20) > avail:
        res["skipped"] = (f"expected peak ~{need_kib // 1024} MiB + 4 GiB spare > MemAvailable "
                          f"{avail // 1024} MiB")
        return res
    dsps = Dsps(dsps_bin)
    export = tempfile.mktemp(prefix=f"loadlab-bench-sleepy-{tool}-", suffix=".json")
    env = dict(os.environ, BASE_URL=dsps.url, VUS=str(vus), RAMP_SEC=str(ramp), HOLD_SEC=str(hold),
               TARGET_PATH="/probe/liveness", SLEEP_SEC="10", K6_AUTO_EXTENSION_RESOLUTION="false")
    try:
        r = run_client(client_cmd(tool, binaries, SLEEPY_SCRIPT, export), env,
                       watchdog_kib=2 << 20, timeout=ramp + hold + 180)
    finally:
        dsps.stop()
    res.update({"rc": r["rc"], "killed": r["killed"], "wall_s": round(r["wall"], 1),
                "peak_rss_mib": round(r["maxrss_kib"] / 1024, 1),
                "kib_per_vu": round(r["maxrss_kib"] / vus, 1), "client_cpu_s": round(r["cpu"], 2)})
    if os.path.exists(export):
        with open(export) as f:
            m = json.load(f)["metrics"]
        os.remove(export)
        res["http_reqs"] = m["http_reqs"]["count"]
        res["vus_max"] = m.get("vus_max", {}).get("max")
        res["http_req_failed"] = m.get("http_req_failed", {}).get("value")
    elif r["rc"] != 0:
        res["error"] = (r["stderr"] or r["stdout"])[-600:]
    return res


WS_SCRIPTS = {
    "ws": os.path.join(ROOT, "bench", "scripts", "ws_chat.k6.js"),
    "websockets": os.path.join(ROOT, "bench", "scripts", "ws_chat_websockets.k6.js"),
}


def ws_run(tool, binaries, vus, ramp, hold, api="ws"):
    srv = subprocess.Popen(["taskset", "-c", "0", sys.executable, os.path.join(ROOT, "bench", "ws_echo.py")],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=raise_nofile)
    port = srv.stdout.readline().strip()
    export = tempfile.mktemp(prefix=f"loadlab-bench-ws-{tool}-", suffix=".json")
    env = dict(os.environ, WS_URL=f"ws://127.0.0.1:{port}/", VUS=str(vus), RAMP_SEC=str(ramp),
               HOLD_SEC=str(hold), SEND_MS="1000", K6_AUTO_EXTENSION_RESOLUTION="false")
    try:
        r = run_client(client_cmd(tool, binaries, WS_SCRIPTS[api], export), env,
                       watchdog_kib=2 << 20, timeout=ramp + hold + 120)
    finally:
        srv.kill()
        srv.wait()
    res = {"tool": tool, "vus": vus, "rc": r["rc"], "killed": r["killed"], "wall_s": round(r["wall"], 1),
           "peak_rss_mib": round(r["maxrss_kib"] / 1024, 1), "client_cpu_s": round(r["cpu"], 2),
           "host_load1": r["loadavg"]}
    if not os.path.exists(export):
        res["error"] = (r["stderr"] or r["stdout"])[-600:]
        return res
    with open(export) as f:
        m = json.load(f)["metrics"]
    os.remove(export)
    sent = m.get("ws_msgs_sent", {}).get("count", 0)
    got = m.get("ws_msgs_received", {}).get("count", 0)
    res.update({"sessions": m.get("ws_sessions", {}).get("count"), "msgs_sent": sent, "msgs_received": got,
                "echo_per_s": round(m.get("echoes", {}).get("rate", 0.0), 1),
                "checks_rate": m.get("checks", {}).get("value"),
                "client_cpu_us_per_msg": round(r["cpu"] / (sent + got) * 1e6, 1) if sent + got else None})
    return res


def exit_cell(r):
    """A run's exit code, and why the watchdog killed it if it did."""
    return f"{r['rc']}{' (killed: ' + r['killed'] + ')' if r['killed'] else ''}"


def fmt(v, nd=1):
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:,.{nd}f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def ratio(a, b):
    if a is None or b in (None, 0):
        return "–"
    return f"{a / b:.3f}"


def seed_tables(results):
    print("\n| tool | CHANNELS (VUs) | req/s | msg/s | msg delay med / p90 / p95 ms | checks | "
          "peak RSS MiB | client CPU µs/req | server CPU µs/req | host load | exit |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        if "error" in r:
            print(f"| {r['tool']} | {r['channels']} ({r['vus']}) | error: {r['error'].strip()[:120]!r} ||||||||| {r['rc']} |")
            continue
        print(f"| {r['tool']} | {r['channels']} ({r['vus']}) | {fmt(r['req_per_s'])} | {fmt(r['msg_per_s'])} | "
              f"{fmt(r['delay_med_ms'], 0)} / {fmt(r['delay_p90_ms'], 0)} / {fmt(r['delay_p95_ms'], 0)} | "
              f"{fmt(100.0 * r['checks_rate'] if r['checks_rate'] is not None else None, 2)} % | "
              f"{fmt(r['peak_rss_mib'])} | {fmt(r['client_cpu_us_per_req'])} | {fmt(r['server_cpu_us_per_req'])} | "
              f"{fmt(r['host_load1'])} | {r['rc']}{' (' + r['killed'] + ')' if r['killed'] else ''} |")
    by = {}
    for r in results:
        if "error" not in r:
            by.setdefault((r["channels"], r["tool"]), []).append(r)
    chans = sorted({c for c, _ in by})

    def med(rs, key):
        xs = [x[key] for x in rs if x.get(key) is not None]
        return median(xs) if xs else None
    for other in ["k6", "base"]:
        if not any((c, "loadlab") in by and (c, other) in by for c in chans):
            continue
        print(f"\nMedians, loadlab / {other}:\n")
        print("| CHANNELS | req/s | msg delay p50 | msg delay p95 | peak RSS | client CPU/req |")
        print("|---|---|---|---|---|---|")
        for c in chans:
            if (c, other) not in by or (c, "loadlab") not in by:
                continue
            k, lab = by[(c, other)], by[(c, "loadlab")]
            print(f"| {c} | " + " | ".join(ratio(med(lab, key), med(k, key)) for key in
                  ["req_per_s", "delay_med_ms", "delay_p95_ms", "peak_rss_mib", "client_cpu_us_per_req"]) + " |")
    # The server's own CPU per request, over every run: how fast the host
    # was (the same DSPS binary; a slower host moves both clients' figures).
    srv = [r["server_cpu_us_per_req"] for r in results
           if "error" not in r and r.get("server_cpu_us_per_req")]
    if srv:
        print(f"\nHost speed: DSPS CPU per request {min(srv):.1f}–{max(srv):.1f} µs, "
              f"median {median(srv):.1f} µs over {len(srv)} runs.")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--channels", default="50,200")
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--rampup", type=int, default=3)
    ap.add_argument("--duration", type=int, default=15)
    ap.add_argument("--dsps-src", help="a DSPS checkout (its server/ is built)")
    ap.add_argument("--dsps-git", help="a git dir holding DSPS's history (server/ is taken at the pinned commit)")
    ap.add_argument("--dsps", help="an already built DSPS server binary")
    ap.add_argument("--loadlab", default=os.environ.get("LOADLAB", LOADLAB))
    ap.add_argument("--k6", default=os.environ.get("K6", K6))
    ap.add_argument("--no-loadlab", action="store_true", help="run k6 only")
    ap.add_argument("--tools", default="k6,loadlab", help="clients to run, in order: k6, loadlab, base")
    ap.add_argument("--base", help="the `base` client: another loadlab binary (e.g. an older build)")
    ap.add_argument("--sleepy", action="store_true", help="the memory check instead of the seed workload")
    ap.add_argument("--sleepy-vus", default="1000,10000")
    ap.add_argument("--sleepy-ramp", type=int, default=10)
    ap.add_argument("--sleepy-hold", type=int, default=20)
    ap.add_argument("--ws", action="store_true", help="the k6/ws workload instead of the seed workload")
    ap.add_argument("--ws-vus", default="1000")
    ap.add_argument("--ws-ramp", type=int, default=10)
    ap.add_argument("--ws-hold", type=int, default=20)
    ap.add_argument("--ws-api", choices=["ws", "websockets"], default="ws",
                    help="the k6 module the --ws script uses")
    ap.add_argument("--json", help="also write every run's figures to this file")
    a = ap.parse_args()

    wanted = [t.strip() for t in a.tools.split(",") if t.strip()]
    for t in wanted:
        if t not in ("k6", "loadlab", "base"):
            sys.exit(f"--tools: unknown client {t!r} (k6, loadlab, base)")
    if "base" in wanted and not a.base:
        sys.exit("--tools base needs --base BIN (another loadlab binary)")
    if "k6" in wanted:
        if not os.path.exists(a.k6):
            sys.exit(f"k6 not found at {a.k6} (go install go.k6.io/k6@v1.8.1)")
        log(subprocess.run([a.k6, "version"], capture_output=True, text=True).stdout.strip())
    dsps_bin = None if a.ws else (a.dsps or build_dsps(a.dsps_src, a.dsps_git))
    binaries = {"k6": a.k6, "loadlab": a.loadlab, "base": a.base}
    tools = []
    for t in wanted:
        if t == "k6":
            tools.append(t)
        elif t == "loadlab" and a.no_loadlab:
            log("loadlab side skipped (--no-loadlab)")
        else:
            why = loadlab_k6_available(binaries[t])
            if why:
                log(f"{t} side SKIPPED: {why}")
            else:
                tools.append(t)

    results = []
    if a.ws:
        for rep in range(a.reps):
            order = tools if rep % 2 == 0 else list(reversed(tools))
            for vus in [int(v) for v in a.ws_vus.split(",")]:
                for tool in order:
                    log(f"ws ({a.ws_api}): rep {rep + 1}/{a.reps}: {tool} {vus} VUs "
                        f"(ramp {a.ws_ramp}s, hold {a.ws_hold}s) ...")
                    r = ws_run(tool, binaries, vus, a.ws_ramp, a.ws_hold, a.ws_api)
                    log(json.dumps(r))
                    results.append(r)
        print("\n| tool | VUs | sessions | msgs sent / received | echoes/s | checks | peak RSS MiB | "
              "client CPU s | client CPU µs/msg | host load | exit |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in results:
            if "error" in r:
                print(f"| {r['tool']} | {r['vus']:,} | error: {r['error'].strip()[:120]!r} |||||||| {r['rc']} |")
                continue
            cr = r.get("checks_rate")
            print(f"| {r['tool']} | {r['vus']:,} | {fmt(r['sessions'])} | {fmt(r['msgs_sent'])} / "
                  f"{fmt(r['msgs_received'])} | {fmt(r['echo_per_s'])} | "
                  f"{fmt(100 * cr if cr is not None else None, 2)} % | {fmt(r['peak_rss_mib'])} | "
                  f"{fmt(r['client_cpu_s'], 2)} | {fmt(r['client_cpu_us_per_msg'])} | {fmt(r['host_load1'])} | "
                  f"{exit_cell(r)} |")
        ok = [r for r in results if "error" not in r]
        for vus in sorted({r["vus"] for r in ok}):
            k = [r for r in ok if r["vus"] == vus and r["tool"] == "k6"]
            lab = [r for r in ok if r["vus"] == vus and r["tool"] == "loadlab"]
            if k and lab:
                def med(rs, key):
                    return median([x[key] for x in rs if x.get(key) is not None] or [0])
                print(f"\n{vus:,} VUs, medians loadlab / k6: peak RSS "
                      f"{ratio(med(lab, 'peak_rss_mib'), med(k, 'peak_rss_mib'))}, client CPU per message "
                      f"{ratio(med(lab, 'client_cpu_us_per_msg'), med(k, 'client_cpu_us_per_msg'))}, echoes/s "
                      f"{ratio(med(lab, 'echo_per_s'), med(k, 'echo_per_s'))}")
    elif a.sleepy:
        for vus in [int(v) for v in a.sleepy_vus.split(",")]:
            for tool in tools:
                log(f"sleepy: {tool} {vus} VUs (ramp {a.sleepy_ramp}s, hold {a.sleepy_hold}s) ...")
                r = sleepy_run(tool, binaries, dsps_bin, vus, a.sleepy_ramp, a.sleepy_hold)
                log(json.dumps(r))
                results.append(r)
        print("\n| tool | VUs | vus_max | HTTP requests | failed | peak RSS MiB | KiB per VU | client CPU s | exit |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in results:
            if "skipped" in r:
                print(f"| {r['tool']} | {r['vus']:,} | skipped: {r['skipped']} |||||||")
                continue
            failed = r.get("http_req_failed")
            print(f"| {r['tool']} | {r['vus']:,} | {fmt(r.get('vus_max'))} | {fmt(r.get('http_reqs'))} | "
                  f"{fmt(100 * failed if failed is not None else None, 2)} % | {fmt(r['peak_rss_mib'])} | "
                  f"{fmt(r['kib_per_vu'])} | {fmt(r['client_cpu_s'], 2)} | "
                  f"{exit_cell(r)} |")
    else:
        chans = [int(c) for c in a.channels.split(",")]
        for rep in range(a.reps):
            order = tools if rep % 2 == 0 else list(reversed(tools))
            for c in chans:
                for tool in order:
                    log(f"rep {rep + 1}/{a.reps}: {tool}, CHANNELS={c} ({c * 4} VUs) ...")
                    r = seed_run(tool, binaries, dsps_bin, c, a.rampup, a.duration)
                    log(json.dumps(r))
                    results.append(r)
        seed_tables(results)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
