"""Where a keyed replay's time goes, in process: the served ASGI app (every layer, the same
settings as `schooldata serve`) driven directly, no HTTP server, no load generator.

    .venv/bin/python -m bench.keyed_parts            # the demo dataset (built once, cached)
    .venv/bin/python -m bench.keyed_parts --full     # the full-scale dataset (`make bench`'s)

It times the `list_anonymous` and `list_keyed` questions (both replayed), then the keyed one
again with parts of its admission remembered from one earlier request, in this process
only (the product has no such switch): what the keyed request would cost if authenticating,
metering, or the whole admission (authentication, metering, the answer lookup and the meter
headers) cost nothing. Each figure is the fastest of many short batches, run in turns, so
other tenants of the machine slow no variant more than another.

Writes `bench/results/keyed-parts-<scale>.json` and prints a table; docs/performance.md reads
it to say what limits the keyed ratio. In-process ratios are lower than the served ones: a
served request also pays the server's own per-request work, the same for both.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

from bench import dataset

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
T = TypeVar("T")
QUERY = "st mary"
ANONYMOUS = ("/api/v1/search", b"query=st%20mary&phase=primary&limit=10")
KEYED = ("/api/v1/schools", b"q=st%20mary&phase=primary&per_page=10")


def build_app(meta: dict[str, Any], home: Path) -> Any:
    """The served app, as a granian worker builds it, logging to /dev/null (the JSON access
    log keeps its direct path: same handler type and formatter, another stream)."""
    os.environ.update(dataset.server_env(home))
    os.environ["SCHOOLDATA_DATABASE_URL"] = dataset.db_url(Path(meta["db"]))
    from schooldata.bootstrap import asgi_from_environment

    app = asgi_from_environment()
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(open(os.devnull, "w"))  # noqa: SIM115 (lives as long as the app)
    return app


def keyed_layer(app: Any) -> Any:
    layer = app
    while layer is not None and type(layer).__name__ != "KeyedReplayLayer":
        layer = getattr(layer, "_app", None)
    if layer is None:
        raise RuntimeError("no keyed replay layer: is the store SQLite, without Redis?")
    return layer


class Driver:
    def __init__(self, app: Any, key: str) -> None:
        self._app = app
        self._key = key.encode()
        self.sent: list[dict[str, Any]] = []

    def scope(self, path: str, query: bytes, keyed: bool) -> dict[str, Any]:
        headers = [(b"host", b"127.0.0.1:8000")]
        if keyed:
            headers.append((b"authorization", b"Bearer " + self._key))
        return {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query,
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 8000),
        }

    async def request(self, path: str, query: bytes, keyed: bool) -> int:
        self.sent.clear()

        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            self.sent.append(message)

        await self._app(self.scope(path, query, keyed), receive, send)
        return int(self.sent[0]["status"])

    async def start(self) -> None:
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        await queue.put({"type": "lifespan.startup"})

        async def send(_message: dict[str, Any]) -> None:
            return None

        self._lifespan = asyncio.ensure_future(
            self._app({"type": "lifespan", "asgi": {"version": "3.0"}}, queue.get, send)
        )
        await asyncio.sleep(0.3)


async def measure(meta: dict[str, Any], home: Path, batches: int, size: int) -> dict[str, Any]:
    app = build_app(meta, home)
    driver = Driver(app, meta["api_key"])
    await driver.start()
    for path, query in (ANONYMOUS, KEYED):
        for _ in range(3):  # computed, then recorded, then known to the replay stores
            status = await driver.request(path, query, path == KEYED[0])
            if status != 200:
                raise RuntimeError(f"{path}: {status}")
            await asyncio.sleep(0.6)  # the data version is read off the loop, once a second
    layer = keyed_layer(app)
    application = layer._application
    scope = driver.scope(*KEYED, True)
    from schooldata.entrypoints.rest.replay import keyed_request

    keyed = keyed_request(scope)
    assert keyed is not None
    base, authorization, x_api_key = keyed
    admission = layer._admit(authorization, x_api_key, base, wait=False)
    if admission is None or admission.answer is None:
        raise RuntimeError("the keyed question is not replayed")
    caller = admission.caller
    reading = application.meter.admit_nowait(caller, admission.answer.feature)

    # Each variant: (anonymous?, {object attribute: stand-in}) -- instance attributes that
    # shadow the real methods for that variant only.
    remembered: dict[str, tuple[bool, dict[tuple[Any, str], Callable[..., Any]]]] = {
        "anonymous twin": (False, {}),
        "keyed": (True, {}),
        "keyed, authentication free": (
            True,
            {(application.authenticate, "execute"): lambda **_: caller},
        ),
        "keyed, metering free": (
            True,
            {(application.meter, "admit_nowait"): lambda *_: reading},
        ),
        "keyed, whole admission free": (
            True,
            {(layer, "_admit"): lambda *_, **__: admission},
        ),
    }
    best = {name: float("inf") for name in remembered}
    clock = time.perf_counter
    for _ in range(batches):
        for name, (is_keyed, stand_ins) in remembered.items():
            for (target, attribute), stand_in in stand_ins.items():
                setattr(target, attribute, stand_in)
            path, query = KEYED if is_keyed else ANONYMOUS
            started = clock()
            for _ in range(size):
                await driver.request(path, query, is_keyed)
            best[name] = min(best[name], (clock() - started) / size * 1e6)
            for target, attribute in stand_ins:
                delattr(target, attribute)
    anonymous = best["anonymous twin"]
    return {
        "scale": meta.get("scale"),
        "batches": batches,
        "requests_per_batch": size,
        "python": sys.version.split()[0],
        "us_per_request": {name: round(value, 2) for name, value in best.items()},
        "anonymous_over": {name: round(anonymous / value, 3) for name, value in best.items()},
    }


def table(result: dict[str, Any]) -> str:
    lines = [
        "| In-process, replayed (fastest batch) | us per request | anonymous / this |",
        "|---|---:|---:|",
    ]
    for name, value in result["us_per_request"].items():
        lines.append(f"| {name} | {value:.1f} | {result['anonymous_over'][name]:.2f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.keyed_parts", description=__doc__)
    parser.add_argument("--full", action="store_true", help="the full-scale dataset")
    parser.add_argument("--batches", type=int, default=30, help="batches per variant")
    parser.add_argument("--size", type=int, default=2000, help="requests per batch")
    parser.add_argument("--out", type=Path, help="results JSON")
    args = parser.parse_args(argv)
    scale = "full" if args.full else "quick"
    meta = dataset.build(scale, log=lambda line: print(line, file=sys.stderr))
    home = dataset.CACHE / f"{scale}-keyed-parts-home"
    home.mkdir(parents=True, exist_ok=True)
    result = on_server_loop(measure(meta, home, args.batches, args.size))
    save(result, args.out or RESULTS / f"keyed-parts-{scale}.json", table(result))
    return 0


def on_server_loop(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run `coroutine` on the served app's event loop (`schooldata serve`: uvloop where it is
    installed), so in-process figures see the loop the server runs on."""
    from schooldata.bootstrap import server_loop

    if server_loop() == "uvloop":
        import uvloop

        return uvloop.run(coroutine)
    return asyncio.run(coroutine)


def save(result: dict[str, Any], out: Path, table_text: str) -> None:
    """The results JSON written, and the table and where the JSON is printed."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(table_text)
    print(f"results: {out}")


if __name__ == "__main__":
    sys.exit(main())
