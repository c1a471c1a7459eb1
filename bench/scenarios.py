"""What is measured: the scenarios (requests per server), their inputs, and the targets."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from urllib.parse import quote, urlencode

from attrs import frozen

from bench.load import Request
from schooldata.domain.text import normalise

# Whole words (Datasette's default full-text search matches whole words, ours prefixes),
# from very common to rare, so the mix has both large and small candidate sets.
NAME_QUERIES = (
    "st mary",
    "primary",
    "academy",
    "church of england",
    "oakfield",
    "st john",
    "grammar",
    "holy cross",
    "meadowbank",
    "park infant",
    "king",
    "catholic high",
    "riverside",
    "nursery school",
    "college",
    "green",
)
RADIUS_MILES = 2
# Bounding box half-sizes a peer user would hard-code for 2 miles in Great Britain
# (latitude 50-59: one degree of longitude is at least cos(59) * 69.05 = 35.6 miles).
PEER_DLAT = RADIUS_MILES / 69.05 * 1.01
PEER_DLON = PEER_DLAT / math.cos(math.radians(59))
PEER_RADIUS_SQL = """\
select urn, name, la_name, type_name, phase, postcode, distance_miles from (
  select s.*, 7917.5226 * asin(min(1, sqrt(
      power(sin(radians(s.latitude - o.latitude) / 2), 2)
      + cos(radians(o.latitude)) * cos(radians(s.latitude))
        * power(sin(radians(s.longitude - o.longitude) / 2), 2)))) as distance_miles
  from schools s, (select latitude, longitude from postcodes where postcode = :postcode) o
  where s.latitude between o.latitude - :dlat and o.latitude + :dlat
    and s.longitude between o.longitude - :dlon and o.longitude + :dlon
) where distance_miles <= :radius order by distance_miles limit 10"""
MCP_HEADERS = (
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "search_schools"),
)
MCP_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


@frozen
class Scenario:
    name: str
    title: str
    server: str  # app | ceiling | peer
    requests: list[Request]
    keyed: bool = False


@frozen
class Target:
    name: str
    title: str
    kind: str  # ratio | max | context (a ratio with no target: it explains another)
    subject: str  # a scenario name, or an in-process / import / memory figure
    baseline: str | None
    limit: float


TARGETS = (
    Target(
        "name_search_vs_ceiling",
        "Public name search / ceiling (req/s)",
        "ratio",
        "search_name",
        "ceiling_search",
        0.6,
    ),
    Target(
        "get_school_vs_ceiling",
        "getSchool / ceiling (req/s)",
        "ratio",
        "get_school",
        "ceiling_school",
        0.8,
    ),
    Target(
        "keyed_list_vs_anonymous",
        "Keyed /schools list / same anonymous search (req/s)",
        "ratio",
        "list_keyed",
        "list_anonymous",
        0.85,
    ),
    Target(
        "mcp_vs_rest",
        "MCP tools/call search_schools / REST search (req/s)",
        "ratio",
        "mcp_search",
        "search_name",
        0.5,
    ),
    Target(
        "ceiling_post_vs_get",
        "Context for MCP: ceiling POST reading the MCP request / ceiling GET (req/s)",
        "context",
        "ceiling_mcp",
        "ceiling_search",
        0.0,
    ),
    Target(
        "name_search_vs_datasette",
        "Name search / Datasette FTS (req/s)",
        "ratio",
        "search_name",
        "peer_search_name",
        3.0,
    ),
    Target(
        "postcode_vs_datasette",
        "Postcode radius / Datasette SQL (req/s)",
        "ratio",
        "search_postcode",
        "peer_search_postcode",
        5.0,
    ),
    Target(
        "inprocess_search_p50",
        "In-process name search p50 (ms)",
        "max",
        "inprocess.search.p50_ms",
        None,
        1.0,
    ),
    Target(
        "inprocess_nearby_p50",
        "In-process nearby p50 (ms)",
        "max",
        "inprocess.nearby.p50_ms",
        None,
        0.5,
    ),
    Target(
        "import_postcodes",
        "Import all Code-Point Open (s)",
        "max",
        "imports.postcodes.seconds",
        None,
        60.0,
    ),
    Target("import_gias", "Import the GIAS file (s)", "max", "imports.gias.seconds", None, 15.0),
    Target(
        "server_rss",
        "Server RSS per worker, peak (MB)",
        "max",
        "memory.peak_mb_per_worker",
        None,
        300.0,
    ),
)


@frozen
class Inputs:
    urns: list[str]
    postcodes: list[str]
    points: list[tuple[float, float]]
    authorities: list[str]
    queries: tuple[str, ...] = NAME_QUERIES


def sample_inputs(db: Path, count: int = 256) -> Inputs:
    """Deterministic samples of the served rows: every k-th URN and located postcode."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    urns = [str(r[0]) for r in con.execute("SELECT urn FROM schools ORDER BY urn")]
    located = list(
        con.execute(
            "SELECT s.postcode, s.latitude, s.longitude FROM schools s "
            "WHERE s.latitude IS NOT NULL AND s.postcode IS NOT NULL AND EXISTS "
            "(SELECT 1 FROM postcodes p WHERE p.compact = replace(upper(s.postcode), ' ', '')) "
            "ORDER BY s.urn"
        )
    )
    authorities = [
        r[0]
        for r in con.execute(
            "SELECT la_name FROM schools WHERE la_name IS NOT NULL GROUP BY la_name "
            "ORDER BY count(*) DESC, la_name LIMIT 16"
        )
    ]
    names = [str(r[0]) for r in con.execute("SELECT name FROM schools ORDER BY urn")]
    con.close()
    # Two-word queries from the names of every k-th school ("oakfield primary", "st marys"):
    # a long tail on top of the fixed list, as real search traffic has.
    sampled: list[str] = []
    for name in names[:: max(1, len(names) // 48)]:
        words = normalise(name).split()[:2]
        query = " ".join(words)
        if len(query) >= 3 and query not in sampled and query not in NAME_QUERIES:
            sampled.append(query)
    step = max(1, len(urns) // count)
    pstep = max(1, len(located) // 64)
    picked = located[::pstep][:64]
    return Inputs(
        urns=urns[::step][:count],
        postcodes=[str(p) for p, _, _ in picked],
        points=[(round(la, 5), round(lo, 5)) for _, la, lo in picked],
        authorities=authorities,
        queries=(*NAME_QUERIES, *sampled[:48]),
    )


def build_scenarios(inputs: Inputs, api_key: str) -> list[Scenario]:
    key = (("Authorization", f"Bearer {api_key}"),)
    q = inputs.queries

    def get(path: str, params: dict[str, object] | None = None, headers=()) -> Request:  # type: ignore[no-untyped-def]
        return Request(
            "GET",
            path + ("?" + urlencode(params, quote_via=quote) if params else ""),
            tuple(headers),
        )

    def mcp(query: str, i: int) -> Request:
        body = {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": "search_schools", "arguments": {"query": query}, "_meta": MCP_META},
        }
        return Request("POST", "/mcp", MCP_HEADERS, json.dumps(body, separators=(",", ":")))

    las = inputs.authorities
    return [
        Scenario(
            "ceiling_search",
            "Ceiling (constant JSON, name-search size)",
            "ceiling",
            [get("/ceiling/search")],
        ),
        Scenario(
            "search_name",
            "Public name search",
            "app",
            [get("/api/v1/search", {"query": x}) for x in q],
        ),
        Scenario(
            "mcp_search",
            "MCP tools/call search_schools",
            "app",
            [mcp(x, i) for i, x in enumerate(q)],
        ),
        Scenario(
            "ceiling_mcp",
            "Ceiling POST: reads the MCP request, constant JSON of the MCP answer's size",
            "ceiling",
            [
                Request("POST", "/ceiling/mcp", MCP_HEADERS[:1], m.body)
                for m in (mcp(x, i) for i, x in enumerate(q))
            ],
        ),
        Scenario(
            "peer_search_name",
            "Datasette: FTS name search",
            "peer",
            [get("/peer/schools.json", {"_search": x, "_size": 10}) for x in q],
        ),
        Scenario(
            "ceiling_school",
            "Ceiling (constant JSON, getSchool size)",
            "ceiling",
            [get("/ceiling/school")],
        ),
        Scenario(
            "get_school",
            "getSchool (anonymous)",
            "app",
            [get(f"/api/v1/schools/{u}") for u in inputs.urns],
        ),
        Scenario(
            "get_school_keyed",
            "getSchool (keyed profile)",
            "app",
            [get(f"/api/v1/schools/{u}", headers=key) for u in inputs.urns],
            keyed=True,
        ),
        Scenario(
            "search_postcode",
            "Public postcode search, 2-mile radius",
            "app",
            [
                get("/api/v1/search", {"postcode": p, "radius_miles": RADIUS_MILES})
                for p in inputs.postcodes
            ],
        ),
        Scenario(
            "peer_search_postcode",
            "Datasette: postcode radius SQL",
            "peer",
            [
                get(
                    "/peer.json",
                    {
                        "sql": PEER_RADIUS_SQL,
                        "postcode": p.replace(" ", "").upper(),
                        "dlat": f"{PEER_DLAT:.5f}",
                        "dlon": f"{PEER_DLON:.5f}",
                        "radius": RADIUS_MILES,
                        "_shape": "array",
                    },
                )
                for p in inputs.postcodes
            ],
        ),
        Scenario(
            "list_anonymous",
            "Public search, phase filter (anonymous twin of the list)",
            "app",
            [get("/api/v1/search", {"query": x, "phase": "primary", "limit": 10}) for x in q],
        ),
        Scenario(
            "list_keyed",
            "Commercial /schools list, same question (keyed)",
            "app",
            [get("/api/v1/schools", {"q": x, "phase": "primary", "per_page": 10}, key) for x in q],
            keyed=True,
        ),
        Scenario(
            "list_keyed_paged",
            "Commercial /schools: LA + phase filters, sort=name, page 3 of 25 (keyed)",
            "app",
            [
                get(
                    "/api/v1/schools",
                    {
                        "local_authority": la,
                        "phase": "primary",
                        "sort": "name",
                        "page": 3,
                        "per_page": 25,
                    },
                    key,
                )
                for la in las
            ],
            keyed=True,
        ),
        Scenario(
            "nearby_keyed",
            "Commercial /schools/nearby, 2 miles (keyed)",
            "app",
            [
                get(
                    "/api/v1/schools/nearby",
                    {"postcode": p, "radius_miles": RADIUS_MILES, "per_page": 10},
                    key,
                )
                for p in inputs.postcodes
            ],
            keyed=True,
        ),
    ]
