"""Instructions per replayed request, counted by valgrind's callgrind: a figure that does not
move with the machine's load, for comparing the keyed list with its anonymous twin.

    .venv/bin/python -m bench.instructions            # the demo dataset (~5 min under valgrind)
    .venv/bin/python -m bench.instructions --full     # the full-scale dataset

Wall-clock ratios on these shared 2-core machines move by a fifth between rounds; a count of
executed instructions is the same from run to run, whatever else the machine is doing. The
served app is driven in process (as `bench.keyed_parts` does) inside one valgrind process:
the counters are zeroed and dumped around each variant, twice, so that what the dumps
themselves cost cancels out. Under valgrind everything runs ~50x slower, so what adapts to
wall time is pinned first: quota blocks are sized as under load (the largest) and the data
version is treated as known (never re-read), exactly as in a busy second of a real server.

Variants: the anonymous twin, the keyed list, and the keyed list with its whole admission
(authentication, metering, the answer lookup and the meter headers) remembered from one
earlier request, in this process only: what everything but the admission costs. The
instruction ratios track the served ratios of `make bench` closely (0.68 both, in
docs/performance.md), so they say where a change would move the served figure before a
full run is spent on it. Writes `bench/results/instructions-<scale>.json`.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bench import dataset
from bench.keyed_parts import (
    ANONYMOUS,
    KEYED,
    Driver,
    build_app,
    keyed_layer,
    on_server_loop,
    save,
)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
VARIANTS = ("anonymous twin", "keyed", "keyed, whole admission free")


def _dump(label: str) -> None:
    subprocess.run(["callgrind_control", "-d", label, str(os.getpid())], check=True)


async def _child(scale: str, count: int) -> None:
    """Inside valgrind: warm up, pin what adapts to wall time, then count each variant."""
    import schooldata.adapters.sql.access as sql_access

    meta = dataset.build(scale, log=lambda line: None)
    home = dataset.CACHE / f"{scale}-keyed-parts-home"
    home.mkdir(parents=True, exist_ok=True)
    app = build_app(meta, home)
    driver = Driver(app, meta["api_key"])
    await driver.start()
    for path, query in (ANONYMOUS, KEYED):
        for _ in range(3):  # computed, then recorded, then known to the replay stores
            await driver.request(path, query, path == KEYED[0])
            await asyncio.sleep(0.6)
    sql_access.BLOCK_SECONDS = 1e9  # blocks grow to their largest, as in a busy second
    layer = keyed_layer(app)
    layer._watch._refresh = 1e9  # the data version stays known: never re-read, never overdue
    layer._watch._checked_at = time.monotonic()

    async def anonymous() -> None:
        await driver.request(*ANONYMOUS, False)

    async def keyed() -> None:
        await driver.request(*KEYED, True)

    await _count(0, anonymous, count)
    await _count(1, keyed, count)
    from schooldata.entrypoints.rest.replay import keyed_request

    keyed_scope = keyed_request(driver.scope(*KEYED, True))
    if keyed_scope is None:
        raise RuntimeError("the keyed request carries no key")
    base, authorization, x_api_key = keyed_scope
    admission = layer._admit(authorization, x_api_key, base, wait=False)
    if admission is None or admission.answer is None:
        raise RuntimeError("the keyed question is not replayed")
    layer._admit = lambda *_, **__: admission  # remembered, in this process only
    await _count(2, keyed, count)


async def _count(variant: int, run: Callable[[], Awaitable[None]], count: int) -> None:
    """Variant `variant` of VARIANTS: dumps `v<variant>-1` after `count` requests and
    `v<variant>-2` after twice as many more."""
    for _ in range(count // 4):  # warm: the blocks at their size, the caches full
        await run()
    subprocess.run(["callgrind_control", "-z", str(os.getpid())], check=True)
    for _ in range(count):
        await run()
    _dump(f"v{variant}-1")
    for _ in range(2 * count):
        await run()
    _dump(f"v{variant}-2")


def _totals(directory: Path) -> dict[str, dict[int, int]]:
    """Dumped instruction totals by variant name and dump (1: `count` requests, 2: twice
    that), from the dumps' `desc: Trigger: dump v<variant>-<dump>` lines."""
    found: dict[str, dict[int, int]] = {}
    for path in directory.glob("callgrind.out.*"):
        trigger = total = None
        for line in path.read_text(errors="replace").splitlines():
            if line.startswith("desc: Trigger: dump v"):
                trigger = line.removeprefix("desc: Trigger: dump v")
            elif line.startswith("summary:"):
                total = int(line.split()[1])
        if trigger and total is not None:
            variant, _, which = trigger.partition("-")
            found.setdefault(VARIANTS[int(variant)], {})[int(which)] = total
    return found


def measure(scale: str, count: int) -> dict[str, Any]:
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        raise SystemExit("valgrind (callgrind) is not installed: apt-get install -y valgrind")
    dataset.build(scale, log=lambda line: print(line, file=sys.stderr))  # outside valgrind
    with tempfile.TemporaryDirectory(prefix="schooldata-callgrind-") as scratch:
        directory = Path(scratch)
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={directory / 'callgrind.out.%p'}",
                sys.executable,
                "-m",
                "bench.instructions",
                "--child",
                scale,
                "--count",
                str(count),
            ],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        totals = _totals(directory)
    per_request = {}
    for name in VARIANTS:
        dumps = totals.get(name, {})
        if set(dumps) != {1, 2}:
            raise RuntimeError(f"{name}: callgrind dumps missing ({sorted(dumps)})")
        # The second dump counts 2*count requests and the first count, each with the same
        # cost of dumping: their difference over count is one request's instructions.
        per_request[name] = round((dumps[2] - dumps[1]) / count)
    anonymous = per_request["anonymous twin"]
    return {
        "scale": scale,
        "requests_per_variant": 3 * count,
        "python": sys.version.split()[0],
        "instructions_per_request": per_request,
        "anonymous_over": {name: round(anonymous / v, 3) for name, v in per_request.items()},
    }


def table(result: dict[str, Any]) -> str:
    lines = [
        "| In-process, replayed (callgrind) | instructions per request | anonymous / this |",
        "|---|---:|---:|",
    ]
    for name, value in result["instructions_per_request"].items():
        lines.append(f"| {name} | {value:,} | {result['anonymous_over'][name]:.3f}x |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    parser.add_argument("--full", action="store_true", help="the full-scale dataset")
    parser.add_argument("--count", type=int, default=1000, help="requests per measured step")
    parser.add_argument("--out", type=Path, help="results JSON")
    parser.add_argument("--child", metavar="SCALE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        on_server_loop(_child(args.child, args.count))
        return 0
    scale = "full" if args.full else "quick"
    result = measure(scale, args.count)
    save(result, args.out or RESULTS / f"instructions-{scale}.json", table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
