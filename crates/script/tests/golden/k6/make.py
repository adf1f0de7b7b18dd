#!/usr/bin/env python3
"""Re-makes the k6 golden outputs in this directory (see README.md).

  python3 crates/script/tests/golden/k6/make.py [CASE ...]

Starts `loadlab origin` (recipe: origin-recipe.json) and the DSPS-like pub/sub
test server (loadlab_testkit's `dsps-like` binary) on fixed loopback ports,
then runs real k6 on each case's script from the case's directory and keeps:
stdout.txt, stderr.txt, exit-code, command, summary-export.json and
out.sample.ndjson (every `Metric` line of `--out json` plus the first two
`Point` lines of each metric; the full file's line count is in out.lines). The absolute path of this directory
is written `/GOLDEN/` in the outputs.
"""
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", "..", ".."))
K6 = os.environ.get("K6", os.path.expanduser("~/go/bin/k6"))
ORIGIN_PORT = 18431
PUBSUB_PORT = 18432
CAPTURE_PORT = 18433
BASE = f"http://127.0.0.1:{ORIGIN_PORT}"
PUBSUB = f"http://127.0.0.1:{PUBSUB_PORT}"

# name: (script relative to the case dir, extra k6 flags, extra env)
CASES = {
    "checks_groups": ("checks_groups.js", [], {}),
    "checks_groups_full": ("../checks_groups/checks_groups.js", ["--summary-mode=full"], {}),
    "custom_metrics": ("custom_metrics.js", ["--tag", "run=golden"], {}),
    "thresholds_fail": ("thresholds_fail.js", [], {}),
    "thresholds_fail_full": ("../thresholds_fail/thresholds_fail.js", ["--summary-mode=full"], {}),
    "thresholds_abort": ("thresholds_abort.js", [], {}),
    "no_thresholds": ("../thresholds_fail/thresholds_fail.js", ["--no-thresholds"], {}),
    "summary_trend_stats": ("summary_trend_stats.js", [], {}),
    "summary_trend_stats_cli": ("../summary_trend_stats/summary_trend_stats.js",
                                ["--summary-trend-stats", "avg,p(99),count"], {}),
    "cli_flags": ("cli.js", ["-u", "2", "-i", "4", "-e", "EXTRA=1", "-q"], {}),
    "cli_duration": ("../cli_flags/cli.js", ["-u", "2", "-d", "1s", "--tag", "run=golden"], {}),
    "cli_stages": ("../cli_flags/cli.js", ["-s", "1s:2", "-s", "1s:0"], {}),
    "executors": ("executors.js", [], {}),
    "executors_full": ("../executors/executors.js", ["--summary-mode=full"], {}),
    "externally_controlled": ("externally_controlled.js", [], {}),
    "dropped_iterations": ("dropped_iterations.js", [], {}),
    "exception": ("exception.js", [], {}),
    "syntax_error": ("syntax_error.js", [], {}),
    "unknown_module": ("unknown_module.js", [], {}),
    "http_api": ("http_api.js", [], {"GREETING": "hi"}),
    "interrupted": ("interrupted.js", [], {}),
    "url_encoding": ("url_encoding.js", [], {}),
    "percentiles": ("percentiles.js", [], {}),
    "dsps_loadtest": ("../../../scripts/dsps_loadtest.k6.js", [],
                      {"BASE_URL": PUBSUB, "CHANNELS": "2", "TEST_RAMPUP_SEC": "1", "TEST_DURATION_SEC": "3"}),
}


