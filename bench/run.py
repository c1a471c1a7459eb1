"""`python -m bench` (make bench) and `python -m bench --quick` (make bench-quick).

Measures the served API at full national scale (--quick: the bundled demo), computed: the
app server with answer reuse off (SCHOOLDATA_REPLAY_MB=0) asked thousands of distinct
questions (real-style names, real postcodes within 2 miles, every served URN), against a
constant-JSON ceiling of each answer's size on the same granian and against Datasette over the
same rows. A second app server with answer reuse on (the default) answers a Zipf-distributed
mix of the same questions: the second table, never the headline. wrk drives each scenario
from a separate process; in-process latencies, import times and RSS per worker are measured
too. Writes a table, bench/results/<mode>.json and (full runs) the results block of
docs/performance.md.
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
from bench.inputs import SEED, ZIPF_S, Inputs, sample_inputs
from bench.load import LoadResult, Request, ensure_wrk, run_load
from bench.procs import PROJECT_PYTHON, ROOT, Server, free_port, run
from bench.scenarios import Scenario, build_scenarios
from bench.targets import TARGETS
from schooldata.bootstrap import server_loop

RESULTS = ROOT / "bench" / "results"
# The two app servers: the headline computes every answer; the second keeps the default.
APP_ENV = {"app": {"SCHOOLDATA_REPLAY_MB": "0"}, "app_reuse": {}}


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


def spread(requests: list[Request], count: int) -> list[Request]:
    """`count` requests evenly spaced over the scenario's order (a Zipf mix: weighted as asked)."""
    return requests[:: max(1, len(requests) // count)][:count]


def check(base: str, scenario: Scenario, count: int) -> float:
    """`count` requests spread over the scenario answer 2xx before any load (each of a
    thousands-long mix would make the setup longer than the run); their mean body size."""
    sizes = []
    for request in spread(scenario.requests, count):
        status, body = fetch(base, request)
        if not 200 <= status < 300:
            raise RuntimeError(f"{scenario.name}: {request.path[:120]} -> {status}: {body[:300]!r}")
        if request.path == "/mcp" and b'"isError":true' in body:
            raise RuntimeError(f"{scenario.name}: tool error: {body[:300]!r}")
        sizes.append(len(body))
    return sum(sizes) / len(sizes)


def _targets_help() -> str:
    lines = ["targets (each ratio: the median over rounds of subject / baseline, back to back):"]
    for t in TARGETS:
        if t.kind == "ratio":
            lines.append(f"  {t.title}: >= {t.limit:g}x  ({t.subject} / {t.baseline})")
        elif t.kind == "max":
            lines.append(f"  {t.title}: <= {t.limit:g}")
    lines.append("answer reuse on (second table, no targets): each Zipf mix / its ceiling")
    lines.append("bench/README.md says what every scenario asks.")
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench",
        description=__doc__.split("\n\n")[1],
        epilog=_targets_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
    parser.add_argument(
        "--distinct",
        type=int,
        help="distinct name queries and postcodes per scenario (default 3000; quick 1000); "
        "getSchool asks every served URN",
    )
    parser.add_argument(
        "--mix-length",
        type=int,
        help=f"requests in each Zipf (s={ZIPF_S:g}) mix of the reuse table "
        "(default 30000; quick 5000)",
    )
    parser.add_argument(
        "--precheck",
        type=int,
        help="requests per scenario checked for a 2xx answer before any load, spread over "
        "its mix (default 300; quick 40); their mean body size sizes the ceilings",
    )
    parser.add_argument(
        "--skip-reuse",
        action="store_true",
        help="measure the computed path only (no second app server, no reuse table)",
    )
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
    args = parser.parse_args(argv)
    quick = args.quick
    args.scale = "quick" if quick else "full"
    args.seconds = args.seconds or (1 if quick else 5)
    args.warmup = args.warmup if args.warmup is not None else (0 if quick else 2)
    args.rounds = args.rounds or (1 if quick else 4)
    args.distinct = args.distinct or (1000 if quick else 3000)
    args.mix_length = args.mix_length or (5000 if quick else 30000)
    args.precheck = args.precheck or (40 if quick else 300)
    args.inprocess_seconds = args.inprocess_seconds or (0.3 if quick else 3.0)
    args.out = args.out or RESULTS / f"{args.scale}.json"
    args.time_imports = (args.time_imports or ("no" if quick else "yes")) == "yes"
    return args


def inprocess(meta: dict[str, Any], inputs: Inputs, seconds: float) -> dict[str, Any]:
    spec = {
        "db": dataset.db_url(Path(meta["db"])),
        "secret": dataset.BENCH_SECRET,
        "plans": str(dataset.plans_file()),
        "queries": list(inputs.queries),
        "postcodes": list(inputs.postcodes),
        "points": list(inputs.points),
        "seconds": seconds,
    }
    return json.loads(run([str(PROJECT_PYTHON), "-m", "bench.inprocess"], stdin=json.dumps(spec)))


def app_server(name: str, meta: dict[str, Any], logs: Path) -> Server:
    port = free_port()
    home = Path(tempfile.mkdtemp(prefix=f"bench-{name}-home-"))
    argv = [str(dataset.SCHOOLDATA), "--db", dataset.db_url(Path(meta["db"]))]
    return Server(
        name,
        [*argv, "serve", "--port", str(port)],
        port=port,
        env={**dataset.server_env(home), **APP_ENV[name]},
        ready_path="/api/v1/search?query=warm",
        log_dir=logs,
    )


def peer_server(meta: dict[str, Any], logs: Path) -> Server:
    port = free_port()
    return Server(
        "peer",
        [
            str(dataset.PEER_VENV / "bin" / "datasette"),
            *("serve", "-i", meta["peer_db"], "--port", str(port)),
            *("--setting", "sql_time_limit_ms", "10000", "--setting", "suggest_facets", "off"),
        ],
        port=port,
        log_dir=logs,
    )


def ceiling_server(sizes: dict[str, int], logs: Path) -> Server:
    port = free_port()
    granian = [str(PROJECT_PYTHON.parent / "granian"), "--interface", "asgi", "--factory"]
    return Server(
        "ceiling",
        [
            *granian,
            *("--host", "127.0.0.1", "--port", str(port), "--workers", "1"),
            *("--log-level", "warning", "--no-access-log", "--no-ws", "--loop", server_loop()),
            "bench.ceiling:create",
        ],
        port=port,
        env={"BENCH_CEILING_SIZES": ",".join(f"{k}={v}" for k, v in sizes.items())},
        log_dir=logs,
    )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.time()
    loadavg_at_start = os.getloadavg()
    wrk = ensure_wrk(log)
    if wrk is None:
        log("wrk unavailable: using the Python load generator (python -m bench.pyload)")
    meta = dataset.build(args.scale, rebuild=args.rebuild, log=log)
    if args.time_imports and meta["imports_measured"] != "this run":
        meta = dataset.retime_imports(meta, log)
    peer = args.peer != "skip" and dataset.ensure_peer(args.peer == "install", log)
    if peer:
        dataset.enable_peer_fts(Path(meta["peer_db"]))
    log(f"sampling {args.distinct} distinct questions per scenario (seed {SEED}) ...")
    inputs = sample_inputs(Path(meta["db"]), distinct=args.distinct)
    scenarios = build_scenarios(inputs, meta["api_key"], mix_length=args.mix_length)
    if args.skip_reuse:
        scenarios = [s for s in scenarios if s.table != "reuse"]

    log("in-process domain latencies (answer reuse off) ...")
    domain = inprocess(meta, inputs, args.inprocess_seconds)

    logs = dataset.CACHE / "logs"
    servers: dict[str, Server] = {}
    results: dict[str, list[LoadResult]] = {}
    sizes: dict[str, float] = {}
    skipped: dict[str, str] = {}
    memory: dict[str, Any] = {}
    try:
        for name in APP_ENV:
            if any(s.server == name for s in scenarios):
                servers[name] = app_server(name, meta, logs)
        if peer:
            servers["peer"] = peer_server(meta, logs)
        for name in APP_ENV:
            if name in servers:
                servers[name].wait_ready(timeout=600)
        log(f"checking {args.precheck} requests of each app scenario ...")
        for s in scenarios:
            if s.server in APP_ENV:
                sizes[s.name] = check(servers[s.server].base, s, args.precheck)
        memory["after_warmup_mb"] = {n: servers[n].memory_mb() for n in APP_ENV if n in servers}
        ceilings = {s.name: round(sizes[s.mirrors]) for s in scenarios if s.mirrors}
        servers["ceiling"] = ceiling_server(ceilings, logs)
        for name in ("ceiling", "peer"):
            if name in servers:
                servers[name].wait_ready()
        for s in scenarios:
            if s.server in APP_ENV:
                continue
            if s.server not in servers:
                skipped[s.name] = "Datasette not installed (run with --peer install)"
                continue
            sizes[s.name] = check(servers[s.server].base, s, args.precheck)

        positions = dict.fromkeys((s.name for s in scenarios), 0)
        for round_no in range(args.rounds):
            for s in scenarios:
                if s.name in skipped:
                    continue

                def load(seconds: float, s: Scenario = s) -> LoadResult:
                    result = run_load(
                        servers[s.server].base,
                        s.requests,
                        seconds=seconds,
                        connections=args.connections,
                        wrk=wrk,
                        start=positions[s.name],
                    )
                    positions[s.name] = (positions[s.name] + result.requests) % len(s.requests)
                    return result

                if args.warmup and round_no == 0:
                    load(args.warmup)
                result = load(args.seconds)
                results.setdefault(s.name, []).append(result)
                log(
                    f"round {round_no + 1}: {s.name:<22} {result.rps:>9.1f} req/s  "
                    f"p50 {result.p50_ms:7.2f} ms  p99 {result.p99_ms:7.2f} ms"
                )
        memory["after_load_mb"] = {n: servers[n].memory_mb() for n in APP_ENV if n in servers}
    finally:
        for server in servers.values():
            server.stop()

    document = report.assemble(
        args=args,
        meta=meta,
        inputs=inputs,
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
            "app_servers": {
                "app": "SCHOOLDATA_REPLAY_MB=0 (answer reuse off): the computed path",
                "app_reuse": "SCHOOLDATA_REPLAY_MB unset (answer reuse on, the default)",
            },
            "loadavg_at_start": [round(x, 2) for x in loadavg_at_start],
            "loadavg_at_end": [round(x, 2) for x in os.getloadavg()],
            "elapsed_seconds": round(time.time() - started, 1),
        },
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(document, indent=2) + "\n")
    table = report.markdown(document)
    print(table)
    log(f"results: {args.out}")
    if args.scale == "full" and not args.no_docs:
        report.update_docs(ROOT / "docs" / "performance.md", table)
    return 0
