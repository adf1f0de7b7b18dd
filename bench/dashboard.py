#!/usr/bin/env python3
"""What `attack -dashboard` costs the client, paired.

  python3 bench/dashboard.py [--binary BIN] [--skip-build] [--pairs 5] [--seconds 10] [--rate 5000]

Server: nginx (one worker) on CPU 0 serving a 100-byte file over keep-alive.
Client: loadlab attack pinned to CPU 1 at a fixed rate, in three ways, one
after the other in each pair (the order rotates from pair to pair):

  off        no -dashboard
  unwatched  -dashboard, no page connected
  watched    -dashboard with one page's event stream connected all along
             (read by this script, whose CPU is not counted)

Client CPU is user + sys from the kernel's rusage of the attack process.
Prints each pair and the medians of (variant CPU / off CPU - 1).
"""
import argparse
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import LOADLAB, Nginx, build_loadlab, median  # noqa: E402


def read_events(addr, got):
    """Reads the page's event stream until the attack closes it; counts events."""
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)))
    s.sendall(b"GET /events HTTP/1.1\r\nHost: bench\r\n\r\n")
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        got[0] += chunk.count(b"\nevent: ") + chunk.startswith(b"event: ")
    s.close()


def attack(binary, url, rate, secs, variant):
    """One attack; returns (cpu seconds, requests sent, events read)."""
    cmd = ["taskset", "-c", "1", binary, "attack", f"-rate={rate}", f"-duration={secs}s",
           "-output=/dev/null", "-quiet"]
    if variant != "off":
        cmd.append("-dashboard")
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stdin.write(f"GET {url}\n".encode())
    p.stdin.close()
    got = [0]
    reader = None
    err = b""
    if variant != "off":
        line = p.stderr.readline()
        err += line
        m = re.search(rb"dashboard on http://([^/ ]+)/", line)
        if not m:
            raise RuntimeError(f"no dashboard line: {line!r}")
        if variant == "watched":
            reader = threading.Thread(target=read_events, args=(m.group(1).decode(), got))
            reader.start()
    err += p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    if reader:
        reader.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(err.decode(errors="replace")[-500:])
    return ru.ru_utime + ru.ru_stime, got[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=LOADLAB)
    ap.add_argument("--skip-build", action="store_true")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--rate", type=int, default=5000)
    a = ap.parse_args()
    if not a.skip_build and a.binary == LOADLAB:
        build_loadlab()
    ng = Nginx({"100b": 100})
    url = ng.url("100b")
    variants = ["off", "unwatched", "watched"]
    rows = []
    try:
        for i in range(a.pairs):
            order = variants[i % 3:] + variants[:i % 3]
            cpu = {}
            for v in order:
                c, events = attack(a.binary, url, a.rate, a.seconds, v)
                cpu[v] = c
                if v == "watched" and events < a.seconds:
                    raise RuntimeError(f"the page got {events} events in {a.seconds}s")
            rows.append(cpu)
            print(f"pair {i + 1}: " + "  ".join(f"{v} {cpu[v]:.3f}s" for v in variants), flush=True)
    finally:
        ng.stop()
    for v in ("unwatched", "watched"):
        ratios = [r[v] / r["off"] - 1 for r in rows]
        print(f"{v}: median {median(ratios) * 100:+.2f} % client CPU over off "
              f"(pairs: {', '.join(f'{x * 100:+.1f}' for x in ratios)})")
    print(f"off: median {median([r['off'] for r in rows]):.3f} s CPU for {a.rate * a.seconds} requests")


if __name__ == "__main__":
    main()
