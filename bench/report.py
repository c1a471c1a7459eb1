"""Results: the JSON document, the Markdown table, and the table in docs/performance.md."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.inputs import SEED, ZIPF_S, Inputs
from bench.load import LoadResult
from bench.scenarios import Scenario
from bench.targets import Target

DOCS_START = "<!-- bench:results:start -->"
DOCS_END = "<!-- bench:results:end -->"


def _best(runs: Sequence[LoadResult]) -> LoadResult:
    """The round with the highest throughput: other tenants of a shared machine only ever
    slow a round down, so the best round is the least disturbed one."""
    return max(runs, key=lambda r: r.rps)


def _lookup(document: dict[str, Any], dotted: str) -> float | None:
    value: Any = document
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return float(value) if isinstance(value, int | float) else None


def assemble(
    *,
    args: Any,
    meta: dict[str, Any],
    inputs: Inputs,
    scenarios: Sequence[Scenario],
    results: dict[str, list[LoadResult]],
    sizes: dict[str, float],
    skipped: dict[str, str],
    domain: dict[str, Any],
    memory: dict[str, Any],
    targets: Sequence[Target],
    environment: dict[str, Any],
) -> dict[str, Any]:
    scenario_docs: dict[str, Any] = {}
    for s in scenarios:
        entry: dict[str, Any] = {
            "title": s.title,
            "server": s.server,
            "table": s.table,
            "keyed": s.keyed,
            "distinct_requests": s.distinct,
            "requests_in_mix": len(s.requests),
            "mean_body_bytes": round(sizes.get(s.name, 0)),
        }
        if s.mirrors:
            entry["mirrors"] = s.mirrors
        if s.name in skipped:
            entry["status"] = "skipped"
            entry["reason"] = skipped[s.name]
        else:
            best = _best(results[s.name])
            if best.requests == 0:
                entry["status"] = "no completed requests"
            elif best.non_2xx or best.socket_errors:
                entry["status"] = "errors"
            else:
                entry["status"] = "ok"
            entry.update(best.as_dict())
            entry["rounds_rps"] = [r.rps for r in results[s.name]]
            entry["requests_asked"] = sum(r.requests for r in results[s.name])
        scenario_docs[s.name] = entry
    after_load = memory.get("after_load_mb", {})
    peaks = [mb for per_server in after_load.values() for mb in per_server.values()]
    document: dict[str, Any] = {
        "mode": args.scale,
        "settings": {
            "seconds": args.seconds,
            "warmup": args.warmup,
            "rounds": args.rounds,
            "connections": args.connections,
            "workers": 1,
            "distinct": args.distinct,
            "mix_length": args.mix_length,
            "zipf_s": ZIPF_S,
            "seed": SEED,
            "precheck": args.precheck,
            "inprocess_seconds": args.inprocess_seconds,
        },
        "dataset": {
            "scale": meta["scale"],
            "gias_file": Path(meta["gias_file"]).name,
            "gias_bytes": meta["gias_bytes"],
            "establishments": meta["import_gias"]["rows_read"],
            "served_schools": meta["import_gias"]["rows_imported"],
            "postcodes": meta["import_postcodes"]["rows_imported"],
            "built_at": meta.get("measured_at"),
        },
        "questions": {
            "name_queries": len(inputs.queries),
            "postcodes": len(inputs.postcodes),
            "postcodes_drawn_from": inputs.postcode_pool,
            "urns": len(inputs.urns),
        },
        "scenarios": scenario_docs,
        "inprocess": domain,
        "imports": {
            "postcodes": meta["import_postcodes"],
            "gias": meta["import_gias"],
            "measured": meta.get("imports_measured"),
        },
        "memory": {
            "peak_mb_per_worker": max(peaks) if peaks else None,
            "processes_mb": after_load,
            "after_warmup_mb": memory.get("after_warmup_mb"),
        },
        "environment": environment,
    }
    document["targets"] = {t.name: _evaluate(t, document) for t in targets}
    return document


def _evaluate(target: Target, document: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"title": target.title, "limit": target.limit, "kind": target.kind}
    if target.kind in ("ratio", "context", "reuse"):
        scenarios = document["scenarios"]
        subject = scenarios.get(target.subject, {})
        baseline = scenarios.get(target.baseline or "", {})
        if "rps" not in subject or "rps" not in baseline or not baseline["rps"]:
            out.update(value=None, met=None, note="not measured")
            return out
        pairs = [
            a / b for a, b in zip(subject["rounds_rps"], baseline["rounds_rps"], strict=True) if b
        ]
        value = statistics.median(pairs)
        out.update(
            value=round(value, 3),
            rounds=[round(x, 3) for x in pairs],
            met=value >= target.limit if target.kind == "ratio" else None,
            subject=target.subject,
            baseline=target.baseline,
        )
        if target.kind != "ratio":
            out["note"] = "context, no target" if target.kind == "context" else "reuse, no target"
        return out
    value = _lookup(document, target.subject)
    out["value"] = value
    if target.name.startswith("import_") and document["mode"] != "full":
        out.update(met=None, note="only meaningful at full scale")
    elif target.name.startswith("import_") and document["imports"]["measured"] != "this run":
        out.update(met=None, note=f"not re-timed: {document['imports']['measured']}")
    else:
        out["met"] = None if value is None else value <= target.limit
    return out


def _fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _ratios_by_subject(document: dict[str, Any]) -> dict[str, list[str]]:
    ratios: dict[str, list[str]] = {}
    for t in document["targets"].values():
        if t.get("value") is None or t["kind"] == "max":
            continue
        if t["kind"] == "ratio":
            mark = "met" if t["met"] else "**MISSED**"
            text = f"{t['value']:.2f}x {t['baseline']} (target >= {t['limit']:g}x: {mark})"
        else:
            text = f"{t['value']:.2f}x {t['baseline']} ({t['note']})"
        ratios.setdefault(t["subject"], []).append(text)
    return ratios


def _scenario_rows(document: dict[str, Any], table: str) -> list[str]:
    ratios = _ratios_by_subject(document)
    rows = [
        "| Scenario | Server | Questions (distinct / in mix) | Body bytes | req/s | p50 ms "
        "| p99 ms | Ratio |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for name, s in document["scenarios"].items():
        if s["table"] != table:
            continue
        asked = (
            f"{s['distinct_requests']:,}"
            if s["distinct_requests"] == s["requests_in_mix"]
            else f"{s['distinct_requests']:,} / {s['requests_in_mix']:,}"
        )
        if s["status"] == "skipped":
            rows.append(
                f"| {s['title']} (`{name}`) | {s['server']} | {asked} | | skipped | | | "
                f"{s['reason']} |"
            )
            continue
        flag = {
            "ok": "",
            "errors": f" ({s['non_2xx']} non-2xx, {s['socket_errors']} socket errors)",
        }.get(s["status"], f" ({s['status']})")
        rows.append(
            f"| {s['title']} (`{name}`){flag} | {s['server']} | {asked} | "
            f"{s['mean_body_bytes']:,} | {_fmt(s['rps'])} | {_fmt(s['p50_ms'], 2)} | "
            f"{_fmt(s['p99_ms'], 2)} | {'; '.join(ratios.get(name, []))} |"
        )
    return rows


def _target_rows(document: dict[str, Any]) -> list[str]:
    rows = ["| Target | Measured | Limit | Met |", "|---|---:|---:|---|"]
    for t in document["targets"].values():
        if t["kind"] == "reuse":
            continue
        limit = {"ratio": f">= {t['limit']:g}x", "context": "-"}.get(
            t["kind"], f"<= {t['limit']:g}"
        )
        value = t.get("value")
        ratio = t["kind"] in ("ratio", "context")
        shown = "-" if value is None else (f"{value:.2f}x" if ratio else f"{value:,.3g}")
        met = {True: "yes", False: "**NO**", None: t.get("note", "-")}[t["met"]]
        rows.append(f"| {t['title']} | {shown} | {limit} | {met} |")
    return rows


def markdown(document: dict[str, Any]) -> str:
    env, settings, questions = document["environment"], document["settings"], document["questions"]
    loads = " -> ".join(
        "/".join(f"{x:.1f}" for x in env[k]) for k in ("loadavg_at_start", "loadavg_at_end")
    )
    lines = [
        f"Run {env.get('run_at', '?')}, mode {document['mode']}; "
        f"{document['dataset']['served_schools']:,} served schools of "
        f"{document['dataset']['establishments']:,} establishments, "
        f"{document['dataset']['postcodes']:,} postcodes; "
        f"{settings['connections']} connections, 1 worker, "
        f"{settings['seconds']} s x {settings['rounds']} round(s); load generator "
        f"{env['load_generator']}; {env['cpus']} CPUs, load average (1/5/15 min) {loads} "
        "(start -> end of the run). req/s and latencies: each scenario's best round; ratios: "
        "the median over rounds of subject / baseline, run back to back in every round; "
        "each ceiling answers constant JSON of its subject's mean body size.",
        "",
        "**The computed path (headline).** The app server runs with answer reuse off "
        "(`SCHOOLDATA_REPLAY_MB=0`): every answer is computed. The questions are distinct: "
        f"{questions['name_queries']:,} name queries, {questions['postcodes']:,} postcodes "
        f"(2-mile radius; sampled from {questions['postcodes_drawn_from']:,}) and "
        f"{questions['urns']:,} URNs (every served school), asked in turn.",
        "",
        *_scenario_rows(document, "computed"),
        "",
        *_target_rows(document),
    ]
    if any(s["table"] == "reuse" for s in document["scenarios"].values()):
        lines += [
            "",
            "**Answer reuse on (second table; not the headline).** A second app server with "
            "the default setting (`SCHOOLDATA_REPLAY_MB` unset) answers "
            f"{settings['mix_length']:,} requests per scenario drawn Zipf-distributed "
            f"(s = {settings['zipf_s']:g}, seed {settings['seed']}) over the same distinct "
            "questions: a few asked often, most rarely or never. Ratios without targets.",
            "",
            *_scenario_rows(document, "reuse"),
        ]
    d = document["inprocess"]
    lines += [
        "",
        "In-process (direct calls, no HTTP, answer reuse off, the same distinct questions): "
        + ", ".join(
            f"{op} p50 {v['p50_ms']:.3f} ms / p99 {v['p99_ms']:.3f} ms" for op, v in d.items()
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def update_docs(path: Path, table: str) -> None:
    """Replace the results block of docs/performance.md with this run's table."""
    if not path.exists():
        return
    text = path.read_text()
    if DOCS_START not in text or DOCS_END not in text:
        return
    block = f"{DOCS_START}\n\n{table}\n{DOCS_END}"
    text = re.sub(
        re.escape(DOCS_START) + r".*?" + re.escape(DOCS_END), lambda _: block, text, flags=re.S
    )
    path.write_text(text)
