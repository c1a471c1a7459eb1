"""Traces, when asked for: OpenTelemetry through the standard `OTEL_*` environment variables.

Tracing is on when the `otel` extra is installed (`pip install 'schooldata[otel]'`) and the
environment names where spans go: `OTEL_EXPORTER_OTLP_ENDPOINT`,
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER` (not `none`), and not
`OTEL_SDK_DISABLED=true`. Otherwise nothing of it runs: this module reads the environment,
and the SDK (`otel.py`) is never imported, so no request pays for a wrapper.

The composition root asks `start_tracing(os.environ)` once per worker process and hands what
it gets (or None) to `build_asgi`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schooldata.entrypoints.observability.otel import Tracing

log = logging.getLogger("schooldata.tracing")

DESTINATIONS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
EXTRA_HINT = "pip install 'schooldata[otel]'"


def requested(environ: Mapping[str, str]) -> bool:
    """Whether the environment asks for traces (see the module docstring)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporters = [
        name.strip().lower()
        for name in environ.get("OTEL_TRACES_EXPORTER", "").split(",")
        if name.strip()
    ]
    if exporters:
        return exporters != ["none"]
    return any(environ.get(name, "").strip() for name in DESTINATIONS)


def start_tracing(environ: Mapping[str, str]) -> Tracing | None:
    """This process's tracing when the environment asks for it and the extra is installed;
    None otherwise (a warning says so when traces were asked for without the extra)."""
    if not requested(environ):
        return None
    try:
        from schooldata.entrypoints.observability import otel
    except ImportError as missing:
        log.warning(
            "OTEL_* asks for traces but the otel extra is not installed (%s): serving without "
            "traces; %s",
            missing.name,
            EXTRA_HINT,
        )
        return None
    return otel.Tracing.from_environment(environ)
