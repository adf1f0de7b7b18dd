#!/usr/bin/env python3
"""Open-model load over many keep-alive connections (wrk2-style `-c N -R rate`).

Opens CONNS connections first, then sends RATE requests per second spread
round-robin over them for DURATION seconds. Request i is *due* at
t0 + i/RATE; its latency is measured from that due time, not from when it was
actually sent, so a stalled server cannot hide (coordinated omission).

usage: open_load.py URL CONNS RATE DURATION_S
prints one JSON line: {"requests", "errors", "rate", "p50_ms", "p90_ms", "p99_ms", "max_ms", ...}
"""
import asyncio
import json
import sys
from urllib.parse import urlsplit


async def one_connection(idx, host, port, path, conns, rate, t_end, t0, lat, errs, ready, gate, start):
    try:
        async with gate:
            reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        errs.append("connect")
        ready.release()
        return
    ready.release()
    req = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    await start.wait()  # every connection is open before the clock starts
    k = 0
    loop = asyncio.get_running_loop()
    while True:
        due = t0[0] + (idx + k * conns) / rate
        if due >= t_end[0]:
            break
        delay = due - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        try:
            writer.write(req)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = 0
            for line in head.split(b"\r\n"):
                if line[:15].lower() == b"content-length:":
                    length = int(line[15:])
            if length:
                await reader.readexactly(length)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as e:
            errs.append(type(e).__name__)
            break
        lat.append(loop.time() - due)
        if status >= 400:
            errs.append(f"status {status}")
        k += 1
    writer.close()


async def main():
    url, conns, rate, duration = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    u = urlsplit(url)
    host, port, path = u.hostname, u.port or 80, (u.path or "/")
    lat, errs = [], []
    t0, t_end = [float("inf")], [float("inf")]
    ready = asyncio.Semaphore(0)
    start = asyncio.Event()
    gate = asyncio.Semaphore(200)  # connect at most 200 at a time: listen backlogs are finite
    tasks = [
        asyncio.create_task(one_connection(i, host, port, path, conns, rate, t_end, t0, lat, errs, ready, gate, start))
        for i in range(conns)
    ]
    for _ in range(conns):
        await ready.acquire()
    loop = asyncio.get_running_loop()
    t0[0] = loop.time() + 0.5
    t_end[0] = t0[0] + duration
    start.set()
    await asyncio.gather(*tasks)
    lat.sort()
    n = len(lat)

    def q(p):
        return round(lat[min(n - 1, int(p * n))] * 1000, 2) if n else None

    print(json.dumps({
        "connections": conns, "target_rate": rate, "duration_s": duration,
        "requests": n, "errors": len(errs), "error_kinds": sorted(set(errs))[:5],
        "rate": round(n / duration, 1),
        "p50_ms": q(0.5), "p90_ms": q(0.9), "p99_ms": q(0.99), "max_ms": q(1.0),
    }))


if __name__ == "__main__":
    asyncio.run(main())
