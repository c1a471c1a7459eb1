"""Results: the JSON document, the Markdown table, and the table in docs/performance.md."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.load import LoadResult
from bench.scenarios import Scenario, Target

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
            "keyed": s.keyed,
            "distinct_requests": len(s.requests),
            "mean_body_bytes": round(sizes.get(s.name, 0)),
        }
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
        scenario_docs[s.name] = entry
    peaks = list(memory.get("after_load_mb", {}).values())
    document: dict[str, Any] = {
        "mode": args.scale,
        "settings": {
            "seconds": args.seconds,
            "warmup": args.warmup,
            "rounds": args.rounds,
            "connections": args.connections,
            "workers": 1,
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
        "scenarios": scenario_docs,
        "inprocess": domain,
        "imports": {
            "postcodes": meta["import_postcodes"],
            "gias": meta["import_gias"],
            "measured": meta.get("imports_measured"),
        },
        "memory": {
            "peak_mb_per_worker": max(peaks) if peaks else None,
            "processes_mb": memory.get("after_load_mb"),
            "after_warmup_mb": memory.get("after_warmup_mb"),
        },
        "environment": environment,
    }
    document["targets"] = {t.name: _evaluate(t, document) for t in targets}
    return document


def _evaluate(target: Target, document: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"title": target.title, "limit": target.limit, "kind": target.kind}
    if target.kind in ("ratio", "context"):
        scenarios = document["scenarios"]
        subject, baseline = scenarios[target.subject], scenarios[target.baseline or ""]
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
        if target.kind == "context":
            out["note"] = "context, no target"
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


def markdown(document: dict[str, Any]) -> str:
    ratios_for: dict[str, list[str]] = {}
    for t in document["targets"].values():
        if t["kind"] == "ratio" and t.get("value") is not None:
            mark = "met" if t["met"] else "**MISSED**"
            ratios_for.setdefault(t["subject"], []).append(
                f"{t['value']:.2f}x {t['baseline']} (target >= {t['limit']:g}x: {mark})"
            )
        elif t["kind"] == "context" and t.get("value") is not None:
            ratios_for.setdefault(t["subject"], []).append(
                f"{t['value']:.2f}x {t['baseline']} (context, no target)"
            )
    lines = [
        f"Run {document['environment'].get('run_at', '?')}, mode {document['mode']}"
        f"{' (REPLAY OFF: every answer computed)' if document['environment'].get('replay') is False else ''}; "
        f"{document['dataset']['served_schools']:,} served schools of "
        f"{document['dataset']['establishments']:,} establishments, "
        f"{document['dataset']['postcodes']:,} postcodes; "
        f"{document['settings']['connections']} connections, 1 worker, "
        f"{document['settings']['seconds']} s x {document['settings']['rounds']} round(s); "
        "req/s and latencies: each scenario's best round; ratios: the median over rounds of "
        "subject/baseline measured back to back; "
        f"load generator {document['environment']['load_generator']}.",
        "",
        "| Scenario | Server | req/s | p50 ms | p99 ms | Ratio (target) |",
        "|---|---|---:|---:|---:|---|",
    ]
    for name, s in document["scenarios"].items():
        if s["status"] == "skipped":
            lines.append(
                f"| {s['title']} (`{name}`) | {s['server']} | skipped | | | {s['reason']} |"
            )
            continue
        flag = {
            "ok": "",
            "errors": f" ({s['non_2xx']} non-2xx, {s['socket_errors']} socket errors)",
        }.get(s["status"], f" ({s['status']})")
        lines.append(
            f"| {s['title']} (`{name}`){flag} | {s['server']} | {_fmt(s['rps'])} | "
            f"{_fmt(s['p50_ms'], 2)} | {_fmt(s['p99_ms'], 2)} | {'; '.join(ratios_for.get(name, []))} |"
        )
    lines += ["", "| Target | Measured | Limit | Met |", "|---|---:|---:|---|"]
    for t in document["targets"].values():
        limit = {"ratio": f">= {t['limit']:g}x", "context": "-"}.get(
            t["kind"], f"<= {t['limit']:g}"
        )
        value = t.get("value")
        ratio = t["kind"] in ("ratio", "context")
        shown = "-" if value is None else (f"{value:.2f}x" if ratio else f"{value:,.3g}")
        met = {True: "yes", False: "**NO**", None: t.get("note", "-")}[t["met"]]
        lines.append(f"| {t['title']} | {shown} | {limit} | {met} |")
    d = document["inprocess"]
    lines += [
        "",
        "In-process (direct calls, no HTTP): "
        + ", ".join(
            f"{op} p50 {v['p50_ms']:.3f} ms / p99 {v['p99_ms']:.3f} ms" for op, v in d.items()
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def update_docs(path: Path, document: dict[str, Any], table: str) -> None:
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
