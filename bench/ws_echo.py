#!/usr/bin/env python3
"""A WebSocket echo server for `bench/k6.py --ws`: every text or binary
message is sent back. Python's `websockets` package (pip install
websockets), one asyncio thread; prints its port on stdout when ready.

  python3 bench/ws_echo.py [PORT]   (0, the default: a free port)
"""
import asyncio
import sys

from websockets.asyncio.server import serve
from websockets.exceptions import ConnectionClosed


async def echo(ws):
    try:
        async for m in ws:
            await ws.send(m)
    except ConnectionClosed:
        pass


async def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    async with serve(echo, "127.0.0.1", port, max_queue=None, ping_interval=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()


asyncio.run(main())
