"""A small HTTP/1.1 keep-alive load generator (the fallback when wrk is unavailable).

Reads a JSON spec on stdin ({base, seconds, connections, start, requests: [...]}) and prints one
`BENCH_RESULT {...}` line in wrk's units (microseconds). Run in its own process so that it
does not share an interpreter with the server or the harness.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from urllib.parse import urlsplit


def _encode(host: str, request: dict[str, object]) -> bytes:
    body = str(request.get("body") or "").encode()
    lines = [f"{request['method']} {request['path']} HTTP/1.1", f"Host: {host}"]
    lines += [f"{k}: {v}" for k, v in request.get("headers") or []]  # type: ignore[attr-defined]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


async def _read_response(reader: asyncio.StreamReader) -> int:
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = None
    chunked = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
    if chunked:
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    elif length:
        await reader.readexactly(length)
    return status


async def _worker(spec, payloads, stop_at, latencies, counters):  # type: ignore[no-untyped-def]
    parts = urlsplit(spec["base"])
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    try:
        while time.perf_counter() < stop_at:
            # One position shared by every connection (one event loop: no lock needed), so
            # each request is asked once per cycle, spread over the connections.
            payload = payloads[counters["next"] % len(payloads)]
            counters["next"] += 1
            started = time.perf_counter()
            writer.write(payload)
            try:
                status = await _read_response(reader)
            except (asyncio.IncompleteReadError, ConnectionError):
                counters["socket"] += 1
                writer.close()
                reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
                continue
            latencies.append(time.perf_counter() - started)
            if not 200 <= status < 400:
                counters["status"] += 1
    finally:
        writer.close()


async def main_async(spec) -> dict[str, float]:  # type: ignore[no-untyped-def]
    host = urlsplit(spec["base"]).netloc
    payloads = [_encode(host, r) for r in spec["requests"]]
    latencies: list[float] = []
    counters = {"status": 0, "socket": 0, "next": int(spec.get("start", 0))}
    started = time.perf_counter()
    stop_at = started + float(spec["seconds"])
    await asyncio.gather(
        *(
            _worker(spec, payloads, stop_at, latencies, counters)
            for _ in range(int(spec["connections"]))
        )
    )
    elapsed = time.perf_counter() - started
    latencies.sort()

    def pct(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1e6 if latencies else 0

    return {
        "requests": len(latencies),
        "duration_us": elapsed * 1e6,
        "p50_us": pct(0.50),
        "p90_us": pct(0.90),
        "p99_us": pct(0.99),
        "mean_us": sum(latencies) / len(latencies) * 1e6 if latencies else 0,
        "status": counters["status"],
        "socket": counters["socket"],
    }


def main() -> int:
    spec = json.load(sys.stdin)
    print("BENCH_RESULT " + json.dumps(asyncio.run(main_async(spec))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