def capture_server(lines):
    """A loopback server recording each request line; answers 204 and closes."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", CAPTURE_PORT))
    srv.listen(16)

    def loop():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = c.recv(4096)
                if not chunk:
                    break
                data += chunk
            lines.append(data.split(b"\r\n", 1)[0])
            c.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
            c.close()

    threading.Thread(target=loop, daemon=True).start()
    return srv


CAPTURED = []

# Cases interrupted with SIGINT (as Ctrl-C) after this many seconds.
INTERRUPT = {"interrupted": 2.0}


def wait_port(port, proc, what):
    for _ in range(200):
        if proc.poll() is not None:
            sys.exit(f"{what} exited {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{what} is not listening on {port}")


def sample(ndjson_path):
    per_metric = {}
    keep = []
    n = 0
    with open(ndjson_path) as f:
        for line in f:
            n += 1
            d = json.loads(line)
            if d.get("type") == "Metric":
                keep.append(line)
            elif d.get("type") == "Point":
                m = d.get("metric")
                if per_metric.get(m, 0) < 2:
                    per_metric[m] = per_metric.get(m, 0) + 1
                    keep.append(line)
            else:
                keep.append(line)
    return "".join(keep), n


def run_case(name, script, flags, env):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    for f in ["summary-export.json", "out.ndjson", "out.sample.ndjson", "out.lines"]:
        if os.path.exists(os.path.join(d, f)):
            os.remove(os.path.join(d, f))
    cmd = ["k6", "run", "--no-usage-report", "--out", "json=out.ndjson",
           "--summary-export", "summary-export.json"] + flags + [script]
    e = dict(os.environ, BASE=BASE, PUBSUB=PUBSUB, CAPTURE=f"http://127.0.0.1:{CAPTURE_PORT}", **env)
    captured = CAPTURED.clear() or CAPTURED
    # Without this, k6 v1 answers an unknown import by asking ingest.k6.io to
    # build it a binary (a network call off this machine).
    e["K6_AUTO_EXTENSION_RESOLUTION"] = "false"
    e.pop("K6_NO_COLOR", None)
    if name in INTERRUPT:
        proc = subprocess.Popen([K6] + cmd[1:], cwd=d, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(INTERRUPT[name])
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        p = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    else:
        p = subprocess.run([K6] + cmd[1:], cwd=d, env=e, capture_output=True, timeout=120)
    for name_, data in (("stdout.txt", p.stdout), ("stderr.txt", p.stderr)):
        with open(os.path.join(d, name_), "wb") as f:
            f.write(data.replace(HERE.encode() + b"/", b"/GOLDEN/"))
    with open(os.path.join(d, "exit-code"), "w") as f:
        f.write(f"{p.returncode}\n")
    if name == "url_encoding":
        with open(os.path.join(d, "requests.txt"), "wb") as f:
            f.write(b"".join(line + b"\n" for line in captured))
    envs = " ".join(f"{k}={v}" for k, v in sorted(env.items()))
    with open(os.path.join(d, "command"), "w") as f:
        if name in INTERRUPT:
            f.write(f"# SIGINT after {INTERRUPT[name]} s\n")
        f.write(f"cd {name} && K6_AUTO_EXTENSION_RESOLUTION=false BASE={BASE} PUBSUB={PUBSUB} "
                f"{envs + ' ' if envs else ''}{' '.join(cmd)}\n")
    out = os.path.join(d, "out.ndjson")
    if os.path.exists(out):
        s, n = sample(out)
        os.remove(out)
        with open(os.path.join(d, "out.sample.ndjson"), "w") as f:
            f.write(s)
        with open(os.path.join(d, "out.lines"), "w") as f:
            f.write(f"{n}\n")
    print(f"{name}: exit {p.returncode}")


def main():
    names = sys.argv[1:] or list(CASES)
    for n in names:
        if n not in CASES:
            sys.exit(f"unknown case {n!r}; cases: {', '.join(CASES)}")
    loadlab = os.environ.get("LOADLAB", os.path.join(ROOT, "target", "debug", "loadlab"))
    server = os.environ.get("PUBSUB_SERVER")
    if server is None:
        subprocess.run(["cargo", "build", "-p", "loadlab-testkit", "--bin", "dsps-like"], cwd=ROOT, check=True)
        server = os.path.join(ROOT, "target", "debug", "dsps-like")
    origin = subprocess.Popen([loadlab, "origin", "--listen", f"127.0.0.1:{ORIGIN_PORT}",
                               "--recipe", os.path.join(HERE, "origin-recipe.json")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pubsub = subprocess.Popen([server, "--listen", f"127.0.0.1:{PUBSUB_PORT}"], stdout=subprocess.DEVNULL)
    try:
        wait_port(ORIGIN_PORT, origin, "loadlab origin")
        wait_port(PUBSUB_PORT, pubsub, "dsps-like")
        capture = capture_server(CAPTURED)
        version = subprocess.run([K6, "version"], capture_output=True, text=True).stdout.strip()
        with open(os.path.join(HERE, "k6-version"), "w") as f:
            f.write(version + "\n")
        for n in names:
            run_case(n, *CASES[n])
    finally:
        if "capture" in locals():
            capture.close()
        for p in (origin, pubsub):
            p.terminate()
            p.wait()


if __name__ == "__main__":
    main()
