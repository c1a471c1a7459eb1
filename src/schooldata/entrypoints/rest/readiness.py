"""Readiness (`GET /ready`): the database, the register dataset and the rate-limit backend.

A probe reports a status and an exception's type, never raises and never shows its text; a
backend fallen back to per-process windows is `degraded`, still serving, so still ready.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from schooldata.application.service import Application
from schooldata.entrypoints.observability.logs import capped

log = logging.getLogger("schooldata.operations")

REGISTER_DATASET = "gias_establishments"


def _backend_name(adapter: object) -> str:
    module = type(adapter).__module__
    parts = module.split(".")
    if module.startswith("schooldata.adapters.") and len(parts) > 2:
        return parts[2]
    return type(adapter).__name__


def _probe(check: Callable[[], object]) -> tuple[bool, str | None]:
    try:
        check()
    except Exception as error:  # a readiness probe reports, it never raises
        # One line at warning level (a load balancer asks every few seconds through an
        # outage); the traceback only at debug level.
        log.warning("readiness check failed: %s", _described(error))
        log.debug("readiness check failed", exc_info=True)
        return False, type(error).__name__
    return True, None


def _described(error: BaseException) -> str:
    """The error's type and the first line of what it says, and its cause's (a driver error
    wrapped in DataUnavailable), capped: `DataUnavailable (OperationalError: connection
    failed: ...)`."""
    shown = _first_line(error)
    cause = error.__cause__ or error.__context__
    if cause is not None:
        shown += f" ({_first_line(cause)})"
    return capped(shown, 300)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def readiness(app: Application) -> tuple[bool, dict[str, Any]]:
    """Each check: `{"status": "ok" | "degraded" | "error" | "missing" | "unknown", ...}`;
    ready when every check is ok or degraded."""
    checks: dict[str, Any] = {}
    datasets = app.ports.datasets
    ping = getattr(datasets, "ping", None)
    records: list[Any] = []

    def read_database() -> None:
        if callable(ping):
            ping()
        records.extend(datasets.current())

    ok, error = _probe(read_database)
    checks["database"] = {"status": "ok"} if ok else {"status": "error", "error": error}
    if ok:
        register = next((r for r in records if r.name == REGISTER_DATASET), None)
        checks["dataset"] = (
            {"status": "ok", "name": REGISTER_DATASET, "rows": register.row_count}
            if register is not None
            else {"status": "missing", "name": REGISTER_DATASET}
        )
    else:
        checks["dataset"] = {"status": "unknown", "name": REGISTER_DATASET}
    checks["metering"] = metering_check(app.ports.rate)
    ready = all(c["status"] in ("ok", "degraded") for c in checks.values())
    degraded = any(c["status"] == "degraded" for c in checks.values())
    status = ("degraded" if degraded else "ready") if ready else "unavailable"
    return ready, {"status": status, "checks": checks}


def metering_check(rate: object) -> dict[str, Any]:
    """The rate-limit backend's state, through whichever probe the adapter offers:
    `health()` -> a mapping (a value `degraded` means it fell back to per-process windows:
    still serving, so still ready), `healthy()` -> bool, or `ping()` (raises when down).
    An adapter with none (the in-process limiter) is simply ok."""
    backend = _backend_name(rate)
    health = getattr(rate, "health", None)
    healthy = getattr(rate, "healthy", None)
    ping = getattr(rate, "ping", None)
    report: dict[str, Any] = {}

    def probe() -> None:
        if callable(health):
            answer = health()
            if isinstance(answer, Mapping):
                report.update({str(k): str(v) for k, v in answer.items()})
        elif callable(healthy):
            if healthy() is False:
                raise ConnectionError("the rate-limit backend reported itself unhealthy")
        elif callable(ping):
            ping()

    ok, error = _probe(probe)
    if not ok:
        return {"status": "error", "backend": backend, "error": error}
    if "degraded" in report.values():
        check: dict[str, Any] = {"status": "degraded", "backend": backend}
        if "detail" in report:
            check["detail"] = report["detail"]
        return check
    return {"status": "ok", "backend": backend}
