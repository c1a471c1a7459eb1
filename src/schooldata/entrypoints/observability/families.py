"""The server's metric families: names, help texts and labels, each label value from a bounded
set (never a key, a key prefix or an organisation), and families computed at scrape time."""

from __future__ import annotations

import re
from collections.abc import Iterable

from attrs import frozen
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

OTHER = "other"
_LABEL_VALUE = re.compile(r"^[A-Za-z0-9_.:/{}()\-]{1,100}$")

Labels = tuple[tuple[str, str], ...]
Family = Metric  # a family computed at scrape time (`gauge`), for `render(extra=...)`


@frozen
class Declared:
    """A family as prometheus_client writes it: the file it lives in and its help text."""

    name: str
    file: str  # counter, histogram, gauge_livesum
    help: str
    labels: tuple[str, ...] = ()


REQUESTS = Declared(
    "schooldata_http_requests",
    "counter",
    "HTTP requests by route template, method, status and tier (public or commercial).",
    ("method", "route", "status", "tier"),
)
LATENCY = Declared(
    "schooldata_http_request_duration_seconds",
    "histogram",
    "HTTP request latency in seconds by route template and tier.",
    ("route", "tier"),
)
IN_PROGRESS = Declared(
    "schooldata_http_requests_in_progress", "gauge_livesum", "HTTP requests being answered now."
)
METERED = Declared(
    "schooldata_metered_calls",
    "counter",
    "Calls that consumed quota, by face (rest, mcp) and plan feature.",
    ("face", "feature"),
)
LIMITED = Declared(
    "schooldata_limit_rejections",
    "counter",
    "Calls refused by the rate limit or the monthly quota, by face and reason.",
    ("face", "reason"),
)
MCP_CALLS = Declared(
    "schooldata_mcp_calls",
    "counter",
    "MCP tools/call requests by tool and outcome.",
    ("outcome", "tool"),
)


def bounded(value: str) -> str:
    """A label value from outside (a tool name, a feature): short, plain, else `other`."""
    return value if _LABEL_VALUE.fullmatch(value) else OTHER


def gauge(name: str, help_text: str, samples: Iterable[tuple[Labels, float]]) -> Family:
    """A gauge family computed at scrape time (e.g. dataset freshness): `render(extra=...)`."""
    rows = list(samples)
    names = [label for label, _ in rows[0][0]] if rows else []
    family = GaugeMetricFamily(name, help_text, labels=names)
    for labels, value in rows:
        family.add_metric([v for _, v in labels], value)
    return family
