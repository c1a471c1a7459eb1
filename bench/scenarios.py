"""What is measured: the scenarios, each a server and the requests asked of it.

Two tables. The headline is the computed path: the app server with answer reuse off
(`SCHOOLDATA_REPLAY_MB=0`), every request of a scenario a different question (bench/inputs.py),
beside a ceiling of the same body size and Datasette. The second is answer reuse on (the
default), a second app server, on a Zipf-distributed mix over the same questions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from urllib.parse import quote, urlencode

from attrs import frozen

from bench.inputs import ZIPF_S, Inputs, zipf_mix
from bench.load import Request

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
    server: str  # app (reuse off) | app_reuse (reuse on) | ceiling | peer
    requests: list[Request]  # asked in this order, round robin
    keyed: bool = False
    table: str = "computed"  # computed (the headline) | reuse
    mirrors: str | None = None  # a ceiling: the scenario whose mean body size it answers

    @property
    def distinct(self) -> int:
        return len(set(self.requests))


def _get(path: str, params: dict[str, object] | None = None, headers=()) -> Request:  # type: ignore[no-untyped-def]
    return Request(
        "GET",
        path + ("?" + urlencode(params, quote_via=quote) if params else ""),
        tuple(headers),
    )


def _mcp(query: str, i: int) -> Request:
    body = {
        "jsonrpc": "2.0",
        "id": i,
        "method": "tools/call",
        "params": {"name": "search_schools", "arguments": {"query": query}, "_meta": MCP_META},
    }
    return Request("POST", "/mcp", MCP_HEADERS, json.dumps(body, separators=(",", ":")))


def _name_search(query: str) -> Request:
    return _get("/api/v1/search", {"query": query})


def _postcode_search(postcode: str) -> Request:
    return _get("/api/v1/search", {"postcode": postcode, "radius_miles": RADIUS_MILES})


def _school(urn: str) -> Request:
    return _get(f"/api/v1/schools/{urn}")


def _ceiling(name: str, title: str, mirrors: str, table: str = "computed") -> Scenario:
    return Scenario(
        name, title, "ceiling", [_get(f"/ceiling/{name}")], table=table, mirrors=mirrors
    )


def build_scenarios(inputs: Inputs, api_key: str, *, mix_length: int) -> list[Scenario]:
    """Every scenario, in the order each round runs them (a subject right after, or near, its
    baseline). `mix_length`: requests in each Zipf mix of the reuse table."""
    return [*computed_scenarios(inputs, api_key), *reuse_scenarios(inputs, mix_length)]


def computed_scenarios(inputs: Inputs, api_key: str) -> list[Scenario]:
    key = (("Authorization", f"Bearer {api_key}"),)
    q, postcodes, urns = inputs.queries, inputs.postcodes, inputs.urns
    mcp = [_mcp(x, i) for i, x in enumerate(q)]
    return [
        _ceiling("ceiling_search", "Ceiling (constant JSON, name-search size)", "search_name"),
        Scenario("search_name", "Public name search", "app", [_name_search(x) for x in q]),
        Scenario("mcp_search", "MCP tools/call search_schools (anonymous)", "app", mcp),
        Scenario(
            "ceiling_mcp",
            "Ceiling POST: reads the MCP request, constant JSON of the MCP answer's size",
            "ceiling",
            [Request("POST", "/ceiling/ceiling_mcp", MCP_HEADERS[:1], m.body) for m in mcp],
            mirrors="mcp_search",
        ),
        Scenario(
            "peer_search_name",
            "Datasette: FTS name search",
            "peer",
            [_get("/peer/schools.json", {"_search": x, "_size": 10}) for x in q],
        ),
        Scenario(
            "list_anonymous",
            "Public search, phase filter (anonymous twin of the list)",
            "app",
            [_get("/api/v1/search", {"query": x, "phase": "primary", "limit": 10}) for x in q],
        ),
        Scenario(
            "list_keyed",
            "Commercial /schools list, same questions (keyed)",
            "app",
            [_get("/api/v1/schools", {"q": x, "phase": "primary", "per_page": 10}, key) for x in q],
            keyed=True,
        ),
        Scenario(
            "list_keyed_paged",
            "Commercial /schools: LA + phase filters, sort=name, page 3 of 25 (keyed)",
            "app",
            [
                _get(
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
                for la in inputs.authorities
            ],
            keyed=True,
        ),
        _ceiling("ceiling_school", "Ceiling (constant JSON, getSchool size)", "get_school"),
        Scenario("get_school", "getSchool (anonymous)", "app", [_school(u) for u in urns]),
        Scenario(
            "get_school_keyed",
            "getSchool (keyed profile)",
            "app",
            [_get(f"/api/v1/schools/{u}", headers=key) for u in urns],
            keyed=True,
        ),
        _ceiling(
            "ceiling_postcode", "Ceiling (constant JSON, postcode-search size)", "search_postcode"
        ),
        Scenario(
            "search_postcode",
            "Public postcode search, 2-mile radius",
            "app",
            [_postcode_search(p) for p in postcodes],
        ),
        Scenario(
            "peer_search_postcode",
            "Datasette: postcode radius SQL",
            "peer",
            [
                _get(
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
                for p in postcodes
            ],
        ),
        Scenario(
            "nearby_keyed",
            "Commercial /schools/nearby, 2 miles (keyed)",
            "app",
            [
                _get(
                    "/api/v1/schools/nearby",
                    {"postcode": p, "radius_miles": RADIUS_MILES, "per_page": 10},
                    key,
                )
                for p in postcodes
            ],
            keyed=True,
        ),
    ]


def reuse_scenarios(inputs: Inputs, mix_length: int) -> list[Scenario]:
    """Answer reuse on: `mix_length` requests drawn Zipf-distributed (s = ZIPF_S, seeded) over
    the same distinct questions, each beside a ceiling of the mix's mean body size."""

    def mix(questions: Sequence[str], build) -> list[Request]:  # type: ignore[no-untyped-def]
        return [build(x) for x in zipf_mix(questions, mix_length)]

    zipf = f"Zipf s={ZIPF_S:g}"
    return [
        _ceiling(
            "ceiling_reuse_search",
            "Ceiling (constant JSON, the name mix's size)",
            "reuse_search_name",
            "reuse",
        ),
        Scenario(
            "reuse_search_name",
            f"Public name search, reuse on ({zipf})",
            "app_reuse",
            mix(inputs.queries, _name_search),
            table="reuse",
        ),
        _ceiling(
            "ceiling_reuse_postcode",
            "Ceiling (constant JSON, the postcode mix's size)",
            "reuse_search_postcode",
            "reuse",
        ),
        Scenario(
            "reuse_search_postcode",
            f"Public postcode search, 2 miles, reuse on ({zipf})",
            "app_reuse",
            mix(inputs.postcodes, _postcode_search),
            table="reuse",
        ),
        _ceiling(
            "ceiling_reuse_school",
            "Ceiling (constant JSON, the getSchool mix's size)",
            "reuse_get_school",
            "reuse",
        ),
        Scenario(
            "reuse_get_school",
            f"getSchool, reuse on ({zipf})",
            "app_reuse",
            mix(inputs.urns, _school),
            table="reuse",
        ),
    ]
