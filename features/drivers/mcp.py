"""The MCP face: JSON-RPC `tools/call` requests to `/mcp` of the served app (REST and MCP on one
ASGI app, as `bootstrap.build_asgi` mounts them), stateless 2026-07-28, written by hand.

Every request carries the headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) and the
`params._meta` the protocol version requires. Anonymous callers get the two public tools;
a key gets the ten commercial ones. A tool that ran and refused is a result with
`isError: true` whose `structuredContent` is the tier's error body; bad credentials are an
HTTP 401 with the commercial error body. The driver checks both.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from typing import Any

import httpx
from litestar.testing import TestClient

from features.drivers import Answer, Driver, FaceCannot, Params, Refusal

MODERN = "2026-07-28"
CLIENT_INFO = {"name": "schooldata-features", "version": "1.0"}
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": CLIENT_INFO,
    "io.modelcontextprotocol/clientCapabilities": {},
}
INTEGERS = frozenset({"limit", "page", "per_page", "ofsted_rating"})
NUMBERS = frozenset({"radius_miles", "latitude", "longitude", "min_score"})
ORIGIN = frozenset({"postcode", "latitude", "longitude"})
TOPIC_TOOLS = {
    "results": "get_school_results",
    "admissions": "get_school_admissions",
    "finance": "get_school_finances",
    "inspections": "get_school_inspection_history",
}
AUTH_CODES = frozenset(
    {"invalid_api_key", "api_key_revoked", "conflicting_credentials", "missing_api_key"}
)
_ids = itertools.count(1)


def arguments_of(params: Params) -> dict[str, Any]:
    """Text parameters as JSON arguments: numbers where the tool takes numbers, so a value
    like "ten" stays text and is refused by the tool's own validation."""
    arguments: dict[str, Any] = {}
    for name, value in params.items():
        if name in INTEGERS and re.fullmatch(r"[+-]?\d+", value.strip()):
            arguments[name] = int(value)
        elif name in NUMBERS | INTEGERS:
            try:
                arguments[name] = float(value)
            except ValueError:
                arguments[name] = value
        else:
            arguments[name] = value
    return arguments


