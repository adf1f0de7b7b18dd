#!/usr/bin/env python3
"""loadlab sysbench beside Debian's sysbench 1.0.20, same private MariaDB.

  python3 bench/sysbench.py [--skip-build] [--reps 3] [--seconds 8] [--rows 100000]
                            [--threads 1,4,16] [--test oltp_read_only]
                            [--tools sysbench,loadlab,loadlab-1] [--before PATH]

Clients: sysbench; loadlab (the default: an OS thread per connection with
a blocking socket, as sysbench); loadlab-1 (`--client-threads=1`: every
connection a task of one runtime thread, the cheaper on a quiet core);
loadlab-tpc (the same as the default, named: `--client-threads=1000`); with
`--before PATH`, "before": another loadlab binary (e.g. the previous
commit's), so that a change is measured before and after in one run.
`--fifo` runs the server and the clients SCHED_FIFO (root only), which
keeps other work on a shared host from delaying their wake-ups.

Server: a private MariaDB (mariadb-install-db in a temporary directory,
--no-defaults, a free 127.0.0.1 port) pinned to CPU 0. Clients pinned to
CPU 1, one at a time, alternating sysbench and loadlab in each repetition so
that host noise hits both alike. Per run: transactions per second and the
client's CPU per query (user + sys from the kernel's rusage of the client
process ÷ queries). Medians of the repetitions, and the ratios
loadlab ÷ sysbench, printed as a Markdown table for bench/RESULTS.md.
"""
import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, build_loadlab, median, run_measured  # noqa: E402

PASSWORD = "bench-pw"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MariaDb:
    """A private MariaDB pinned to CPU 0, removed on stop()."""

    def __init__(self, prio=()):
        self.dir = tempfile.mkdtemp(prefix="loadlab-bench-mariadb-")
        data = os.path.join(self.dir, "data")
        user = ["--user=root"] if os.geteuid() == 0 else []
        subprocess.run(["mariadb-install-db", "--no-defaults", f"--datadir={data}",
                        "--auth-root-authentication-method=normal", "--skip-test-db"] + user,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.port = free_port()
        self.sock = os.path.join(self.dir, "sock")
        self.proc = subprocess.Popen(
            list(prio) + ["taskset", "-c", "0", "mariadbd", "--no-defaults", f"--datadir={data}",
             f"--port={self.port}", "--bind-address=127.0.0.1", f"--socket={self.sock}",
             f"--pid-file={self.dir}/pid", f"--log-error={self.dir}/error.log",
             "--skip-log-bin", "--skip-name-resolve", "--innodb-buffer-pool-size=256M",
             "--max-connections=200"] + user,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.proc.poll() is not None:
                    raise RuntimeError("mariadbd did not start: see " + self.dir)
                time.sleep(0.1)
        self.sql(f"CREATE USER 'sbtest'@'%' IDENTIFIED BY '{PASSWORD}'; CREATE DATABASE sbtest; "
                 "GRANT ALL ON sbtest.* TO 'sbtest'@'%';")

    def sql(self, q):
        subprocess.run(["mariadb", "--no-defaults", f"--socket={self.sock}", "-uroot", "-e", q], check=True)

    def args(self):
        return ["--mysql-host=127.0.0.1", f"--mysql-port={self.port}", "--mysql-user=sbtest",
                f"--mysql-password={PASSWORD}", "--mysql-db=sbtest"]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def figures(out):
    tps = float(re.search(r"transactions:\s+\d+\s+\(([\d.]+) per sec", out).group(1))
    queries = int(re.search(r"queries:\s+(\d+)", out).group(1))
    p95 = float(re.search(r"95th percentile:\s+([\d.]+)", out).group(1))
    return tps, queries, p95


TOOLS = {
    "sysbench": ["sysbench"],
    "loadlab": [LOADLAB, "sysbench"],
    # All connections as tasks of one client OS thread.
    "loadlab-1": [LOADLAB, "sysbench", "--client-threads=1"],
    # A client OS thread per connection with a blocking socket, as sysbench
    # (not run by default).
    "loadlab-tpc": [LOADLAB, "sysbench", "--client-threads=1000"],
}


PRIO = []


def one(tool, db, test, threads, secs, rows):
    cmd = PRIO + TOOLS[tool] + db.args() + [
        f"--table-size={rows}", f"--threads={threads}", f"--time={secs}", test, "run"]
    out, _, cpu, _, _ = run_measured(cmd, cpu=1)
    tps, queries, p95 = figures(out)
    return tps, cpu / queries * 1e6, p95


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=8)
    ap.add_argument("--rows", type=int, default=100000)
    ap.add_argument("--threads", default="1,4,16")
    ap.add_argument("--test", default="oltp_read_only")
    ap.add_argument("--tools", default="sysbench,loadlab,loadlab-1",
                    help="which clients, comma-separated (sysbench first: the ratios are to it)")
    ap.add_argument("--before", help="another loadlab binary, measured as 'before'")
    ap.add_argument("--fifo", action="store_true",
                    help="run the server and the clients SCHED_FIFO (chrt -f 10, needs root): on a host "
                         "shared with other work, a woken client or server thread then runs at once, as "
                         "on a quiet host, instead of waiting out another task's slice")
    a = ap.parse_args()
    if a.fifo:
        PRIO[:] = ["chrt", "-f", "10"]
    if a.before:
        TOOLS["before"] = [a.before, "sysbench"]
    tools = [t for t in a.tools.split(",") if t] + (["before"] if a.before else [])
    for t in list(TOOLS):
        if t not in tools:
            del TOOLS[t]
    if not a.skip_build:
        build_loadlab()
    db = MariaDb(PRIO)
    try:
        subprocess.run(["sysbench"] + db.args() + [f"--table-size={a.rows}", a.test, "prepare"],
                       check=True, stdout=subprocess.DEVNULL)
        # One warm-up run of each, not measured: the buffer pool fills.
        for tool in TOOLS:
            one(tool, db, a.test, 4, 3, a.rows)
        rows = []
        for n in [int(x) for x in a.threads.split(",")]:
            res = {t: [] for t in TOOLS}
            for _ in range(a.reps):
                for tool in TOOLS:
                    res[tool].append(one(tool, db, a.test, n, a.seconds, a.rows))
            med = {t: [median([r[i] for r in res[t]]) for i in range(3)] for t in res}
            rows.append((n, med, res))
            print(f"threads {n}: " + ", ".join(f"{t} {med[t]}" for t in TOOLS), flush=True)
        print()
        fifo = ", SCHED_FIFO" if a.fifo else ""
        print(f"{a.test}, {a.rows} rows, {a.seconds} s, medians of {a.reps} (MariaDB on CPU 0, client on CPU 1{fifo}):")
        print()
        print("| threads | client | tps | tps ratio | µs CPU/query | CPU ratio | p95 ms |")
        print("|---|---|---|---|---|---|---|")
        for n, med, _ in rows:
            s = med["sysbench"]
            for t in TOOLS:
                x = med[t]
                print(f"| {n} | {t} | {x[0]:.0f} | {x[0] / s[0]:.2f} | {x[1]:.1f} | **{x[1] / s[1]:.2f}** | {x[2]:.2f} |")
    finally:
        db.stop()


if __name__ == "__main__":
    main()
