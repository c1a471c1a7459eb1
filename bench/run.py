"""`python -m bench` (make bench) and `python -m bench --quick` (make bench-quick).

Starts the real server (`schooldata serve`), the ceiling (a constant-JSON Litestar app on the
same granian settings) and the peer (Datasette over the same rows) on loopback ports, drives
each scenario with wrk from a separate process, measures in-process domain latencies, and
writes a table, a JSON file under bench/results/ and (full runs) the table in
docs/performance.md. Every target is a ratio against a baseline measured in the same run, or
a bound the issue set; see bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from bench import dataset, report
from bench.load import LoadResult, Request, ensure_wrk, run_load
from bench.procs import PROJECT_PYTHON, ROOT, Server, free_port, run
from bench.scenarios import TARGETS, Scenario, build_scenarios, sample_inputs
from schooldata.bootstrap import server_loop

RESULTS = ROOT / "bench" / "results"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def fetch(base: str, request: Request, timeout: float = 300) -> tuple[int, bytes]:
    req = urllib.request.Request(
        base + request.path,
        data=request.body.encode() if request.body else None,
        method=request.method,
        headers=dict(request.headers),
    )
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def check(base: str, scenario: Scenario) -> float:
    """Every request answers 2xx before any load; the mean body size in bytes."""
    sizes = []
    for request in scenario.requests[:64]:
        status, body = fetch(base, request)
        if not 200 <= status < 300:
            raise RuntimeError(f"{scenario.name}: {request.path[:120]} -> {status}: {body[:300]!r}")
        if scenario.name == "mcp_search" and b'"isError":true' in body:
            raise RuntimeError(f"{scenario.name}: tool error: {body[:300]!r}")
        sizes.append(len(body))
    return sum(sizes) / len(sizes)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="the bundled demo dataset, short runs")
    parser.add_argument("--seconds", type=int, help="measured seconds per scenario and round")
    parser.add_argument(
        "--warmup", type=int, help="warm-up seconds per scenario, first round (0: none)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        help="rounds over all scenarios: each figure is its best round, each ratio the median "
        "of its per-round ratios (subject and baseline run back to back in every round)",
    )
    parser.add_argument("--connections", type=int, default=8, help="concurrent connections")
    parser.add_argument("--inprocess-seconds", type=float, help="seconds per in-process op")
    parser.add_argument("--rebuild", action="store_true", help="rebuild the cached dataset")
    parser.add_argument(
        "--time-imports",
        choices=("yes", "no"),
        help="re-run and time both imports into a scratch database (default: yes when full)",
    )
    parser.add_argument(
        "--peer",
        choices=("install", "if-installed", "skip"),
        default="install",
        help="Datasette: install its venv if missing (default), use it only if built, or skip",
    )
    parser.add_argument("--out", type=Path, help="results JSON (default bench/results/<mode>.json)")
    parser.add_argument("--no-docs", action="store_true", help="do not update docs/performance.md")
    parser.add_argument(
        "--no-replay",
        action="store_true",
        help="run the app with SCHOOLDATA_REPLAY_MB=0 (every answer computed, none replayed); "
        "results go to bench/results/<mode>-no-replay.json, never the docs",
    )
    args = parser.parse_args(argv)
    quick = args.quick
    args.scale = "quick" if quick else "full"
    args.seconds = args.seconds or (1 if quick else 5)
    args.warmup = args.warmup if args.warmup is not None else (0 if quick else 2)
    args.rounds = args.rounds or (1 if quick else 4)
    args.inprocess_seconds = args.inprocess_seconds or (0.3 if quick else 3.0)
    args.out = args.out or RESULTS / f"{args.scale}{'-no-replay' if args.no_replay else ''}.json"
    if args.no_replay:
        args.no_docs = True
    args.time_imports = (args.time_imports or ("no" if quick else "yes")) == "yes"
    return args


def replay_env(enabled: bool) -> dict[str, str]:
    return {} if enabled else {"SCHOOLDATA_REPLAY_MB": "0"}


def inprocess(
    meta: dict[str, Any], inputs: Any, seconds: float, env: dict[str, str]
) -> dict[str, Any]:
    spec = {
        "db": dataset.db_url(Path(meta["db"])),
        "secret": dataset.BENCH_SECRET,
        "plans": str(dataset.plans_file()),
        "queries": list(inputs.queries),
        "postcodes": inputs.postcodes,
        "points": inputs.points,
        "seconds": seconds,
    }
    return json.loads(
        run([str(PROJECT_PYTHON), "-m", "bench.inprocess"], stdin=json.dumps(spec), env=env)
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.time()
    wrk = ensure_wrk(log)
    if wrk is None:
        log("wrk unavailable: using the Python load generator (python -m bench.pyload)")
    meta = dataset.build(args.scale, rebuild=args.rebuild, log=log)
    if args.time_imports and meta["imports_measured"] != "this run":
        meta = dataset.retime_imports(meta, log)
    peer = args.peer != "skip" and dataset.ensure_peer(args.peer == "install", log)
    if peer:
        dataset.enable_peer_fts(Path(meta["peer_db"]))
    inputs = sample_inputs(Path(meta["db"]))
    scenarios = build_scenarios(inputs, meta["api_key"])

    log("in-process domain latencies ...")
    domain = inprocess(meta, inputs, args.inprocess_seconds, {})

    logs = dataset.CACHE / "logs"
    home = Path(tempfile.mkdtemp(prefix="bench-home-"))
    servers: dict[str, Server] = {}
    results: dict[str, list[LoadResult]] = {}
    sizes: dict[str, float] = {}
    skipped: dict[str, str] = {}
    memory: dict[str, Any] = {}
    try:
        port = free_port()
        servers["app"] = Server(
            "app",
            [
                str(dataset.SCHOOLDATA),
                "--db",
                dataset.db_url(Path(meta["db"])),
                "serve",
                "--port",
                str(port),
            ],
            port=port,
            env={**dataset.server_env(home), **replay_env(not args.no_replay)},
            ready_path="/api/v1/search?query=warm",
            log_dir=logs,
        )
        if peer:
            port = free_port()
            servers["peer"] = Server(
                "peer",
                [
                    str(dataset.PEER_VENV / "bin" / "datasette"),
                    "serve",
                    "-i",
                    meta["peer_db"],
                    "--port",
                    str(port),
                    "--setting",
                    "sql_time_limit_ms",
                    "10000",
                    "--setting",
                    "suggest_facets",
                    "off",
                ],
                port=port,
                log_dir=logs,
            )
        servers["app"].wait_ready(timeout=600)
        for s in scenarios:
            if s.server == "app":
                sizes[s.name] = check(servers["app"].base, s)
        memory["after_warmup_mb"] = servers["app"].memory_mb()
        port = free_port()
        ceiling_sizes = ",".join(
            f"{name}={round(sizes[scenario])}"
            for name, scenario in (
                ("search", "search_name"),
                ("school", "get_school"),
                ("mcp", "mcp_search"),
            )
        )
        servers["ceiling"] = Server(
            "ceiling",
            [
                str(PROJECT_PYTHON.parent / "granian"),
                "--interface",
                "asgi",
                "--factory",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--workers",
                "1",
                "--log-level",
                "warning",
                "--no-access-log",
                "--no-ws",
                "--loop",
                server_loop(),
                "bench.ceiling:create",
            ],
            port=port,
            env={"BENCH_CEILING_SIZES": ceiling_sizes},
            log_dir=logs,
        )
        for name in ("ceiling", "peer"):
            if name in servers:
                servers[name].wait_ready()
        for s in scenarios:
            if s.server == "app":
                continue
            if s.server not in servers:
                skipped[s.name] = "Datasette not installed (run with --peer install)"
                continue
            sizes[s.name] = check(servers[s.server].base, s)

        for round_no in range(args.rounds):
            for s in scenarios:
                if s.name in skipped:
                    continue
                base = servers[s.server].base
                if args.warmup and round_no == 0:
                    run_load(
                        base, s.requests, seconds=args.warmup, connections=args.connections, wrk=wrk
                    )
                result = run_load(
                    base, s.requests, seconds=args.seconds, connections=args.connections, wrk=wrk
                )
                results.setdefault(s.name, []).append(result)
                log(
                    f"round {round_no + 1}: {s.name:<22} {result.rps:>9.1f} req/s  p50 {result.p50_ms:7.2f} ms  p99 {result.p99_ms:7.2f} ms"
                )
        memory["after_load_mb"] = servers["app"].memory_mb()
    finally:
        for server in servers.values():
            server.stop()

    document = report.assemble(
        args=args,
        meta=meta,
        scenarios=scenarios,
        results=results,
        sizes=sizes,
        skipped=skipped,
        domain=domain,
        memory=memory,
        targets=TARGETS,
        environment={
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "run_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "load_generator": "wrk" if wrk else "python-asyncio",
            "replay": not args.no_replay,
            "loadavg_at_start": os.getloadavg(),
            "elapsed_seconds": None,
        },
    )
    document["environment"]["elapsed_seconds"] = round(time.time() - started, 1)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2) + "\n")
    table = report.markdown(document)
    print(table)
    log(f"results: {args.out}")
    if args.scale == "full" and not args.no_docs:
        report.update_docs(ROOT / "docs" / "performance.md", document, table)
    return 0