class McpDriver(Driver):
    face = "mcp"
    capabilities = frozenset({"keys", "metering", "envelope", "transport"})

    @property
    def client(self) -> TestClient[Any]:
        assert self._stage is not None
        return self._stage.mcp

    # ------------------------------------------------------------------ operations

    def _search(self, params: Params, *, keyed: bool = False) -> Answer:
        return self._call("search_schools", arguments_of(params), keyed=keyed)

    def _school(self, urn: str) -> Answer:
        return self._call("get_school", {"urn": urn}, keyed=False)

    def _profile(self, urn: str) -> Answer:
        return self._call("get_school", {"urn": urn})

    def _list_schools(self, params: Params) -> Answer:
        # No list tool: `search_schools` is the list with `q`, `find_schools_near_location` the
        # list with an origin. Both run the same list rules as `GET /schools`.
        if ORIGIN & set(params):
            return self._call("find_schools_near_location", arguments_of(params))
        if "q" in params:
            return self._call("search_schools", arguments_of(params))
        raise FaceCannot("the mcp face lists schools only by `q` or by an origin")

    def _nearby(self, params: Params) -> Answer:
        return self._call("find_schools_near_location", arguments_of(params))

    def _dataset(self, topic: str, urn: str, *, predecessors: bool = False) -> Answer:
        arguments: dict[str, Any] = {"urn": urn}
        if predecessors:
            arguments["include_predecessors"] = True  # a JSON boolean, as a model sends it
        return self._call(TOPIC_TOOLS[topic], arguments)

    def _changes(self, params: Params) -> Answer:
        raise FaceCannot("no MCP tool lists changes (the ten commercial tools are the contract)")

    def _compare(self, urns: list[str | int]) -> Answer:
        return self._call("compare_schools", {"urns": urns})

    def _rankings(self, params: Params) -> Answer:
        return self._call("get_school_rankings", arguments_of(params))

    def _freshness(self) -> Answer:
        return self._call("get_school_data_freshness", {})

    def _meta(self) -> Answer:
        raise FaceCannot("the mcp face has no metadata tool")

    def _lookup(self, urns: list[str | int]) -> Answer:
        raise FaceCannot("the mcp face has no lookup tool (the ten commercial tools stay)")

    def key_in_query(self) -> Answer:
        key = self.credentials.bearer if self.credentials else None
        if key is None:
            raise FaceCannot("no key to put in the query string")
        response = self._post("tools/list", {}, keyed=False, query=f"?api_key={key}")
        return self._refusal(response)

    def tools(self) -> list[dict[str, Any]]:
        response = self._post("tools/list", {}, keyed=True)
        assert response.status_code == 200, response.text
        tools: list[dict[str, Any]] = response.json()["result"]["tools"]
        return tools

    def discover(self) -> int:
        return self._post("server/discover", {}, keyed=True).status_code

    def oversized_call(self, kib: int) -> tuple[int, dict[str, Any]]:
        arguments = {"query": "school", "padding": "x" * (kib * 1024)}
        response = self._post(
            "tools/call", {"name": "search_schools", "arguments": arguments}, keyed=True
        )
        assert response.headers["content-type"].startswith("application/json"), response.text
        answer: dict[str, Any] = response.json()
        return response.status_code, answer

    def school_for_host(self, urn: str, host: str) -> Refusal:
        body = {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": "tools/call",
            "params": {"name": "get_school", "arguments": {"urn": urn}, "_meta": META},
        }
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "get_school",
            "Host": host.encode(),
        }
        response = self.client.post("/mcp", json=body, headers=headers)
        error = response.json()["error"]  # a JSON-RPC error: the request was never read
        assert error["code"] == -32600, error
        return Refusal(
            status=response.status_code,
            code=error["data"]["code"],
            request_id=error["data"]["request_id"],
            shown=response.text + str(response.headers.multi_items()),
        )

    # ------------------------------------------------------------------ JSON-RPC over HTTP

    def _headers(self) -> dict[str, str]:
        credentials = self.credentials
        headers: dict[str, str] = {}
        if credentials is not None and credentials.bearer:
            headers["Authorization"] = f"Bearer {credentials.bearer}"
        if credentials is not None and credentials.x_api_key:
            headers["X-API-Key"] = credentials.x_api_key
        return headers

    def _post(
        self, method: str, params: Mapping[str, Any], *, keyed: bool, query: str = ""
    ) -> httpx.Response:
        body = {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": method,
            "params": {**params, "_meta": META},
        }
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": MODERN,
            "Mcp-Method": method,
            **(self._headers() if keyed else {}),
        }
        if method == "tools/call":
            headers["Mcp-Name"] = str(params["name"])
        return self.client.post(f"/mcp{query}", json=body, headers=headers)

    def _call(self, tool: str, arguments: dict[str, Any], *, keyed: bool = True) -> Answer:
        response = self._post("tools/call", {"name": tool, "arguments": arguments}, keyed=keyed)
        headers = {name.lower(): value for name, value in response.headers.items()}
        if response.status_code != 200:
            return self._refusal(response)
        message = response.json()
        assert "error" not in message, f"{tool}: a protocol error: {message['error']}"
        result = message["result"]
        content = result["structuredContent"]
        if not result["isError"]:
            if "meta" in content and "data" in content:
                return Answer(
                    face=self.face,
                    ok=True,
                    body=content["data"],
                    pagination=content["meta"].get("pagination"),
                    meta=content["meta"],
                    status=200,
                    headers=headers,
                )
            return Answer(face=self.face, ok=True, body=content, status=200, headers=headers)
        error = content["error"]
        if isinstance(error, dict):  # the commercial error body
            details = dict(error["details"])
            retry_after = details.pop("retry_after", None)
            return Answer(
                face=self.face,
                ok=False,
                code=error["code"],
                message=error["message"],
                details=details,
                retry_after=retry_after,
                status=200,
                headers=headers,
            )
        return Answer(
            face=self.face,
            ok=False,
            code=content["code"],
            message=error,
            status=200,
            headers=headers,
        )

    def _refusal(self, response: httpx.Response) -> Answer:
        """An HTTP-level refusal: bad credentials (401), a key in the query string (400), or
        the key store unavailable (503)."""
        headers = {name.lower(): value for name, value in response.headers.items()}
        body = response.json()
        assert "jsonrpc" not in body, f"a protocol error (HTTP {response.status_code}): {body}"
        error = body["error"]
        code = error["code"]
        expected = 401 if code in AUTH_CODES else 503 if code == "service_unavailable" else 400
        assert response.status_code == expected, (
            f"{code!r} answered with HTTP {response.status_code}"
        )
        assert error["request_id"] == headers.get("x-request-id")
        if response.status_code == 401:
            assert headers.get("www-authenticate", "").startswith("Bearer")
        return Answer(
            face=self.face,
            ok=False,
            code=code,
            message=error["message"],
            details=dict(error["details"]),
            status=response.status_code,
            headers=headers,
        )
