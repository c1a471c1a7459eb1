"""The targets: each a ratio of two scenarios run back to back in every round (the median over
rounds), or a bound on a figure.

The keyed list's target (>= 0.70x of its anonymous twin) leaves room for what the contract asks
of a keyed answer: the key recognised, the rate window, the quota, the metered count and the
commercial envelope with its page links and meter headers (docs/performance.md, "What limits
each figure").

Kinds: `ratio` (subject / baseline >= limit), `max` (figure <= limit), `context` (a ratio shown
beside another to explain it, no target) and `reuse` (a ratio of the answer-reuse table, shown
there, no target: the headline is the computed path).
"""

from __future__ import annotations

from attrs import frozen


@frozen
class Target:
    name: str
    title: str
    kind: str  # ratio | max | context | reuse
    subject: str  # a scenario name, or an in-process / import / memory figure
    baseline: str | None
    limit: float


def _ratio(name: str, title: str, subject: str, baseline: str, limit: float) -> Target:
    return Target(name, title, "ratio", subject, baseline, limit)


def _max(name: str, title: str, figure: str, limit: float) -> Target:
    return Target(name, title, "max", figure, None, limit)


TARGETS = (
    _ratio(
        "get_school_vs_ceiling",
        "getSchool / its ceiling (computed)",
        "get_school",
        "ceiling_school",
        0.6,
    ),
    _ratio(
        "name_search_vs_ceiling",
        "Name search / its ceiling (computed)",
        "search_name",
        "ceiling_search",
        0.4,
    ),
    _ratio(
        "postcode_search_vs_ceiling",
        "Postcode search, 2 miles / its ceiling (computed)",
        "search_postcode",
        "ceiling_postcode",
        0.4,
    ),
    _ratio(
        "keyed_list_vs_anonymous",
        "Keyed /schools list / its anonymous twin (computed)",
        "list_keyed",
        "list_anonymous",
        0.70,
    ),
    _ratio(
        "mcp_vs_rest",
        "MCP tools/call search_schools / the same REST search (computed)",
        "mcp_search",
        "search_name",
        0.6,
    ),
    Target(
        "ceiling_post_vs_get",
        "Context for MCP: ceiling POST reading the MCP request / ceiling GET",
        "context",
        "ceiling_mcp",
        "ceiling_search",
        0.0,
    ),
    _ratio(
        "name_search_vs_datasette",
        "Name search / Datasette FTS (computed)",
        "search_name",
        "peer_search_name",
        3.0,
    ),
    _ratio(
        "postcode_vs_datasette",
        "Postcode radius / Datasette SQL (computed)",
        "search_postcode",
        "peer_search_postcode",
        5.0,
    ),
    _max("inprocess_search_p50", "In-process name search p50 (ms)", "inprocess.search.p50_ms", 1.0),
    _max("inprocess_nearby_p50", "In-process nearby p50 (ms)", "inprocess.nearby.p50_ms", 0.5),
    _max("import_postcodes", "Import all Code-Point Open (s)", "imports.postcodes.seconds", 60.0),
    _max("import_gias", "Import the GIAS file (s)", "imports.gias.seconds", 15.0),
    _max(
        "server_rss",
        "Server RSS per worker, peak over both app servers (MB)",
        "memory.peak_mb_per_worker",
        300.0,
    ),
    Target(
        "reuse_name_search_vs_ceiling",
        "Reuse on, Zipf mix: name search / its ceiling",
        "reuse",
        "reuse_search_name",
        "ceiling_reuse_search",
        0.0,
    ),
    Target(
        "reuse_postcode_search_vs_ceiling",
        "Reuse on, Zipf mix: postcode search, 2 miles / its ceiling",
        "reuse",
        "reuse_search_postcode",
        "ceiling_reuse_postcode",
        0.0,
    ),
    Target(
        "reuse_get_school_vs_ceiling",
        "Reuse on, Zipf mix: getSchool / its ceiling",
        "reuse",
        "reuse_get_school",
        "ceiling_reuse_school",
        0.0,
    ),
)
