"""Load generation from a separate process: wrk with a Lua script when it is installed (the
bench installs Debian's package if it can), else `python -m bench.pyload` (asyncio sockets).

Every request of a scenario is prepared up front; the connections take them in order, round
robin, from a position the caller carries over runs, so each request of a mix of thousands is
asked once per cycle. The result is throughput, latency percentiles and the count of non-2xx answers and socket errors.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from attrs import asdict, frozen

from bench.procs import ROOT


@frozen
class Request:
    method: str
    path: str
    headers: tuple[tuple[str, str], ...] = ()
    body: str = ""


@frozen
class LoadResult:
    requests: int
    seconds: float
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    mean_ms: float
    non_2xx: int
    socket_errors: int
    generator: str

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def ensure_wrk(log=print) -> str | None:  # type: ignore[no-untyped-def]
    """wrk's path, installing Debian's package when missing and apt-get is usable."""
    found = shutil.which("wrk")
    if found:
        return found
    apt = shutil.which("apt-get")
    if apt is None:
        return None
    for steps in (
        [[apt, "install", "-y", "-qq", "wrk"]],
        [[apt, "update", "-qq"], [apt, "install", "-y", "-qq", "wrk"]],
    ):
        log("installing wrk with apt-get ...")
        ok = all(
            subprocess.run(step, capture_output=True, timeout=600, check=False).returncode == 0
            for step in steps
        )
        if ok and shutil.which("wrk"):
            return shutil.which("wrk")
    return None


def _lua_string(text: str) -> str:
    return "[==[" + text + "]==]" if "]==]" not in text else json.dumps(text)


LUA_DONE = r"""
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'BENCH_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,' ..
    '"mean_us":%.1f,"status":%d,"socket":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.mean, e.status, e.connect + e.read + e.write + e.timeout))
end
"""


# Requests per Lua function: LuaJIT bounds the constants of one function (and the upvalues,
# so the functions live in a table rather than in locals).
LUA_CHUNK = 500


def wrk_script(requests: list[Request]) -> str:
    """A wrk script that asks `requests` in order, round robin from the position given as its
    first argument: one thread takes them all (the thread's connections share the position,
    so every request is asked once per cycle, spread over the connections); with T threads
    (second argument) thread k takes every T-th from position + k."""
    lines = ["local reqs = {}", "local chunks = {}"]
    for at in range(0, len(requests), LUA_CHUNK):
        lines.append("chunks[#chunks + 1] = function()")
        for r in requests[at : at + LUA_CHUNK]:
            headers = (
                "{"
                + ", ".join(f"[ {_lua_string(k)} ] = {_lua_string(v)}" for k, v in r.headers)
                + "}"
            )
            body = _lua_string(r.body) if r.body else "nil"
            lines.append(
                f"  reqs[#reqs + 1] = wrk.format({_lua_string(r.method)}, "
                f"{_lua_string(r.path)}, {headers}, {body})"
            )
        lines.append("end")
    lines += [
        "local threads = 0",
        "setup = function(thread)",
        "  thread:set('thread_index', threads)",
        "  threads = threads + 1",
        "end",
        "local n, i, step = 0, 0, 1",
        "init = function(args)",
        "  for _, add in ipairs(chunks) do add() end",
        "  n = #reqs",
        "  step = tonumber(args[2]) or 1",
        "  i = ((tonumber(args[1]) or 0) + (thread_index or 0)) % n",
        "end",
        "request = function()",
        "  local r = reqs[i + 1]",
        "  i = (i + step) % n",
        "  return r",
        "end",
        LUA_DONE,
    ]
    return "\n".join(lines) + "\n"


def run_load(
    base: str,
    requests: list[Request],
    *,
    seconds: float,
    connections: int,
    wrk: str | None,
    start: int = 0,
) -> LoadResult:
    """One timed run against `base` (http://127.0.0.1:PORT), asking `requests` in order from
    position `start` (the caller carries the position over runs, so that a mix of thousands
    of questions is asked whole over the rounds rather than its head each time)."""
    if wrk:
        return _run_wrk(wrk, base, requests, seconds=seconds, connections=connections, start=start)
    return _run_python(base, requests, seconds=seconds, connections=connections, start=start)


def _run_wrk(
    wrk: str, base: str, requests: list[Request], *, seconds: float, connections: int, start: int
) -> LoadResult:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(wrk_script(requests))
    try:
        duration = f"{max(1, round(seconds))}s"
        done = subprocess.run(
            [
                wrk,
                "-t1",
                f"-c{connections}",
                f"-d{duration}",
                "--timeout",
                "10s",
                "-s",
                script.name,
                base,
                "--",
                str(start % len(requests)),
                "1",
            ],
            capture_output=True,
            text=True,
            timeout=seconds + 60,
            check=False,
        )
    finally:
        Path(script.name).unlink(missing_ok=True)
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH_RESULT ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(
            f"wrk failed ({done.returncode}): {done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    return _result(json.loads(line.removeprefix("BENCH_RESULT ")), "wrk")


def _run_python(
    base: str, requests: list[Request], *, seconds: float, connections: int, start: int
) -> LoadResult:
    spec = {
        "base": base,
        "seconds": seconds,
        "connections": connections,
        "start": start,
        "requests": [
            {"method": r.method, "path": r.path, "headers": list(r.headers), "body": r.body}
            for r in requests
        ],
    }
    done = subprocess.run(
        [sys.executable, "-m", "bench.pyload"],
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=seconds + 60,
        cwd=ROOT,
        check=False,
    )
    line = next((x for x in done.stdout.splitlines() if x.startswith("BENCH_RESULT ")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"python load generator failed: {done.stderr[-2000:]}")
    return _result(json.loads(line.removeprefix("BENCH_RESULT ")), "python-asyncio")


def _result(raw: dict[str, float], generator: str) -> LoadResult:
    secs = raw["duration_us"] / 1e6
    return LoadResult(
        requests=int(raw["requests"]),
        seconds=round(secs, 3),
        rps=round(raw["requests"] / secs, 1) if secs else 0.0,
        p50_ms=round(raw["p50_us"] / 1000, 3),
        p90_ms=round(raw["p90_us"] / 1000, 3),
        p99_ms=round(raw["p99_us"] / 1000, 3),
        mean_ms=round(raw["mean_us"] / 1000, 3),
        non_2xx=int(raw["status"]),
        socket_errors=int(raw["socket"]),
        generator=generator,
    )
