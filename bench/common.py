"""Shared helpers for loadlab's side-by-side benchmarks.

Everything runs on loopback. The server is pinned to CPU 0 and every client to
CPU 1 (`taskset`), each client's CPU time is read from the kernel's rusage for
that process (user + sys), and figures are compared as ratios within one run.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The benches measure the `dist` profile (fat LTO, one codegen unit): the
# fastest binary, not the quick `release` build a user gets first.
# LOADLAB_BIN=PATH measures another build (e.g. a debug one while a bench
# script is being written) and skips the `dist` build.
LOADLAB = os.environ.get("LOADLAB_BIN") or os.path.join(ROOT, "target", "dist", "loadlab")


def have(tool):
    return shutil.which(tool) is not None


def build_loadlab():
    if os.environ.get("LOADLAB_BIN"):
        return
    subprocess.run(["cargo", "build", "--profile", "dist", "--locked", "-p", "loadlab", "--features", "full"], cwd=ROOT, check=True)


def run_measured(cmd, cpu=1, stdin=None, stdout=subprocess.PIPE, timeout=900):
    """Runs cmd pinned to `cpu`; returns (stdout text, stderr text, cpu seconds, wall seconds, max rss KiB)."""
    full = ["taskset", "-c", str(cpu)] + cmd
    t0 = time.monotonic()
    p = subprocess.Popen(full, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                         stdout=stdout, stderr=subprocess.PIPE)
    if stdin is not None:
        p.stdin.write(stdin.encode())
        p.stdin.close()
    out = p.stdout.read() if stdout == subprocess.PIPE else b""
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {p.returncode}: {err.decode(errors='replace')[-500:]}")
    return (out.decode(errors="replace"), err.decode(errors="replace"),
            ru.ru_utime + ru.ru_stime, wall, ru.ru_maxrss)


class Nginx:
    """nginx with one worker, pinned to CPU 0, serving files from a temp dir."""

    def __init__(self, files, port=18080, worker_connections=20000):
        if not have("nginx"):
            raise SystemExit("bench: nginx is the benchmarks' server and is not installed "
                             "(Debian: apt-get install nginx)")
        self.dir = tempfile.mkdtemp(prefix="loadlab-bench-nginx-")
        # nginx's worker runs as an unprivileged user: it must be able to read the files.
        os.chmod(self.dir, 0o755)
        self.port = port
        www = os.path.join(self.dir, "www")
        os.makedirs(www)
        for name, size in files.items():
            with open(os.path.join(www, name), "wb") as f:
                f.write(b"x" * size)
            os.chmod(os.path.join(www, name), 0o644)
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""
worker_processes 1;
worker_rlimit_nofile 65536;
daemon off;
pid {self.dir}/nginx.pid;
error_log {self.dir}/error.log warn;
events {{ worker_connections {worker_connections}; multi_accept on; }}
http {{
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  client_body_temp_path {self.dir}/body;
  proxy_temp_path {self.dir}/proxy;
  fastcgi_temp_path {self.dir}/fastcgi;
  uwsgi_temp_path {self.dir}/uwsgi;
  scgi_temp_path {self.dir}/scgi;
  server {{ listen 127.0.0.1:{port} backlog=65535; root {www}; }}
}}
""")
        self.proc = subprocess.Popen(["taskset", "-c", "0", "nginx", "-c", conf, "-p", self.dir],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        import urllib.request
        with urllib.request.urlopen(self.url(next(iter(files)))) as r:
            assert r.status == 200, f"nginx answered {r.status}"

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/{name}"

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return float("nan")
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def parse_go_duration_ms(s):
    """'1.234ms' / '250µs' / '1m2.5s' -> milliseconds."""
    units = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "m": 6e4, "h": 3.6e6}
    total = 0.0
    for num, unit in re.findall(r"([\d.]+)(ns|us|µs|ms|s|m|h)", s):
        total += float(num) * units[unit]
    return total
